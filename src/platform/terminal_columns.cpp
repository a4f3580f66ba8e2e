// The $COLUMNS fallback shared by the OS-specific terminal probes.
#include <cstdlib>

#include "platform/detail.hpp"

namespace accel::platform::detail {

int columns_from_environment(int fallback) {
  if (const char* cols = std::getenv("COLUMNS")) {
    const int n = std::atoi(cols);
    if (n > 20) return n;
  }
  return fallback;
}

}  // namespace accel::platform::detail
