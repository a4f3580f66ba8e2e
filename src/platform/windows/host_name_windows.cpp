#include "platform/probes.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform {

std::string this_host_name() {
  wchar_t host[256] = {0};
  DWORD size = sizeof host / sizeof host[0];
  if (!GetComputerNameExW(ComputerNameDnsHostname, host, &size)) return {};
  return win::narrow(host, size);
}

}  // namespace accel::platform
