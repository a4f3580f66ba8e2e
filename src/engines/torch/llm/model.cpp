#include "engines/torch/llm/model.hpp"

#include <ATen/record_function.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace accel::engine::llm {

LlamaConfig preset(const std::string& name) {
  if (const LlamaConfig* p = find_llm_preset(name)) return *p;
  throw std::invalid_argument(
      fmt::format("unknown preset '{}': choose one of {}", name, fmt::join(preset_names(), ", ")));
}

std::vector<std::string> preset_names() { return llm_preset_names(); }

LlamaConfig config_from_hf(const json& j, const std::string& name) {
  auto need = [&](const char* key) -> const json& {
    if (!j.contains(key)) throw std::runtime_error(fmt::format("config.json has no '{}'", key));
    return j.at(key);
  };
  LlamaConfig c;
  c.name = name;
  std::string arch;
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string()) {
    arch = j["architectures"][0].get<std::string>();
  }
  const std::string model_type =
      j.contains("model_type") && j["model_type"].is_string() ? j["model_type"].get<std::string>() : "";
  if (model_type.empty() && arch.empty()) {
    throw std::runtime_error(
        "config.json names no model (neither 'model_type' nor 'architectures'); accel-doctor loads Llama and "
        "Qwen2 decoders");
  }
  if (!(model_type == "llama" || model_type == "qwen2" || arch == "LlamaForCausalLM" ||
        arch == "Qwen2ForCausalLM")) {
    throw std::runtime_error(
        fmt::format("config.json describes a '{}' model ({}); accel-doctor loads Llama and Qwen2 decoders",
                    model_type.empty() ? arch : model_type, arch.empty() ? model_type : arch));
  }
  c.vocab = need("vocab_size").get<int64_t>();
  c.hidden = need("hidden_size").get<int64_t>();
  c.intermediate = need("intermediate_size").get<int64_t>();
  c.layers = need("num_hidden_layers").get<int64_t>();
  c.heads = need("num_attention_heads").get<int64_t>();
  c.kv_heads = j.value("num_key_value_heads", c.heads);
  c.head_dim =
      j.contains("head_dim") && j["head_dim"].is_number() ? j["head_dim"].get<int64_t>() : c.hidden / c.heads;
  c.rope_theta = j.value("rope_theta", 10000.0);
  c.rms_eps = j.value("rms_norm_eps", 1e-5);
  c.tie_embeddings = j.value("tie_word_embeddings", false);
  c.qkv_bias = model_type == "qwen2" || arch == "Qwen2ForCausalLM" || j.value("attention_bias", false);
  c.max_position = j.value("max_position_embeddings", int64_t{4096});
  if (j.contains("rope_scaling") && j["rope_scaling"].is_object()) {
    const auto& rs = j["rope_scaling"];
    const std::string type = rs.value("rope_type", rs.value("type", ""));
    if (type == "llama3") {
      c.rope_scaling = RopeScaling{rs.value("factor", 8.0), rs.value("low_freq_factor", 1.0),
                                   rs.value("high_freq_factor", 4.0),
                                   rs.value("original_max_position_embeddings", int64_t{8192})};
    } else if (!type.empty() && type != "default") {
      throw std::runtime_error(fmt::format("rope_scaling type '{}' is not supported", type));
    }
  }
  if (c.heads % c.kv_heads != 0)
    throw std::runtime_error("num_attention_heads is not a multiple of num_key_value_heads");
  return c;
}

