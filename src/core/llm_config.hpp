// The shape of a Llama-family decoder (LlamaForCausalLM, Qwen2ForCausalLM)
// and the presets accel-doctor measures, as data: one table, read by the
// torch engine to build the model (engines/torch/llm/model.hpp) and by the
// front end to check --preset and --cpu-preset and list them in --help.
// Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel {

/// Llama 3 "llama3" rope scaling (Llama 3.1/3.2 configs).
struct RopeScaling {
  double factor = 8.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position = 8192;
};

struct LlamaConfig {
  std::string name;
  int64_t vocab = 0;
  int64_t hidden = 0;
  int64_t intermediate = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  double rope_theta = 10000.0;
  double rms_eps = 1e-5;
  bool tie_embeddings = false;
  bool qkv_bias = false;  ///< Qwen2 has biases on q/k/v projections
  int64_t max_position = 4096;
  std::optional<RopeScaling> rope_scaling;

  /// Parameters (embedding and lm_head counted once when tied).
  double parameters() const;
  /// Bytes of weights one decode step reads: every layer's matrices and
  /// norms, the final norm, and the lm_head (one embedding row is negligible).
  double decode_weight_bytes(double elem_bytes) const;
  /// FLOPs of a forward pass over `tokens` new tokens with `context`
  /// tokens before them: 2 x matrix parameters per token plus attention
  /// (QK^T and PV: 4 x heads x head_dim x attended positions per token).
  double forward_flops(int64_t tokens, int64_t context) const;
};

/// The presets, in the order --help lists them: the published shapes of real
/// models (config.json of each on the Hugging Face hub), plus `tiny` for tests.
const std::vector<LlamaConfig>& llm_presets();
/// The preset named `name`; nullptr for none.
const LlamaConfig* find_llm_preset(std::string_view name);
/// Their names, in table order.
std::vector<std::string> llm_preset_names();

}  // namespace accel
