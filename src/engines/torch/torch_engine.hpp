// The torch engine behind the Engine interface (engine_api/engine.hpp), in
// the process that links libtorch: accel-doctor-torch serves it to the
// front end (engines/torch/main.cpp); the engine tests call it directly.
#pragma once

#include "engine_api/engine.hpp"

namespace accel::engine {

class TorchEngine final : public Engine {
 public:
  ACCEL_ENGINE_OVERRIDES
};

}  // namespace accel::engine