Weights random_weights(const LlamaConfig& cfg, const c10::Device& device, at::ScalarType dtype,
                       uint64_t seed) {
  auto gen = at::detail::createCPUGenerator(seed);
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  // On the CPU: drawn in fp32 from a seeded generator. On a GPU: drawn there
  // (seeded through the device's default generator): a 1-8 B parameter
  // model is that many host draws and host-to-device copies otherwise. The
  // weights then differ between devices, which nothing compares (the CPU
  // speed-up uses its own run of a smaller preset on both).
  if (!device.is_cpu()) at::manual_seed(seed);
  auto normal = [&](std::vector<int64_t> shape) {
    if (!device.is_cpu()) {
      return (at::randn(shape, at::TensorOptions().dtype(at::kFloat).device(device)) * 0.02).to(dtype);
    }
    return at::normal(0.0, 0.02, shape, gen, at::TensorOptions().dtype(at::kFloat)).to(opts);
  };
  auto ones = [&](int64_t n) { return at::ones({n}, opts); };
  Weights w;
  w.embed = normal({cfg.vocab, cfg.hidden});
  w.final_norm = ones(cfg.hidden);
  w.lm_head = cfg.tie_embeddings ? w.embed : normal({cfg.vocab, cfg.hidden});
  for (int64_t l = 0; l < cfg.layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = ones(cfg.hidden);
    lw.wq = normal({cfg.heads * cfg.head_dim, cfg.hidden});
    lw.wk = normal({cfg.kv_heads * cfg.head_dim, cfg.hidden});
    lw.wv = normal({cfg.kv_heads * cfg.head_dim, cfg.hidden});
    lw.wo = normal({cfg.hidden, cfg.heads * cfg.head_dim});
    if (cfg.qkv_bias) {
      lw.bq = normal({cfg.heads * cfg.head_dim});
      lw.bk = normal({cfg.kv_heads * cfg.head_dim});
      lw.bv = normal({cfg.kv_heads * cfg.head_dim});
    }
    lw.mlp_norm = ones(cfg.hidden);
    lw.w_gate = normal({cfg.intermediate, cfg.hidden});
    lw.w_up = normal({cfg.intermediate, cfg.hidden});
    lw.w_down = normal({cfg.hidden, cfg.intermediate});
    w.layers.push_back(std::move(lw));
  }
  return w;
}

double KVCache::bytes() const {
  double b = 0;
  for (const auto& t : k) b += static_cast<double>(t.nbytes());
  for (const auto& t : v) b += static_cast<double>(t.nbytes());
  return b;
}

KVCache make_cache(const LlamaConfig& cfg, int64_t batch, int64_t max_seq, const c10::Device& device,
                   at::ScalarType dtype) {
  KVCache c;
  c.batch = batch;
  c.max_seq = max_seq;
  const auto opts = at::TensorOptions().dtype(dtype).device(device);
  for (int64_t l = 0; l < cfg.layers; ++l) {
    c.k.push_back(at::zeros({batch, cfg.kv_heads, max_seq, cfg.head_dim}, opts));
    c.v.push_back(at::zeros({batch, cfg.kv_heads, max_seq, cfg.head_dim}, opts));
  }
  return c;
}

bool has_sdpa() {
#if ACCEL_TORCH_AT_LEAST(2, 0)
  return true;
#else
  return false;
#endif
}

