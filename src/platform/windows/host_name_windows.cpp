#include <windows.h>

#include "platform/probes.hpp"

namespace accel::platform {

std::string this_host_name() {
  char host[256] = {0};
  DWORD size = sizeof host;
  if (!GetComputerNameExA(ComputerNameDnsHostname, host, &size)) return {};
  return std::string(host, size);
}

}  // namespace accel::platform
