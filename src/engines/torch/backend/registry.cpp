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

}  // namespace accel::engine