Model::Model(LlamaConfig cfg, Weights weights, Attention attention, const c10::Device& device,
             at::ScalarType dtype)
    : cfg_(std::move(cfg)), w_(std::move(weights)), attention_(attention), device_(device), dtype_(dtype) {
  if (attention_ == Attention::sdpa && !has_sdpa()) {
    throw std::runtime_error("scaled_dot_product_attention needs torch >= 2.0; use the math attention path");
  }
  // Rotary tables (RoFormer, Su et al. 2021; llama3 scaling as in HF
  // transformers' _compute_llama3_parameters).
  const int64_t half = cfg_.head_dim / 2;
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  at::Tensor inv_freq = 1.0 / at::pow(cfg_.rope_theta, at::arange(0, half, f64) * 2.0 / cfg_.head_dim);
  if (cfg_.rope_scaling) {
    const auto& rs = *cfg_.rope_scaling;
    const double low_wavelen = rs.original_max_position / rs.low_freq_factor;
    const double high_wavelen = rs.original_max_position / rs.high_freq_factor;
    const at::Tensor wavelen = 2.0 * 3.14159265358979323846 / inv_freq;
    at::Tensor scaled = at::where(wavelen > low_wavelen, inv_freq / rs.factor, inv_freq);
    const at::Tensor smooth = (rs.original_max_position / wavelen - rs.low_freq_factor) /
                              (rs.high_freq_factor - rs.low_freq_factor);
    const at::Tensor smoothed = (1 - smooth) * scaled / rs.factor + smooth * scaled;
    const at::Tensor medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen);
    inv_freq = at::where(medium, smoothed, scaled);
  }
  const int64_t len = std::min<int64_t>(cfg_.max_position, 32768);
  const at::Tensor freqs = at::outer(at::arange(0, len, f64), inv_freq);
  const at::Tensor emb = at::cat({freqs, freqs}, -1);  // HF: emb = cat(freqs, freqs)
  cos_ = emb.cos().to(at::TensorOptions().dtype(dtype_).device(device_));
  sin_ = emb.sin().to(at::TensorOptions().dtype(dtype_).device(device_));
  {
    const int64_t D = cfg_.head_dim;
    at::Tensor p = at::zeros({D, D}, at::TensorOptions().dtype(at::kFloat));
    for (int64_t j = 0; j < half; ++j) {
      p[j + half][j] = -1.0;  // out[j] = -x[j + D/2]
      p[j][j + half] = 1.0;   // out[j + D/2] = x[j]
    }
    rotate_half_ = p.to(at::TensorOptions().dtype(dtype_).device(device_));
    eye_ = at::eye(D, at::TensorOptions().dtype(dtype_).device(device_));
  }

  // Fused projections; the separate weights become views into them.
  const int64_t q_rows = cfg_.heads * cfg_.head_dim, kv_rows = cfg_.kv_heads * cfg_.head_dim;
  for (auto& lw : w_.layers) {
    lw.wqkv = at::cat({lw.wq, lw.wk, lw.wv}, 0);
    lw.wq = lw.wqkv.narrow(0, 0, q_rows);
    lw.wk = lw.wqkv.narrow(0, q_rows, kv_rows);
    lw.wv = lw.wqkv.narrow(0, q_rows + kv_rows, kv_rows);
    if (lw.bq.defined()) {
      lw.bqkv = at::cat({lw.bq, lw.bk, lw.bv}, 0);
      lw.bq = lw.bqkv.narrow(0, 0, q_rows);
      lw.bk = lw.bqkv.narrow(0, q_rows, kv_rows);
      lw.bv = lw.bqkv.narrow(0, q_rows + kv_rows, kv_rows);
    }
    lw.w_gate_up = at::cat({lw.w_gate, lw.w_up}, 0);
    lw.w_gate = lw.w_gate_up.narrow(0, 0, cfg_.intermediate);
    lw.w_up = lw.w_gate_up.narrow(0, cfg_.intermediate, cfg_.intermediate);
  }
}

at::Tensor Model::rms_norm(const at::Tensor& x, const at::Tensor& w) const {
  RECORD_USER_SCOPE("llm::rmsnorm");
#if ACCEL_TORCH_AT_LEAST(2, 4)
  // One fused kernel where the backend has one (CUDA since torch 2.8);
  // accumulates in fp32 like HF's LlamaRMSNorm.
  if (x.device().type() != c10::DeviceType::CPU) {
    return at::rms_norm(x, {cfg_.hidden}, w, cfg_.rms_eps);
  }
#endif
  const at::Tensor xf = x.to(at::kFloat);
  const at::Tensor var = xf.pow(2).mean({-1}, /*keepdim=*/true);
  return (xf * at::rsqrt(var + cfg_.rms_eps)).to(dtype_) * w;
}

at::Tensor Model::rotary_matrix(const at::Tensor& cos, const at::Tensor& sin) const {
  return at::addcmul(eye_ * cos, rotate_half_, sin);  // [D, D] * [1, D] broadcasts over rows
}

std::array<at::Tensor, 3> Model::qkv(const LayerWeights& l, const at::Tensor& h, const at::Tensor& cos,
                                     const at::Tensor& sin, const at::Tensor& rotation) const {
  const int64_t B = h.size(0), T = h.size(1), D = cfg_.head_dim, half = D / 2;
  const int64_t Hq = cfg_.heads, Hkv = cfg_.kv_heads;
  const at::Tensor fused = at::linear(h, l.wqkv, l.bqkv).view({B, T, Hq + 2 * Hkv, D});
  at::Tensor qk;
  {
    // HF's q * cos + rotate_half(q) * sin on Q and K at once; cos/sin [T, D]
    // broadcast over the heads.
    RECORD_USER_SCOPE("llm::rope");
    const at::Tensor x = fused.narrow(2, 0, Hq + Hkv);
    if (rotation.defined()) {
      qk = at::matmul(x, rotation);
    } else {
      const at::Tensor rotated = at::cat({x.narrow(-1, half, half).neg(), x.narrow(-1, 0, half)}, -1);
      qk = at::addcmul(x * cos.unsqueeze(1), rotated, sin.unsqueeze(1));
    }
  }
  return {qk.narrow(2, 0, Hq).transpose(1, 2), qk.narrow(2, Hq, Hkv).transpose(1, 2),
          fused.narrow(2, Hq + Hkv, Hkv).transpose(1, 2)};
}

