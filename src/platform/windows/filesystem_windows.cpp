// Windows has no /dev/shm: NCCL does not run there, so there is nothing to size.
#include "platform/topology_detail.hpp"

namespace accel::platform::detail {

std::optional<FsSpace> filesystem_space(const std::string&) { return std::nullopt; }

}  // namespace accel::platform::detail
