#include "core/llm_config.hpp"

namespace accel {

double LlamaConfig::parameters() const {
  const double attn = static_cast<double>(hidden) * heads * head_dim * 2 +    // wq, wo
                      static_cast<double>(hidden) * kv_heads * head_dim * 2;  // wk, wv
  const double mlp = 3.0 * static_cast<double>(hidden) * intermediate;
  const double per_layer = attn + mlp + 2.0 * hidden;
  const double embed = static_cast<double>(vocab) * hidden;
  return per_layer * layers + embed * (tie_embeddings ? 1 : 2) + hidden;
}

double LlamaConfig::decode_weight_bytes(double elem_bytes) const {
  const double attn = static_cast<double>(hidden) * heads * head_dim * 2 +
                      static_cast<double>(hidden) * kv_heads * head_dim * 2;
  const double mlp = 3.0 * static_cast<double>(hidden) * intermediate;
  const double per_layer = attn + mlp + 2.0 * hidden;
  const double lm_head = static_cast<double>(vocab) * hidden;
  return (per_layer * layers + lm_head + hidden) * elem_bytes;
}

double LlamaConfig::forward_flops(int64_t tokens, int64_t context) const {
  const double matrix = static_cast<double>(hidden) * heads * head_dim * 2 +
                        static_cast<double>(hidden) * kv_heads * head_dim * 2 +
                        3.0 * static_cast<double>(hidden) * intermediate;
  const double per_token = 2.0 * (matrix * layers + static_cast<double>(vocab) * hidden);
  // Causal attention: token i attends to context + i + 1 positions.
  const double attended = static_cast<double>(tokens) * context + tokens * (tokens + 1) / 2.0;
  const double attention = 4.0 * heads * head_dim * attended * layers;
  return per_token * tokens + attention;
}

// Shapes from each model's config.json on the Hugging Face hub.
const std::vector<LlamaConfig>& llm_presets() {
  // One row per preset, in LlamaConfig's field order: name, vocab, hidden,
  // intermediate, layers, heads, kv_heads, head_dim, rope_theta, rms_eps,
  // tie_embeddings, qkv_bias, max_position, rope_scaling.
  static const std::vector<LlamaConfig> presets = {
      {"tiny", 512, 128, 352, 2, 4, 2, 32, 10000.0, 1e-5, true, false, 4096, std::nullopt},
      {"qwen2.5-0.5b", 151936, 896, 4864, 24, 14, 2, 64, 1000000.0, 1e-6, true, true, 32768, std::nullopt},
      {"llama-3.2-1b", 128256, 2048, 8192, 16, 32, 8, 64, 500000.0, 1e-5, true, false, 131072,
       RopeScaling{32.0, 1.0, 4.0, 8192}},
      {"llama-3.2-3b", 128256, 3072, 8192, 28, 24, 8, 128, 500000.0, 1e-5, true, false, 131072,
       RopeScaling{32.0, 1.0, 4.0, 8192}},
      {"llama-3.1-8b", 128256, 4096, 14336, 32, 32, 8, 128, 500000.0, 1e-5, false, false, 131072,
       RopeScaling{8.0, 1.0, 4.0, 8192}},
  };
  return presets;
}

const LlamaConfig* find_llm_preset(std::string_view name) {
  for (const auto& p : llm_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> llm_preset_names() {
  std::vector<std::string> names;
  for (const auto& p : llm_presets()) names.push_back(p.name);
  return names;
}

}  // namespace accel