at::Tensor Model::mlp(const LayerWeights& l, const at::Tensor& x) const {
  const at::Tensor gate_up = at::linear(x, l.w_gate_up);
  at::Tensor act;
  {
    RECORD_USER_SCOPE("llm::swiglu");
    act = at::silu(gate_up.narrow(-1, 0, cfg_.intermediate)) *
          gate_up.narrow(-1, cfg_.intermediate, cfg_.intermediate);
  }
  return act;
}

at::Tensor greedy_token(const at::Tensor& logits) {
  const int64_t V = logits.size(-1), B = logits.size(0);
  constexpr int64_t kChunks = 128;
  if (V % kChunks != 0 || V < 64 * kChunks) return logits.argmax(-1);
  const auto [values, index] = logits.reshape({B, kChunks, V / kChunks}).max(-1);  // [B, chunks]
  const at::Tensor chunk = values.argmax(-1, /*keepdim=*/true);                    // [B, 1]
  return at::add(index.gather(-1, chunk), chunk, V / kChunks);                     // index + chunk * size
}

at::Tensor Model::residual_linear(const at::Tensor& x, const at::Tensor& a, const at::Tensor& w) const {
  if (x.device().is_cpu()) return x + at::linear(a, w);
  x.view({-1, x.size(-1)}).addmm_(a.reshape({-1, a.size(-1)}), w.t());
  return x;
}

at::Tensor Model::attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const at::Tensor& mask, bool causal) const {
  RECORD_USER_SCOPE("llm::attention");
  // q [B, H, T, D]; k, v [B, KV, S, D]; mask broadcastable to [B, H, T, S] (bool: true = attend).
  const int64_t B = q.size(0), T = q.size(2), D = q.size(3);
  const int64_t group = cfg_.heads / cfg_.kv_heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  at::Tensor qq = q, kk = k, vv = v, mm = mask;
  bool grouped = false;
  if (T == 1 && group > 1) {
    // Decode: fold the query heads of a KV group into the query length, so
    // no backend needs GQA support and K/V are never copied.
    qq = q.reshape({B, cfg_.kv_heads, group, D});
    grouped = true;
  } else if (group > 1) {
    kk = k.repeat_interleave(group, 1);
    vv = v.repeat_interleave(group, 1);
  }
  at::Tensor out;
  if (attention_ == Attention::sdpa) {
#if ACCEL_TORCH_AT_LEAST(2, 0)
    out = at::scaled_dot_product_attention(qq, kk, vv,
                                           mm.defined() ? c10::optional<at::Tensor>(mm) : c10::nullopt, 0.0,
                                           causal && !mm.defined());
#endif
  } else {
    at::Tensor scores = at::matmul(qq, kk.transpose(-2, -1)).to(at::kFloat) * scale;
    if (causal && !mm.defined()) {
      const int64_t S = kk.size(2), Tq = qq.size(2);
      mm = at::ones({Tq, S}, at::TensorOptions().dtype(at::kBool).device(device_)).tril(S - Tq);
    }
    if (mm.defined() && mm.is_floating_point()) {
      scores = scores + mm;
    } else if (mm.defined()) {
      scores = scores.masked_fill(mm.logical_not(), -std::numeric_limits<float>::infinity());
    }
    out = at::matmul(at::softmax(scores, -1).to(dtype_), vv);
  }
  if (grouped) out = out.reshape({B, cfg_.heads, 1, D});
  return out;
}

