// Device nodes on Windows: there are none. GPUs are reached through the
// display driver (WDDM) and the vendor runtimes' DLLs, not /dev files with
// permissions, so the report says so instead of listing nothing.
#include "platform/detail.hpp"

namespace accel::platform::detail {

void probe_device_nodes(const ProbeRoots&, DriverInfo& d) {
  d.not_collected["device_nodes"] =
      "Windows has no GPU device nodes: GPUs are reached through the display driver (WDDM) and the vendor "
      "runtimes, so there are no permissions to check";
}

}  // namespace accel::platform::detail
