// The PDH GPU busy source exists on Windows only (windows/gpu_busy_pdh_windows.cpp).
#include "platform/gpu_busy.hpp"

namespace accel::platform::detail {

std::unique_ptr<GpuBusySource> open_pdh_gpu_busy_source(std::string& why) {
  why = "PDH is Windows only";
  return nullptr;
}

}  // namespace accel::platform::detail