at::Tensor Model::forward(const at::Tensor& tokens, int64_t pos, KVCache& cache, bool last_only) const {
  const int64_t B = tokens.size(0), T = tokens.size(1);
  if (pos + T > cache.max_seq) {
    throw std::runtime_error(
        fmt::format("KV cache of {} positions is too small for {} + {}", cache.max_seq, pos, T));
  }
  if (pos + T > cos_.size(0)) throw std::runtime_error("sequence longer than the rotary table");
  at::Tensor x;
  {
    RECORD_USER_SCOPE("llm::embedding");
    x = at::embedding(w_.embed, tokens);
  }
  const at::Tensor cos = cos_.narrow(0, pos, T), sin = sin_.narrow(0, pos, T);
  const at::Tensor rotation = T == 1 ? rotary_matrix(cos, sin) : at::Tensor();
  at::Tensor mask;
  if (T > 1 && pos > 0) {
    // Chunked prefill: token i sees positions <= pos + i.
    mask = at::ones({T, pos + T}, at::TensorOptions().dtype(at::kBool).device(device_)).tril(pos);
  }
  for (int64_t l = 0; l < cfg_.layers; ++l) {
    const LayerWeights& lw = w_.layers[l];
    const auto [q, k, v] = qkv(lw, rms_norm(x, lw.attn_norm), cos, sin, rotation);
    {
      RECORD_USER_SCOPE("llm::kv_cache");
      cache.k[l].narrow(2, pos, T).copy_(k);
      cache.v[l].narrow(2, pos, T).copy_(v);
    }
    const at::Tensor keys = cache.k[l].narrow(2, 0, pos + T);
    const at::Tensor values = cache.v[l].narrow(2, 0, pos + T);
    const at::Tensor a = attend(q, keys, values, mask, T > 1 && pos == 0);
    x = residual_linear(x, a.transpose(1, 2).reshape({B, T, cfg_.heads * cfg_.head_dim}), lw.wo);
    x = residual_linear(x, mlp(lw, rms_norm(x, lw.mlp_norm)), lw.w_down);
  }
  if (last_only) x = x.narrow(1, T - 1, 1);
  x = rms_norm(x, w_.final_norm);
  return at::linear(x, w_.lm_head).to(at::kFloat);
}

void Model::decode_step_static(at::Tensor& token, at::Tensor& pos, KVCache& cache) const {
  const int64_t B = token.size(0);
  at::Tensor x;
  {
    RECORD_USER_SCOPE("llm::embedding");
    x = at::embedding(w_.embed, token);
  }
  const at::Tensor cos = cos_.index_select(0, pos), sin = sin_.index_select(0, pos);
  const at::Tensor rotation = rotary_matrix(cos, sin);
  // Attend over the whole cache; positions after `pos` are masked. The mask
  // is additive and in the model's dtype, built once per step: a boolean
  // mask would be converted by every layer's SDPA call.
  const at::Tensor visible = at::arange(cache.max_seq, at::TensorOptions().dtype(at::kLong).device(device_))
                                 .le(pos)
                                 .view({1, 1, 1, -1});
  const at::Tensor mask = at::full({1, 1, 1, cache.max_seq}, -std::numeric_limits<double>::infinity(),
                                   at::TensorOptions().dtype(dtype_).device(device_))
                              .masked_fill_(visible, 0.0);
  for (int64_t l = 0; l < cfg_.layers; ++l) {
    const LayerWeights& lw = w_.layers[l];
    const auto [q, k, v] = qkv(lw, rms_norm(x, lw.attn_norm), cos, sin, rotation);
    {
      RECORD_USER_SCOPE("llm::kv_cache");
      cache.k[l].index_copy_(2, pos, k);
      cache.v[l].index_copy_(2, pos, v);
    }
    const at::Tensor a = attend(q, cache.k[l], cache.v[l], mask, false);
    x = residual_linear(x, a.transpose(1, 2).reshape({B, 1, cfg_.heads * cfg_.head_dim}), lw.wo);
    x = residual_linear(x, mlp(lw, rms_norm(x, lw.mlp_norm)), lw.w_down);
  }
  x = rms_norm(x, w_.final_norm);
  const at::Tensor logits = at::linear(x, w_.lm_head);
  {
    RECORD_USER_SCOPE("llm::sampling");
    token.copy_(greedy_token(logits).view({B, 1}));
    pos.add_(1);
  }
}

}  // namespace accel::engine::llm
