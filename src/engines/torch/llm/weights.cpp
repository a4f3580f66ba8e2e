#include "engines/torch/llm/weights.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/safetensors.hpp"
#include "platform/mapped_file.hpp"

namespace accel::engine::llm {

namespace fs = std::filesystem;

namespace {
at::ScalarType scalar_type(const std::string& dtype) {
  static const std::map<std::string, at::ScalarType> kTypes{
      {"BF16", at::kBFloat16}, {"F16", at::kHalf}, {"F32", at::kFloat}, {"F64", at::kDouble},
      {"I64", at::kLong},      {"I32", at::kInt},  {"I16", at::kShort}, {"I8", at::kChar},
      {"U8", at::kByte},       {"BOOL", at::kBool}};
  const auto it = kTypes.find(dtype);
  if (it == kTypes.end()) throw CheckpointError(fmt::format("tensor dtype {} is not supported", dtype));
  return it->second;
}

json read_json(const fs::path& p) {
  const auto text = read_file(p);
  if (!text) throw CheckpointError(fmt::format("cannot read {}", p.string()));
  try {
    return json::parse(*text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw CheckpointError(fmt::format("{} is not valid JSON: {}", p.string(), e.what()));
  }
}

struct Source {
  const platform::MappedFile* file;
  SafetensorsEntry entry;
};
}  // namespace

Checkpoint load_checkpoint(const std::string& dir, const c10::Device& device, at::ScalarType dtype) {
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw CheckpointError(fmt::format("'{}' is not a directory", dir));
  Checkpoint ck;
  try {
    ck.config = config_from_hf(read_json(root / "config.json"), root.filename().string());
  } catch (const CheckpointError&) {
    throw;
  } catch (const std::exception& e) {
    throw CheckpointError(fmt::format("{}: {}", (root / "config.json").string(), e.what()));
  }

  // Which files hold the weights.
  std::vector<fs::path> files;
  if (fs::exists(root / "model.safetensors.index.json")) {
    const json index = read_json(root / "model.safetensors.index.json");
    std::set<std::string> names;
    if (!index.contains("weight_map") || !index["weight_map"].is_object()) {
      throw CheckpointError("model.safetensors.index.json has no weight_map");
    }
    for (const auto& [k, v] : index["weight_map"].items()) names.insert(v.get<std::string>());
    for (const auto& n : names) files.push_back(root / n);
  } else {
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.path().extension() == ".safetensors") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) throw CheckpointError(fmt::format("no .safetensors files in {}", dir));

  std::vector<std::unique_ptr<platform::MappedFile>> mapped;
  std::map<std::string, Source> sources;
  for (const auto& f : files) {
    try {
      mapped.push_back(std::make_unique<platform::MappedFile>(f.string()));
    } catch (const std::exception& e) {
      throw CheckpointError(e.what());
    }
    const auto& m = *mapped.back();
    try {
      const auto header = parse_safetensors_header(m.data(), m.size(), m.size(), f.string());
      for (const auto& [name, entry] : header.tensors) sources[name] = Source{&m, entry};
    } catch (const SafetensorsError& e) {
      throw CheckpointError(e.what());
    }
  }

  const auto opts = at::TensorOptions().device(device).dtype(dtype);
  double loaded_params = 0;
  auto take = [&](const std::string& name, std::vector<int64_t> shape) -> at::Tensor {
    const auto it = sources.find(name);
    if (it == sources.end()) throw CheckpointError(fmt::format("{}: tensor '{}' is missing", dir, name));
    const auto& e = it->second.entry;
    if (e.shape != shape) {
      throw CheckpointError(fmt::format("{}: tensor '{}' has shape [{}], the config implies [{}]",
                                        it->second.file->path(), name, fmt::join(e.shape, ", "),
                                        fmt::join(shape, ", ")));
    }
    const at::Tensor view = at::from_blob(const_cast<unsigned char*>(it->second.file->data() + e.begin),
                                          e.shape, at::TensorOptions().dtype(scalar_type(e.dtype)));
    loaded_params += static_cast<double>(view.numel());
    return view.to(opts, /*non_blocking=*/false, /*copy=*/true);  // never alias the mapping
  };
  const auto& c = ck.config;
  ck.weights.embed = take("model.embed_tokens.weight", {c.vocab, c.hidden});
  ck.weights.final_norm = take("model.norm.weight", {c.hidden});
  if (sources.count("lm_head.weight")) {
    ck.weights.lm_head = take("lm_head.weight", {c.vocab, c.hidden});
  } else if (c.tie_embeddings) {
    ck.weights.lm_head = ck.weights.embed;
  } else {
    throw CheckpointError(fmt::format("{}: lm_head.weight is missing and the embeddings are not tied", dir));
  }
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    LayerWeights w;
    w.attn_norm = take(p + "input_layernorm.weight", {c.hidden});
    w.wq = take(p + "self_attn.q_proj.weight", {c.heads * c.head_dim, c.hidden});
    w.wk = take(p + "self_attn.k_proj.weight", {c.kv_heads * c.head_dim, c.hidden});
    w.wv = take(p + "self_attn.v_proj.weight", {c.kv_heads * c.head_dim, c.hidden});
    w.wo = take(p + "self_attn.o_proj.weight", {c.hidden, c.heads * c.head_dim});
    if (c.qkv_bias) {
      w.bq = take(p + "self_attn.q_proj.bias", {c.heads * c.head_dim});
      w.bk = take(p + "self_attn.k_proj.bias", {c.kv_heads * c.head_dim});
      w.bv = take(p + "self_attn.v_proj.bias", {c.kv_heads * c.head_dim});
    }
    w.mlp_norm = take(p + "post_attention_layernorm.weight", {c.hidden});
    w.w_gate = take(p + "mlp.gate_proj.weight", {c.intermediate, c.hidden});
    w.w_up = take(p + "mlp.up_proj.weight", {c.intermediate, c.hidden});
    w.w_down = take(p + "mlp.down_proj.weight", {c.hidden, c.intermediate});
    ck.weights.layers.push_back(std::move(w));
  }
  ck.description = fmt::format("{} ({} safetensors file{}, {:.3g} parameters loaded, as {})", dir,
                               files.size(), files.size() == 1 ? "" : "s", loaded_params, dtype_name(dtype));
  return ck;
}

}  // namespace accel::engine::llm
