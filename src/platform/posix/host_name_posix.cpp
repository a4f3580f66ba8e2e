#include <unistd.h>

#include "platform/probes.hpp"

namespace accel::platform {

std::string this_host_name() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

}  // namespace accel::platform
