#include "core/files.hpp"

#include <cerrno>
#include <fstream>
#include <sstream>

namespace accel {

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(ss).str();
}

}  // namespace accel
