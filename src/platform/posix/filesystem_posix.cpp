// The size of a mounted file system (statvfs), for /dev/shm (topology.cpp).
#include <sys/statvfs.h>

#include "platform/topology_detail.hpp"

namespace accel::platform::detail {

std::optional<FsSpace> filesystem_space(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
  FsSpace s;
  s.total_bytes = static_cast<std::uint64_t>(st.f_blocks) * st.f_frsize;
  s.free_bytes = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  return s;
}

}  // namespace accel::platform::detail
