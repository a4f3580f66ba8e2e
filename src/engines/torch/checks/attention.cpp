// Attention and the transformer pieces around it: softmax, fused SDPA,
// attention written out from matmuls (as models without SDPA do), GQA,
// embedding lookup, rotary embeddings, causal masks, head split/merge and the
// KV-cache write of a decode step. Head shapes are LLM ones (head_dim 64/128,
// 8-32 heads); sequence lengths are cut so the float64 CPU reference stays
// cheap.
#include <cmath>
#include <limits>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape, std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "attention";
  c.dtypes = std::move(dtypes);
  c.shape = std::move(shape);
  return c;
}

/// Attention work: Q K^T and P V are 2*B*H*Sq*Sk*D FLOPs each, softmax ~5 per score.
void attention_work(CheckDef& c, double B, double H, double Sq, double Sk, double D, double Hkv,
                    bool causal) {
  const double frac = causal ? 0.5 : 1.0;
  c.flops = frac * (4.0 * B * H * Sq * Sk * D + 5.0 * B * H * Sq * Sk);
  c.flops_formula = causal ? "(4*B*H*S*S*D + 5*B*H*S*S)/2 (causal half)" : "4*B*H*Sq*Sk*D + 5*B*H*Sq*Sk";
  c.bytes = [=](double e) { return (2.0 * B * H * Sq * D + 2.0 * B * Hkv * Sk * D) * e; };
  c.bytes_formula = "(2*B*H*Sq*D + 2*B*Hkv*Sk*D)*elem (q, out, k, v)";
}

/// softmax(q k^T / sqrt(d) [+ causal mask]) v from plain ATen ops.
at::Tensor explicit_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1)) * scale;
  if (causal) {
    const int64_t s = q.size(-2);
    const at::Tensor mask = at::ones({s, s}, q.options().dtype(at::kBool)).triu(1);
    scores = scores.masked_fill(mask, -std::numeric_limits<double>::infinity());
  }
  return at::matmul(at::softmax(scores, -1), v);
}

#if ACCEL_TORCH_AT_LEAST(2, 0)
constexpr bool kHasSdpa = true;
#else
constexpr bool kHasSdpa = false;
#endif

at::Tensor sdpa(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, bool causal) {
#if ACCEL_TORCH_AT_LEAST(2, 0)
  return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal);
#else
  (void)causal;
  return q + k + v;  // never called: `available` says why
#endif
}

std::string sdpa_available() { return kHasSdpa ? "" : "at::scaled_dot_product_attention needs torch >= 2.0"; }

/// The backend torch's own selection (at::_fused_sdp_choice, what
/// scaled_dot_product_attention dispatches on) picks for these inputs:
/// confirms the implementation the profiler names from kernel names.
/// Values of at::SDPBackend (ATen/native/transformers/sdp_utils_cpp.h).
json sdpa_choice(const Tensors& in, bool causal) {
#if ACCEL_TORCH_AT_LEAST(2, 5)
  const int64_t c = at::_fused_sdp_choice(in[0], in[1], in[2], {}, 0.0, causal, c10::nullopt, false);
#elif ACCEL_TORCH_AT_LEAST(2, 1)
  const int64_t c = at::_fused_sdp_choice(in[0], in[1], in[2], {}, 0.0, causal, c10::nullopt);
#else
  (void)in;
  (void)causal;
  return {{"sdpa_backend_choice", "not available: torch's SDPA selection API needs torch >= 2.1"}};
#endif
#if ACCEL_TORCH_AT_LEAST(2, 1)
  static const char* names[] = {"math", "flash attention", "memory-efficient attention", "cuDNN attention",
                                "overrideable (out-of-tree backend)"};
  return {{"sdpa_backend_choice", c >= 0 && c < 5 ? names[c] : "none (no backend can run these inputs)"}};
#endif
}

// Prefill-shaped attention: 1 sequence of 128 tokens, 16 heads of 64.
constexpr int64_t kB = 1, kH = 16, kS = 128, kD = 64;
const std::string kAttnShape = "q,k,v 1x16x128x64";
/// q, k and v of the kAttnShape rows.
Tensors attn_qkv() {
  return Tensors{randn64({kB, kH, kS, kD}), randn64({kB, kH, kS, kD}), randn64({kB, kH, kS, kD})};
}
}  // namespace

