// Loading a Hugging Face checkpoint (config.json + *.safetensors, memory
// mapped) into the model's weights. Engine-internal.
#pragma once

#include <stdexcept>
#include <string>

#include "engines/torch/llm/model.hpp"

namespace accel::engine::llm {

struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Checkpoint {
  LlamaConfig config;
  Weights weights;
  std::string description;  ///< "3 safetensors files, 1.24e9 parameters, bf16"
};

/// Loads `dir` (config.json, model.safetensors or model.safetensors.index.json
/// with its shards) onto `device` in `dtype`. Throws CheckpointError naming the
/// file and tensor for a missing, truncated, malformed or mismatched input.
Checkpoint load_checkpoint(const std::string& dir, const c10::Device& device, at::ScalarType dtype);

}  // namespace accel::engine::llm
