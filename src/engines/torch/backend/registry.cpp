#include "engines/torch/backend/backend.hpp"

namespace accel::engine {

#if defined(ACCEL_WITH_CUDA)
const AcceleratorBackend* cuda_backend();  // backend/cuda/cuda_backend.cpp
#endif

const AcceleratorBackend* accelerator_backend() {
#if defined(ACCEL_WITH_CUDA)
  return cuda_backend();
#else
  return nullptr;
#endif
}

const AcceleratorBackend* accelerator_backend(const c10::Device& device) {
  const AcceleratorBackend* b = accelerator_backend();
  return b && device.type() == b->device_type() ? b : nullptr;
}

}  // namespace accel::engine