void add_attention_checks(std::vector<CheckDef>& out) {
  // ---- softmax
  {
    CheckDef c = make("softmax", "8x256x512, dim=-1");
    c.inputs = [] { return Tensors{randn64({8, 256, 512}) * 3}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::softmax(in[0], -1); };
    c.flops = 5.0 * 8 * 256 * 512;
    c.flops_formula = "5*N (max, sub, exp, sum, div)";
    c.bytes = [](double e) { return 2.0 * 8 * 256 * 512 * e; };
    c.bytes_formula = "2*N*elem";
    out.push_back(c);
  }
  {
    CheckDef c = make("log_softmax", "1024x1024, dim=-1");
    c.inputs = [] { return Tensors{randn64({1024, 1024}) * 3}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::log_softmax(in[0], -1); };
    c.flops = 5.0 * 1024 * 1024;
    c.flops_formula = "5*N";
    c.bytes = [](double e) { return 2.0 * 1024 * 1024 * e; };
    c.bytes_formula = "2*N*elem";
    out.push_back(c);
  }

  // ---- fused scaled dot-product attention (torch >= 2.0)
  for (const bool causal : {false, true}) {
    CheckDef c = make(causal ? "sdpa_causal" : "sdpa", kAttnShape + (causal ? ", causal" : ""));
    c.inputs = attn_qkv;
    c.op = [causal](const Tensors& in, const OpEnv&) { return sdpa(in[0], in[1], in[2], causal); };
    c.available = sdpa_available;
    c.evidence = [causal](const Tensors& in, const OpEnv&) { return sdpa_choice(in, causal); };
    attention_work(c, kB, kH, kS, kS, kD, kH, causal);
    out.push_back(c);
  }
  {
    // Decode step: one new token's query against a 1024-token KV cache,
    // 32 heads of 128 (Llama-7B geometry).
    static constexpr int64_t H = 32, T = 1024, D = 128;
    CheckDef c = make("sdpa_decode", "q 1x32x1x128, kv 1x32x1024x128");
    c.inputs = [] { return Tensors{randn64({1, H, 1, D}), randn64({1, H, T, D}), randn64({1, H, T, D})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return sdpa(in[0], in[1], in[2], false); };
    c.available = sdpa_available;
    c.evidence = [](const Tensors& in, const OpEnv&) { return sdpa_choice(in, false); };
    attention_work(c, 1, H, 1, T, D, H, false);
    out.push_back(c);
  }

  // ---- attention from plain ops
  {
    CheckDef c = make("attention_explicit", kAttnShape);
    c.inputs = attn_qkv;
    c.op = [](const Tensors& in, const OpEnv&) { return explicit_attention(in[0], in[1], in[2], false); };
    attention_work(c, kB, kH, kS, kS, kD, kH, false);
    c.flops_formula += " (unfused)";
    out.push_back(c);
  }
  {
    // The mask is built on every call with triu, as eager models do.
    CheckDef c = make("attention_causal_mask", kAttnShape + ", triu mask");
    c.inputs = attn_qkv;
    c.op = [](const Tensors& in, const OpEnv&) { return explicit_attention(in[0], in[1], in[2], true); };
    attention_work(c, kB, kH, kS, kS, kD, kH, false);
    c.flops_formula += " (full scores, then masked)";
    out.push_back(c);
  }
  {
    // Grouped-query attention: 32 query heads share 8 KV heads, expanded
    // with repeat_interleave (Llama-2-70B/Mistral style, HF repeat_kv).
    static constexpr int64_t Hq = 32, Hkv = 8, S = 128, D = 64;
    CheckDef c = make("gqa_repeat_interleave", "q 1x32x128x64, kv 1x8x128x64");
    c.inputs = [] {
      return Tensors{randn64({1, Hq, S, D}), randn64({1, Hkv, S, D}), randn64({1, Hkv, S, D})};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      const int64_t rep = in[0].size(1) / in[1].size(1);
      return explicit_attention(in[0], in[1].repeat_interleave(rep, 1), in[2].repeat_interleave(rep, 1),
                                true);
    };
    attention_work(c, 1, Hq, S, S, D, Hkv, false);
    c.flops_formula += " (causal, full scores)";
    out.push_back(c);
  }

  // ---- embedding and positions
  {
    static constexpr int64_t V = 8192, E = 512, B = 8, S = 512;
    CheckDef c = make("embedding", "8192x512 table, 8x512 ids");
    c.inputs = [] { return Tensors{randn64({V, E}), randint64({B, S}, V)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::embedding(in[0], in[1]); };
    c.verify = Verify::exact;  // rows copied from the table
    c.flops = 0;
    c.flops_formula = "0 (gather)";
    c.bytes = [](double e) { return 2.0 * B * S * E * e + B * S * 8.0; };
    c.bytes_formula = "2*B*S*E*elem + B*S*8";
    out.push_back(c);
  }
  static constexpr int64_t rB = 2, rH = 16, rS = 256, rD = 64;
  const std::string rope_shape = "x 2x16x256x64, cos/sin 256x64";
  static constexpr double rope_elems = static_cast<double>(rB) * rH * rS * rD;
  auto rope_tables = [](int64_t half) {
    // theta = 10000^(-2i/d), angles = position * theta (Llama), in float64;
    // the runner rounds them to the model dtype as models do.
    const auto o = at::TensorOptions().dtype(at::kDouble);
    const at::Tensor inv = at::pow(10000.0, -at::arange(0, half, o) / static_cast<double>(half));
    const at::Tensor ang = at::outer(at::arange(0, rS, o), inv);
    return std::make_pair(ang.cos(), ang.sin());
  };
  {
    // Hugging Face rotate_half form: x*cos + cat(-x2, x1)*sin.
    CheckDef c = make("rope_rotate_half", rope_shape);
    c.inputs = [rope_tables] {
      auto [cs, sn] = rope_tables(rD / 2);
      return Tensors{randn64({rB, rH, rS, rD}), at::cat({cs, cs}, -1), at::cat({sn, sn}, -1)};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      const at::Tensor& x = in[0];
      const int64_t h = x.size(-1) / 2;
      const at::Tensor rot = at::cat({-x.narrow(-1, h, h), x.narrow(-1, 0, h)}, -1);
      return x * in[1] + rot * in[2];
    };
    c.flops = 3 * rope_elems;
    c.flops_formula = "3*N";
    c.bytes = [=](double e) { return (2.0 * rope_elems + 2.0 * rS * rD) * e; };
    c.bytes_formula = "(2*N + 2*S*D)*elem";
    out.push_back(c);
  }
  {
    // Interleaved pairs (GPT-J, Meta Llama's complex form) without complex
    // dtypes: (x0, x1) -> (x0*cos - x1*sin, x0*sin + x1*cos).
    CheckDef c = make("rope_interleaved", "x 2x16x256x64, cos/sin 256x32");
    c.inputs = [rope_tables] {
      auto [cs, sn] = rope_tables(rD / 2);
      return Tensors{randn64({rB, rH, rS, rD}), cs, sn};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      const at::Tensor x = in[0].unflatten(-1, {-1, 2});
      const at::Tensor x0 = x.select(-1, 0), x1 = x.select(-1, 1);
      const at::Tensor& cs = in[1];
      const at::Tensor& sn = in[2];
      return at::stack({x0 * cs - x1 * sn, x0 * sn + x1 * cs}, -1).flatten(-2);
    };
    c.flops = 3 * rope_elems;
    c.flops_formula = "3*N";
    c.bytes = [=](double e) { return (2.0 * rope_elems + rS * rD) * e; };
    c.bytes_formula = "(2*N + S*D)*elem";
    out.push_back(c);
  }

  // ---- head reshapes and the KV cache (pure data movement, exact)
  static constexpr int64_t hB = 4, hS = 512, hH = 16, hD = 64;
  static constexpr double head_elems = static_cast<double>(hB) * hS * hH * hD;
  {
    CheckDef c = make("split_heads", "4x512x1024 -> 4x16x512x64");
    c.inputs = [] { return Tensors{randn64({hB, hS, hH * hD})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return in[0].view({hB, hS, hH, hD}).transpose(1, 2).contiguous();
    };
    c.verify = Verify::exact;
    movement(
        c, [=](double e) { return 2.0 * head_elems * e; }, "2*N*elem");
    out.push_back(c);
  }
  {
    CheckDef c = make("merge_heads", "4x16x512x64 -> 4x512x1024");
    c.inputs = [] { return Tensors{randn64({hB, hH, hS, hD})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return in[0].transpose(1, 2).contiguous().view({hB, hS, hH * hD});
    };
    c.verify = Verify::exact;
    movement(
        c, [=](double e) { return 2.0 * head_elems * e; }, "2*N*elem");
    out.push_back(c);
  }
  {
    // A decode step writes one token's keys into a static cache at its
    // position (HF StaticCache: index_copy_ along the sequence dim).
    static constexpr int64_t H = 32, T = 1024, D = 128;
    CheckDef c = make("kv_cache_index_copy", "cache 1x32x1024x128, write 1x32x1x128 at 700");
    c.inputs = [] {
      return Tensors{randn64({1, H, T, D}), randn64({1, H, 1, D}),
                     at::full({1}, 700, at::TensorOptions().dtype(at::kLong))};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      // Writes the same values on every call, so repeats are idempotent.
      return in[0].index_copy_(2, in[2], in[1]);
    };
    c.verify = Verify::exact;
    c.flops = 0;
    c.flops_formula = "0 (data movement)";
    c.bytes = [](double e) { return 2.0 * H * D * e + 8; };
    c.bytes_formula = "2*H*D*elem + 8 (one token in, one out)";
    out.push_back(c);
  }
}

}  // namespace accel::engine
