// A Llama-family decoder built from ATen ops: RMSNorm, rotary embedding,
// grouped-query attention (SDPA where the torch version has it, or an
// explicit matmul-softmax path), SwiGLU MLP, and a preallocated KV cache.
// Shapes follow Hugging Face's LlamaForCausalLM / Qwen2ForCausalLM so real
// checkpoints load (engines/torch/llm/weights.cpp). Engine-internal (torch types).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/llm_config.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine::llm {

// The shape and the presets are torch-free data (core/llm_config.hpp).
using accel::LlamaConfig;
using accel::RopeScaling;

/// A preset of core/llm_config.hpp (llm_presets()); std::invalid_argument
/// naming the presets for an unknown name.
LlamaConfig preset(const std::string& name);
std::vector<std::string> preset_names();
/// Reads a Hugging Face config.json (LlamaForCausalLM, Qwen2ForCausalLM).
/// Throws std::runtime_error naming the missing or unsupported field.
LlamaConfig config_from_hf(const json& config, const std::string& name);

struct LayerWeights {
  at::Tensor attn_norm, wq, wk, wv, wo, bq, bk, bv;  // biases undefined unless qkv_bias
  at::Tensor mlp_norm, w_gate, w_up, w_down;
  /// Fused projections, built by Model (wq/wk/wv and w_gate/w_up then become
  /// views into them, so no weight is stored twice): one GEMM for Q, K and V
  /// ([(heads + 2 kv_heads) x head_dim, hidden]) and one for gate and up
  /// ([2 intermediate, hidden]), as vLLM and llama.cpp do; fewer, larger
  /// GEMMs matter most in decode, where each is a memory-bound GEMV.
  at::Tensor wqkv, bqkv, w_gate_up;
};

struct Weights {
  at::Tensor embed;       ///< [vocab, hidden]
  at::Tensor final_norm;  ///< [hidden]
  at::Tensor lm_head;     ///< [vocab, hidden] (the embedding when tied)
  std::vector<LayerWeights> layers;
};

/// Random weights (normal, std 0.02 as HF initialises; norms at 1) on `device`,
/// reproducible for a seed on a given device (drawn on the device itself when
/// it is not the CPU).
Weights random_weights(const LlamaConfig& cfg, const c10::Device& device, at::ScalarType dtype,
                       uint64_t seed);

/// The KV cache: per layer K and V of [batch, kv_heads, max_seq, head_dim].
struct KVCache {
  std::vector<at::Tensor> k, v;
  int64_t batch = 0;
  int64_t max_seq = 0;
  double bytes() const;
};
KVCache make_cache(const LlamaConfig& cfg, int64_t batch, int64_t max_seq, const c10::Device& device,
                   at::ScalarType dtype);

enum class Attention { sdpa, math };

class Model {
 public:
  Model(LlamaConfig cfg, Weights weights, Attention attention, const c10::Device& device,
        at::ScalarType dtype);

  /// Runs `tokens` [B, T] (int64, on the device) at positions [pos, pos+T),
  /// writing their K/V into `cache`. Returns logits [B, T, vocab] in fp32,
  /// or [B, 1, vocab] for the last position when `last_only`.
  at::Tensor forward(const at::Tensor& tokens, int64_t pos, KVCache& cache, bool last_only) const;

  /// One greedy decode step with no host synchronisation and static shapes,
  /// so it can be captured in a graph: reads token [B, 1] and position
  /// `pos` (int64 [1], on the device), attends over the whole cache with a
  /// mask, writes the next token into `token` and increments `pos`.
  void decode_step_static(at::Tensor& token, at::Tensor& pos, KVCache& cache) const;

  const LlamaConfig& config() const { return cfg_; }
  Attention attention() const { return attention_; }
  at::ScalarType dtype() const { return dtype_; }

 private:
  at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& mask,
                    bool causal) const;
  at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& w) const;
  /// Q, K, V of `h` [B, T, hidden]: one fused GEMM, rotary embedding on Q
  /// and K together. Returns q [B, heads, T, D], k and v [B, kv_heads, T, D].
  /// `rotation` (T == 1 only, else undefined): the rotary embedding of the
  /// step's position as a [D, D] matrix (see rotary_matrix), applied to all
  /// heads with one small GEMM instead of four elementwise kernels.
  std::array<at::Tensor, 3> qkv(const LayerWeights& l, const at::Tensor& h, const at::Tensor& cos,
                                const at::Tensor& sin, const at::Tensor& rotation) const;
  /// The rotary embedding at one position as a matrix: for a row vector x
  /// [D], x * cos + rotate_half(x) * sin == x @ M with
  /// M = diag(cos) + P diag(sin), P the rotate_half permutation with signs
  /// (P[j + D/2][j] = -1, P[j - D/2][j] = 1). cos, sin: [1, D] rows of the
  /// tables. Built once per decode step and shared by every layer.
  at::Tensor rotary_matrix(const at::Tensor& cos, const at::Tensor& sin) const;
  at::Tensor mlp(const LayerWeights& l, const at::Tensor& x) const;

  /// x + a @ w^T. On accelerators the sum is the GEMM's epilogue
  /// (x.addmm_(a, w^T), beta = 1: one kernel instead of a GEMM and an add;
  /// `x` is updated in place and returned). On the CPU it stays a GEMM and
  /// an add: at::addmm with the residual as C was measured 30% slower for
  /// decode there (torch 1.13).
  at::Tensor residual_linear(const at::Tensor& x, const at::Tensor& a, const at::Tensor& w) const;

  LlamaConfig cfg_;
  Weights w_;
  Attention attention_;
  c10::Device device_;
  at::ScalarType dtype_;
  at::Tensor cos_, sin_;          ///< [max_position, head_dim] in `dtype_` (each half-table twice, HF layout)
  at::Tensor eye_, rotate_half_;  ///< [head_dim, head_dim] in `dtype_`: I and P of rotary_matrix
};

/// Greedy next token of `logits` [B, 1, vocab] (any floating dtype) ->
/// [B, 1] int64, the same token as logits.argmax(-1). In two stages when the
/// vocabulary splits into 128 equal chunks of >= 64 (max per chunk, then the
/// best chunk): a single-row argmax over 128k logits runs on one block (36 µs
/// of a 1.4 ms Llama-3.2-1B step on the H200, 2026-11-30).
at::Tensor greedy_token(const at::Tensor& logits);

/// Whether this torch has at::scaled_dot_product_attention (torch >= 2.0).
bool has_sdpa();

}  // namespace accel::engine::llm
