#include "engines/torch/multi/nccl_debug.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "platform/detail.hpp"
#include "platform/process.hpp"

namespace accel::engine {

void NcclDebugCapture::configure(const std::string& dir, int rank) {
  const char* user_debug = std::getenv("NCCL_DEBUG");
  const char* user_file = std::getenv("NCCL_DEBUG_FILE");
  if (user_debug && *user_debug) {
    if (user_file && *user_file) {
      path_ = user_file;  // NCCL expands %h and %p in it; a plain path reads as is
      if (path_.find('%') != std::string::npos) {
        path_.clear();
        note_ = fmt::format("NCCL_DEBUG_FILE={} is yours (with %h/%p): not read", user_file);
      }
    } else {
      note_ = fmt::format(
          "NCCL_DEBUG={} is set by you without NCCL_DEBUG_FILE: NCCL writes to the terminal, "
          "so the transports are not parsed",
          user_debug);
    }
    return;
  }
  path_ = platform::detail::join(dir, fmt::format("nccl.r{}.{}.log", rank, platform::process_id()));
  platform::set_environment_variable("NCCL_DEBUG", "INFO");
  platform::set_environment_variable("NCCL_DEBUG_FILE", path_);
}

multi::NcclLogSummary NcclDebugCapture::read() const {
  if (path_.empty()) return {};
  const auto text = platform::detail::read_text(path_, nullptr, 8 << 20);
  return text ? multi::parse_nccl_log(*text) : multi::NcclLogSummary{};
}

}  // namespace accel::engine
