// Stands in for runtime.cpp in a build without glslc or the Vulkan headers
// (CMake says so at configure time): the ceiling says it is not built.
#include "engines/vulkan/ceiling.hpp"

namespace accel::vulkan {

bool int8_dot_built() { return false; }

Run run(const Options&) {
  Run out;
  out.built = false;
  out.error =
      "not built into this accel-doctor (glslc or the Vulkan headers were missing when it was configured; "
      "Debian: apt install glslc libvulkan-dev)";
  return out;
}

}  // namespace accel::vulkan
