#include "core/paths.hpp"

#include <filesystem>
#include <system_error>

namespace accel {

std::string executable_dir() {
  std::error_code ec;
#if defined(__linux__)
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) return exe.parent_path().string();
#endif
  return {};
}

}  // namespace accel
