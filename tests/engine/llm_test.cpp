#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "core/safetensors.hpp"
#include "engine_api/llm.hpp"
#include "engines/torch/llm/model.hpp"
#include "engines/torch/llm/weights.hpp"
#include "engines/torch/suites.hpp"

using namespace accel;
using namespace accel::engine::llm;
namespace fs = std::filesystem;

namespace {
const c10::Device kCpu(c10::kCPU);

Model tiny_model(Weights w, const LlamaConfig& cfg) {
  return Model(cfg, std::move(w), Attention::math, kCpu, at::kFloat);
}

std::string bytes_of(const at::Tensor& t) {
  const at::Tensor c = t.contiguous().cpu();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

/// Writes `w` as a Hugging Face checkpoint (config.json + model.safetensors).
void write_checkpoint(const fs::path& dir, const LlamaConfig& cfg, const Weights& w) {
  fs::create_directories(dir);
  json config = {{"architectures", {"LlamaForCausalLM"}},
                 {"model_type", "llama"},
                 {"vocab_size", cfg.vocab},
                 {"hidden_size", cfg.hidden},
                 {"intermediate_size", cfg.intermediate},
                 {"num_hidden_layers", cfg.layers},
                 {"num_attention_heads", cfg.heads},
                 {"num_key_value_heads", cfg.kv_heads},
                 {"rope_theta", cfg.rope_theta},
                 {"rms_norm_eps", cfg.rms_eps},
                 {"tie_word_embeddings", cfg.tie_embeddings},
                 {"max_position_embeddings", cfg.max_position}};
  std::ofstream(dir / "config.json") << config.dump(2);
  std::map<std::string, std::tuple<std::string, std::vector<int64_t>, std::string>> t;
  auto put = [&](const std::string& name, const at::Tensor& x) {
    t[name] = {"F32", x.sizes().vec(), bytes_of(x)};
  };
  put("model.embed_tokens.weight", w.embed);
  put("model.norm.weight", w.final_norm);
  for (std::size_t l = 0; l < w.layers.size(); ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const auto& L = w.layers[l];
    put(p + "input_layernorm.weight", L.attn_norm);
    put(p + "self_attn.q_proj.weight", L.wq);
    put(p + "self_attn.k_proj.weight", L.wk);
    put(p + "self_attn.v_proj.weight", L.wv);
    put(p + "self_attn.o_proj.weight", L.wo);
    put(p + "post_attention_layernorm.weight", L.mlp_norm);
    put(p + "mlp.gate_proj.weight", L.w_gate);
    put(p + "mlp.up_proj.weight", L.w_up);
    put(p + "mlp.down_proj.weight", L.w_down);
  }
  std::ofstream(dir / "model.safetensors", std::ios::binary) << write_safetensors(t);
}

fs::path scratch(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("accel-llm-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

double rel(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).norm().item<double>() /
         b.to(at::kDouble).norm().item<double>();
}
}  // namespace

TEST(Llm, CachedDecodeMatchesFullRecompute) {
  c10::NoGradGuard no_grad;
  const LlamaConfig cfg = preset("tiny");
  const Model m = tiny_model(random_weights(cfg, kCpu, at::kFloat, 1), cfg);
  at::manual_seed(3);
  const at::Tensor prompt = at::randint(cfg.vocab, {2, 12}, at::TensorOptions().dtype(at::kLong));
  KVCache cache = make_cache(cfg, 2, 20, kCpu, at::kFloat);
  at::Tensor logits = m.forward(prompt, 0, cache, true);
  std::vector<at::Tensor> seq{prompt};
  std::vector<at::Tensor> step_logits;
  for (int i = 0; i < 6; ++i) {
    const at::Tensor next = logits.argmax(-1);
    seq.push_back(next);
    logits = m.forward(next, 12 + i, cache, true);
    step_logits.push_back(logits.squeeze(1));
  }
  const at::Tensor all_tokens = at::cat(seq, 1);
  KVCache fresh = make_cache(cfg, 2, 20, kCpu, at::kFloat);
  const at::Tensor full = m.forward(all_tokens, 0, fresh, false);
  for (int i = 0; i < 6; ++i) {
    EXPECT_LT(rel(step_logits[i], full.select(1, 12 + i)), 1e-5) << "step " << i;
  }
  // Chunked prefill (a second chunk after a first) agrees too.
  KVCache chunked = make_cache(cfg, 2, 20, kCpu, at::kFloat);
  (void)m.forward(all_tokens.narrow(1, 0, 8), 0, chunked, false);
  const at::Tensor rest = m.forward(all_tokens.narrow(1, 8, 10), 8, chunked, false);
  EXPECT_LT(rel(rest, full.narrow(1, 8, 10)), 1e-5);
}

TEST(Llm, StaticDecodeStepMatchesDynamic) {
  c10::NoGradGuard no_grad;
  const LlamaConfig cfg = preset("tiny");
  const Model m = tiny_model(random_weights(cfg, kCpu, at::kFloat, 2), cfg);
  const at::Tensor prompt = at::randint(cfg.vocab, {1, 10}, at::TensorOptions().dtype(at::kLong));
  KVCache a = make_cache(cfg, 1, 24, kCpu, at::kFloat), b = make_cache(cfg, 1, 24, kCpu, at::kFloat);
  const at::Tensor first = m.forward(prompt, 0, a, true).argmax(-1);
  (void)m.forward(prompt, 0, b, true);
  at::Tensor tok = first.clone();
  at::Tensor pos = at::full({1}, 10, at::TensorOptions().dtype(at::kLong));
  at::Tensor dyn = first.clone();
  for (int i = 0; i < 8; ++i) {
    m.decode_step_static(tok, pos, b);
    dyn = m.forward(dyn, 10 + i, a, true).argmax(-1);
    EXPECT_TRUE(at::equal(tok, dyn)) << "step " << i;
  }
  EXPECT_EQ(pos.item<int64_t>(), 18);
}

TEST(Llm, GreedyTokenIsTheArgmaxInOneOrTwoStages) {
  at::manual_seed(3);
  for (const int64_t vocab : {512, 128 * 100, 128 * 100 + 1}) {  // one stage, two stages, one stage
    const at::Tensor logits = at::randn({3, 1, vocab});
    EXPECT_TRUE(at::equal(greedy_token(logits), logits.argmax(-1))) << vocab;
    EXPECT_TRUE(at::equal(greedy_token(logits.to(at::kBFloat16)), logits.to(at::kBFloat16).argmax(-1)))
        << vocab;
  }
  // The winner in the last chunk, and a tie: the first index wins.
  at::Tensor logits = at::zeros({1, 1, 128 * 100});
  logits[0][0][128 * 100 - 1] = 5.0;
  EXPECT_EQ(greedy_token(logits).item<int64_t>(), 128 * 100 - 1);
  logits[0][0][7] = 5.0;
  EXPECT_EQ(greedy_token(logits).item<int64_t>(), 7);
}

TEST(Llm, PresetShapesAndCounts) {
  const auto c = preset("llama-3.2-1b");
  EXPECT_EQ(c.hidden, 2048);
  EXPECT_NEAR(c.parameters(), 1.236e9, 0.01e9);  // HF reports 1.24B
  EXPECT_NEAR(preset("llama-3.1-8b").parameters(), 8.03e9, 0.05e9);
  EXPECT_NEAR(preset("qwen2.5-0.5b").parameters(), 0.494e9, 0.01e9);
  EXPECT_THROW(preset("gpt-5"), std::invalid_argument);
  // Decode reads every weight once: 1.24e9 bf16 parameters ~ 2.47 GB.
  EXPECT_NEAR(c.decode_weight_bytes(2), 2.47e9, 0.02e9);
}

TEST(Llm, LoadsAWrittenCheckpointExactly) {
  c10::NoGradGuard no_grad;
  LlamaConfig cfg = preset("tiny");
  cfg.tie_embeddings = true;
  Weights w = random_weights(cfg, kCpu, at::kFloat, 5);
  const fs::path dir = scratch("ok");
  write_checkpoint(dir, cfg, w);
  const Checkpoint ck = load_checkpoint(dir.string(), kCpu, at::kFloat);
  EXPECT_EQ(ck.config.layers, cfg.layers);
  EXPECT_TRUE(ck.config.tie_embeddings);
  const at::Tensor tokens = at::randint(cfg.vocab, {1, 9}, at::TensorOptions().dtype(at::kLong));
  const Model a = tiny_model(w, cfg);
  const Model b = tiny_model(ck.weights, ck.config);
  KVCache ca = make_cache(cfg, 1, 9, kCpu, at::kFloat), cb = make_cache(cfg, 1, 9, kCpu, at::kFloat);
  EXPECT_TRUE(at::equal(a.forward(tokens, 0, ca, false), b.forward(tokens, 0, cb, false)));
  fs::remove_all(dir);
}

TEST(Llm, BadCheckpointsGiveClearErrors) {
  LlamaConfig cfg = preset("tiny");
  cfg.tie_embeddings = true;
  const Weights w = random_weights(cfg, kCpu, at::kFloat, 6);
  auto expect_error = [](const fs::path& dir, const std::string& fragment) {
    try {
      load_checkpoint(dir.string(), kCpu, at::kFloat);
      ADD_FAILURE() << "no error for " << dir;
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  // Truncated weights.
  const fs::path trunc = scratch("trunc");
  write_checkpoint(trunc, cfg, w);
  fs::resize_file(trunc / "model.safetensors", fs::file_size(trunc / "model.safetensors") - 100);
  expect_error(trunc, "truncated");
  // A config that does not match the tensors.
  const fs::path mism = scratch("mismatch");
  LlamaConfig wrong = cfg;
  write_checkpoint(mism, cfg, w);
  json config = json::parse(std::ifstream(mism / "config.json"));
  config["intermediate_size"] = cfg.intermediate + 8;
  std::ofstream(mism / "config.json") << config.dump();
  expect_error(mism, "has shape");
  // Not a Llama.
  config["model_type"] = "gpt2";
  config["architectures"] = {"GPT2LMHeadModel"};
  std::ofstream(mism / "config.json") << config.dump();
  expect_error(mism, "gpt2");
  // A config that names no model at all ('{}', or a wrong type).
  std::ofstream(mism / "config.json") << R"({"model_type": 7})";
  expect_error(mism, "names no model");
  // No weights at all, and no folder.
  const fs::path empty = scratch("empty");
  fs::create_directories(empty);
  std::ofstream(empty / "config.json") << R"({"model_type": "llama", "vocab_size": 8, "hidden_size": 8,
      "intermediate_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2})";
  expect_error(empty, "no .safetensors");
  expect_error(scratch("missing"), "not a directory");
  for (const auto& d : {trunc, mism, empty}) fs::remove_all(d);
}

TEST(Llm, DefaultGridHasLlamaBenchPrefillSizesOnAnAccelerator) {
  auto keys = [](const std::string& device, bool quick) {
    engine::LlmOptions o;
    o.device = device;
    o.quick = quick;
    std::vector<std::string> out;
    for (const auto& it : engine::list_llm(o)) out.push_back(it.key);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& k) {
    return std::find(v.begin(), v.end(), k) != v.end();
  };
  const auto gpu = keys("cuda:0", false);
  for (const char* k : {"llm/cuda/llama-3.2-1b/bf16/b1/pp128", "llm/cuda/llama-3.2-1b/bf16/b1/pp512",
                        "llm/cuda/llama-3.2-1b/bf16/b1/pp2048", "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d2048",
                        "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d2048/graph"}) {
    EXPECT_TRUE(has(gpu, k)) << k;
  }
  // The CPU keeps pp128/pp512 (pp2048 of the 0.5B default takes minutes there); --quick one size.
  const auto cpu = keys("cpu", false);
  EXPECT_TRUE(has(cpu, "llm/cpu/qwen2.5-0.5b/fp32/b1/pp512"));
  EXPECT_FALSE(has(cpu, "llm/cpu/qwen2.5-0.5b/fp32/b1/pp2048"));
  EXPECT_FALSE(has(keys("cuda:0", true), "llm/cuda/llama-3.2-1b/bf16/b1/pp512"));
}

TEST(Llm, RowsBeyondTheCheckpointsPositionsAreSkippedWithTheReason) {
  c10::NoGradGuard no_grad;
  LlamaConfig cfg = preset("tiny");
  cfg.max_position = 32;  // like TinyLlama's 2048 against pp2048 + tg128
  const fs::path dir = scratch("short");
  write_checkpoint(dir, cfg, random_weights(cfg, kCpu, at::kFloat, 3));
  const fs::path out = dir / "report.json";
  const std::string cmd = std::string(ACCEL_BINARY) + " --quiet llm --weights " + dir.string() +
                          " --prompt 8,32 --gen 4 --no-isolate --json " + out.string();
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << cmd << " -> " << rc;
  const json report = json::parse(std::ifstream(out));
  std::map<std::string, json> rows;
  for (const auto& r : report["results"]) rows[r["name"].get<std::string>()] = r;
  EXPECT_EQ(rows["pp32"]["status"], "ok");          // 32 positions fit
  EXPECT_EQ(rows["tg4@d8"]["status"], "ok");        // 12 fit
  EXPECT_EQ(rows["tg4@d32"]["status"], "skipped");  // 36 do not
  EXPECT_NE(rows["tg4@d32"]["reason"].get<std::string>().find("exceed the model's 32"), std::string::npos)
      << rows["tg4@d32"].dump();
  fs::remove_all(dir);
}
