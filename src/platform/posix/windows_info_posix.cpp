// probe_windows elsewhere: there is no Windows section (environment.windows
// stays null in the report).
#include "platform/probes.hpp"

namespace accel::platform {

std::optional<WindowsInfo> probe_windows(const WindowsProbeOptions&) { return std::nullopt; }

}  // namespace accel::platform
