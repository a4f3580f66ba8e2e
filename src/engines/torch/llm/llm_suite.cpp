// The `llm` suite: items, measurements, attribution, graph replay.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/profile.hpp"
#include "core/result_keys.hpp"
#include "core/stats.hpp"
#include "engine_api/bench.hpp"
#include "engine_api/bench_ceilings.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/ops.hpp"
#include "engines/torch/backend/backend.hpp"
#include "engines/torch/llm/model.hpp"
#include "engines/torch/llm/weights.hpp"
#include "engines/torch/profiler.hpp"
#include "engines/torch/suite_item.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/timer.hpp"

namespace accel::engine {

namespace {

std::string device_type_of(const std::string& device) {
  const auto colon = device.find(':');
  return colon == std::string::npos ? device : device.substr(0, colon);
}

struct Item {
  ItemInfo info;
  bool on_cpu = false;  ///< the CPU twin
  std::string preset;
  std::string what;  ///< correctness, pp, tg, graph
  int batch = 1, prompt = 0, gen = 0;
};

std::vector<Item> build_items(const LlmOptions& o) {
  std::vector<Item> items;
  const std::string type = device_type_of(o.device);
  const std::string main_preset = o.weights_dir.empty() ? o.preset : "weights";
  auto add = [&](bool on_cpu, const std::string& preset, const std::string& what, int b, int p, int g) {
    Item it;
    it.on_cpu = on_cpu;
    it.preset = preset;
    it.what = what;
    it.batch = b;
    it.prompt = p;
    it.gen = g;
    const std::string dtype = on_cpu ? "fp32" : o.dtype;
    LlmKey key;
    key.device_type = on_cpu ? "cpu" : type;
    key.preset = preset;
    key.dtype = dtype;
    key.test = what == "pp"      ? LlmKey::Test::prefill
               : what == "tg"    ? LlmKey::Test::decode
               : what == "graph" ? LlmKey::Test::graph
                                 : LlmKey::Test::correctness;
    if (key.test != LlmKey::Test::correctness) {
      key.batch = b;
      key.prompt = p;
      key.gen = key.test == LlmKey::Test::prefill ? 0 : g;
    }
    it.info.key = key.str();
    it.info.kind = ResultKind::llm;
    it.info.name = what == "pp"            ? fmt::format("pp{}", p)
                   : what == "correctness" ? "correctness"
                                           : fmt::format("tg{}@d{}{}", g, p, what == "graph" ? " graph" : "");
    it.info.category = preset;
    it.info.dtype = dtype;
    it.info.shape = what == "correctness" ? "prompt 16, 8 new tokens" : fmt::format("batch {}", b);
    items.push_back(std::move(it));
  };
  add(false, main_preset, "correctness", 1, 16, 8);
  for (int b : o.batches) {
    for (int p : o.prompts) add(false, main_preset, "pp", b, p, 0);
    for (int p : o.prompts) {
      for (int g : o.gens) {
        add(false, main_preset, "tg", b, p, g);
        if (o.graphs && type == "cuda") add(false, main_preset, "graph", b, p, g);
      }
    }
  }
  if (type != "cpu" && o.cpu_compare) {
    const int p = o.quick ? 64 : 128, g = o.quick ? 16 : 32;
    for (bool cpu : {false, true}) {
      add(cpu, o.cpu_preset, "pp", 1, p, 0);
      add(cpu, o.cpu_preset, "tg", 1, p, g);
    }
  }
  return items;
}

std::string annotation_class(const std::string& name) {
  static const std::map<std::string, std::string> kClasses{
      {"llm::attention", "attention"}, {"llm::rope", "rotary"},        {"llm::rmsnorm", "norm"},
      {"llm::kv_cache", "copies"},     {"llm::swiglu", "elementwise"}, {"llm::embedding", "embedding"},
      {"llm::sampling", "sampling"}};
  const auto it = kClasses.find(name);
  return it == kClasses.end() ? std::string() : it->second;
}

/// A model on one device, built once per worker.
/// An item this model cannot run (not an error): the row is `skipped`.
struct SkipItem : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Loaded {
  std::unique_ptr<llm::Model> model;
  std::string description;
};

class LlmSuite final : public WorkerSuite {
 public:
  explicit LlmSuite(const json& job) : o_(resolve_llm_options(job.get<LlmOptions>())) {
    for (auto& it : build_items(o_)) items_.emplace(it.info.key, std::move(it));
    target_ = parse_device(o_.device);
    if (const std::string dir = find_kb_dir(); !dir.empty()) {
      try {
        impls_ = ImplementationTable::load(dir);
      } catch (const std::exception&) {
      }
    }
  }

  /// --sdpa-backend applies to the rows on the target device; the CPU
  /// comparison rows of a GPU run keep torch's choice (the memory-efficient
  /// and cuDNN backends have no CPU implementation).
  std::string sdpa_backend_for(const c10::Device& dev) const {
    return dev == target_ ? o_.sdpa_backend : std::string("auto");
  }

  json prepare() override {
    initialise_device(target_);
    // Set per row (see sdpa_backend_for); checked once here.
    if (const std::string why = sdpa_backend_problem(o_.sdpa_backend); !why.empty()) {
      throw std::runtime_error("--sdpa-backend: " + why);
    }
    return json::object();
  }

  Result run(const std::string& key) override {
    const auto wall0 = std::chrono::steady_clock::now();
    const auto it = items_.find(key);
    Result r =
        start_result(key, ResultKind::llm, it == items_.end() ? nullptr : &it->second.info, "no such item");
    if (it == items_.end()) return r;
    const Item& item = it->second;
    const c10::Device dev = item.on_cpu ? c10::Device(c10::kCPU) : target_;
    c10::NoGradGuard no_grad;
    return run_suite_item(
        std::move(r), dev, wall0,
        [&](Result& res) {
          try {
            run_item(res, item, dev);
          } catch (const SkipItem& e) {
            res.status = Status::skipped;
            res.reason = e.what();
          }
        },
        [&](Result&, const std::exception&, const std::string&) { release_device_memory(dev); });
  }

 private:
  void run_item(Result& r, const Item& item, const c10::Device& dev) {
    (void)select_sdpa_backend(sdpa_backend_for(dev));  // checked in prepare()
    Loaded& m = model(dev, item);
    r.evidence["model"] = m.description;
    // A checkpoint with fewer positions than the grid asks for (2048 for
    // TinyLlama or SmolLM against the default pp2048 + decode depth).
    const int64_t positions = item.what == "correctness" ? 0 : int64_t{item.prompt} + item.gen;
    const int64_t limit = std::min<int64_t>(m.model->config().max_position, 32768);
    if (positions > limit) {
      throw SkipItem(
          fmt::format("{} positions (prompt {} + {} new tokens) exceed the model's {} "
                      "(max_position_embeddings)",
                      positions, item.prompt, item.gen, limit));
    }
    // The ceilings this row is drawn against are bench rows measured
    // before the suite (run_llm), in their own process, so their buffers
    // never count in the row's peak memory.
    const auto* backend = accelerator_backend(dev);
    if (backend) backend->reset_peak_memory(dev.index());
    if (item.what == "correctness") {
      correctness(r, *m.model, dev);
    } else if (item.what == "pp") {
      prefill(r, *m.model, dev, item);
    } else if (item.what == "tg") {
      decode(r, *m.model, dev, item);
    } else {
      graph_decode(r, *m.model, dev, item);
    }
    if (backend) {
      if (auto mem = backend->memory(dev.index())) {
        r.metrics["peak_memory_bytes"] = static_cast<double>(mem->peak_allocated_bytes);
      }
    }
  }

  at::ScalarType dtype_for(bool on_cpu) const { return dtype_from_name(on_cpu ? "fp32" : o_.dtype); }

  Loaded& model(const c10::Device& dev, const Item& item) {
    const std::string id = dev.str() + "/" + item.preset;
    auto found = models_.find(id);
    if (found != models_.end()) return found->second;
    // One model at a time per device keeps memory bounded.
    for (auto i = models_.begin(); i != models_.end();) {
      i = i->first.rfind(dev.str() + "/", 0) == 0 ? models_.erase(i) : std::next(i);
    }
    const at::ScalarType dt = dtype_for(item.on_cpu);
    const llm::Attention attn =
        o_.attention == "math" || !llm::has_sdpa() ? llm::Attention::math : llm::Attention::sdpa;
    Loaded l;
    if (item.preset == "weights") {
      auto ck = llm::load_checkpoint(o_.weights_dir, dev, dt);
      l.description = ck.description;
      l.model = std::make_unique<llm::Model>(ck.config, std::move(ck.weights), attn, dev, dt);
    } else {
      const llm::LlamaConfig cfg = llm::preset(item.preset);
      l.description =
          fmt::format("{} preset, random weights, {:.3g} parameters, {}, {} attention", cfg.name,
                      cfg.parameters(), dtype_name(dt),
                      attn == llm::Attention::math      ? std::string("math")
                      : sdpa_backend_for(dev) == "auto" ? std::string("SDPA")
                                                        : "SDPA (" + o_.sdpa_backend + " backend)");
      l.model = std::make_unique<llm::Model>(cfg, llm::random_weights(cfg, dev, dt, 1234), attn, dev, dt);
    }
    return models_.emplace(id, std::move(l)).first->second;
  }

  TimerOptions timer() const {
    TimerOptions t = o_.quick ? TimerOptions::bench_quick() : TimerOptions::bench();
    t.min_samples = 3;
    t.min_sample_us = 1;  // one call (a whole prefill or decode run) per sample
    t.warmup_ms = 1;
    return t;
  }

  at::Tensor random_tokens(const llm::Model& m, const c10::Device& dev, int64_t b, int64_t t) {
    return at::randint(m.config().vocab, {b, t}, at::TensorOptions().dtype(at::kLong).device(dev));
  }

  /// The GEMM ceiling row of this device and dtype (LlmOptions::ceilings), or nullptr.
  const Result* ceiling_gemm(const c10::Device& dev, at::ScalarType dt) const {
    return find_ceiling(o_.ceilings, gemm_ceiling_key(device_type_of(dev.str()), dtype_name(dt)));
  }
  /// The best memory benchmark row of this device, or nullptr.
  const Result* ceiling_memory(const c10::Device& dev) const {
    return best_memory_ceiling(o_.ceilings, device_type_of(dev.str()));
  }

  void correctness(Result& r, const llm::Model& m, const c10::Device& dev) {
    const int64_t prompt = 16, steps = 8;
    auto generate = [&](std::vector<at::Tensor>* step_logits) {
      at::manual_seed(7);
      const at::Tensor tokens = random_tokens(m, dev, 1, prompt);
      llm::KVCache cache = llm::make_cache(m.config(), 1, prompt + steps, dev, m.dtype());
      at::Tensor logits = m.forward(tokens, 0, cache, true);
      std::vector<at::Tensor> out{tokens};
      for (int64_t i = 0; i < steps; ++i) {
        const at::Tensor next = logits.argmax(-1);  // [1, 1]
        out.push_back(next);
        logits = m.forward(next, prompt + i, cache, true);
        if (step_logits) step_logits->push_back(logits.squeeze(1));
      }
      return at::cat(out, 1);  // [1, prompt + steps]
    };
    std::vector<at::Tensor> cached;
    const at::Tensor seq1 = generate(&cached);
    const at::Tensor seq2 = generate(nullptr);
    const bool reproducible = at::equal(seq1.cpu(), seq2.cpu());
    // Full recompute over the whole sequence, no cache reuse.
    llm::KVCache fresh = llm::make_cache(m.config(), 1, prompt + steps, dev, m.dtype());
    const at::Tensor all = m.forward(seq1.narrow(1, 0, prompt + steps - 1), 0, fresh, false);  // [1, T, V]
    double worst = 0;
    for (int64_t i = 0; i < steps - 1; ++i) {
      // cached[i] are the logits after feeding token prompt+i, i.e. position prompt+i.
      const at::Tensor ref = all.select(1, prompt + i).to(at::kDouble).cpu();
      const at::Tensor got = cached[static_cast<std::size_t>(i)].squeeze(0).to(at::kDouble).cpu();
      worst = std::max(worst, (got - ref).norm().item<double>() / std::max(ref.norm().item<double>(), 1e-30));
    }
    const double tol = m.dtype() == at::kFloat ? 1e-3 : m.dtype() == at::kHalf ? 2e-2 : 6e-2;
    r.accuracy =
        Accuracy{"float64_reference", worst, tol,
                 fmt::format("cached decode vs full recompute: worst relative logit error {:.3g} over {} "
                             "positions; greedy tokens {}",
                             worst, steps - 1, reproducible ? "reproducible" : "NOT reproducible")};
    r.metrics["logit_rel_error"] = worst;
    r.evidence["greedy_reproducible"] = reproducible;
    if (!reproducible) {
      r.status = Status::mismatch;
      r.reason = "two greedy generations from the same prompt gave different tokens";
    } else if (worst > tol) {
      r.status = Status::mismatch;
      r.reason = r.accuracy->detail;
    } else {
      r.status = Status::ok;
    }
  }

  void prefill(Result& r, const llm::Model& m, const c10::Device& dev, const Item& item) {
    const at::Tensor tokens = random_tokens(m, dev, item.batch, item.prompt);
    llm::KVCache cache = llm::make_cache(m.config(), item.batch, item.prompt, dev, m.dtype());
    r.timing = time_op(
        dev, [&] { (void)m.forward(tokens, 0, cache, true); }, timer());
    const double s = r.timing->median_us * 1e-6;
    r.work.flops = m.config().forward_flops(item.prompt, 0) * item.batch;
    r.work.bytes = m.config().decode_weight_bytes(static_cast<double>(at::elementSize(m.dtype())));
    r.metrics["tokens_per_s"] = item.batch * item.prompt / s;
    r.metrics["ttft_ms"] = r.timing->median_us / 1000.0;
    r.metrics["tflops"] = r.work.flops / s / 1e12;
    if (const Result* ceiling = ceiling_gemm(dev, m.dtype()); ceiling && ceiling->metrics.at("tflops") > 0) {
      const double peak = ceiling->metrics.at("tflops");
      r.metrics["gemm_ceiling_tflops"] = peak;
      r.metrics["prefill_roofline_pct"] = 100.0 * r.metrics["tflops"] / peak;
      r.evidence["gemm_ceiling"] = {
          {"key", ceiling->key}, {"tflops", peak}, {"source", "measured in this run"}};
    } else {
      r.evidence["gemm_ceiling"] = {
          {"key", gemm_ceiling_key(device_type_of(dev.str()), dtype_name(m.dtype()))},
          {"source", "not measured in this run (no such bench row for this device and dtype, or it failed)"}};
    }
    r.status = Status::ok;
  }

  /// Decode bytes per step: the weights once, plus each sequence's K and V
  /// for its attended positions (mean over the run).
  double bytes_per_step(const llm::Model& m, const Item& item) const {
    const auto& c = m.config();
    const double elem = static_cast<double>(at::elementSize(m.dtype()));
    const double ctx = item.prompt + item.gen / 2.0;
    const double kv = 2.0 * c.layers * c.kv_heads * c.head_dim * ctx * elem * item.batch;
    return c.decode_weight_bytes(elem) + kv;
  }

  void roofline_decode(Result& r, const llm::Model& m, const c10::Device& dev, const Item& item) {
    const double steps_per_s = 1e6 * item.gen / r.timing->median_us;
    r.metrics["tokens_per_s"] = steps_per_s * item.batch;
    // Work per timed call: `gen` steps.
    const double step_bytes = bytes_per_step(m, item);
    r.work.bytes = step_bytes * item.gen;
    r.work.flops = m.config().forward_flops(1, item.prompt + item.gen / 2) * item.batch * item.gen;
    r.metrics["bytes_per_step"] = step_bytes;
    r.metrics["achieved_gbps"] = step_bytes * steps_per_s / 1e9;
    if (const Result* ceiling = ceiling_memory(dev); ceiling && ceiling->metrics.at("gbps") > 0) {
      const double bw = ceiling->metrics.at("gbps");
      r.metrics["bandwidth_ceiling_gbps"] = bw;
      r.metrics["decode_roofline_pct"] = 100.0 * r.metrics["achieved_gbps"] / bw;
      r.metrics["roofline_tokens_per_s"] = bw * 1e9 / step_bytes * item.batch;
      r.evidence["bandwidth_ceiling"] = {
          {"key", ceiling->key}, {"gbps", bw}, {"source", "best memory benchmark measured in this run"}};
    }
  }

  void decode(Result& r, const llm::Model& m, const c10::Device& dev, const Item& item) {
    const at::Tensor prompt = random_tokens(m, dev, item.batch, item.prompt);
    llm::KVCache cache = llm::make_cache(m.config(), item.batch, item.prompt + item.gen, dev, m.dtype());
    const at::Tensor first = m.forward(prompt, 0, cache, true).argmax(-1);
    auto step = [&](at::Tensor& tok, int64_t pos) { tok = m.forward(tok, pos, cache, true).argmax(-1); };
    auto run = [&] {
      at::Tensor tok = first;
      for (int g = 0; g < item.gen; ++g) step(tok, item.prompt + g);
    };
    r.timing = time_op(dev, run, timer());
    // The timing sample is a whole run of `gen` steps: report per token too.
    at::Tensor tok = first;
    const auto per_token = time_each(dev, item.gen, [&](int g) { step(tok, item.prompt + g); });
    r.metrics["token_latency_p50_ms"] = quantile(per_token, 0.5) / 1000.0;
    r.metrics["token_latency_p90_ms"] = quantile(per_token, 0.9) / 1000.0;
    roofline_decode(r, m, dev, item);

    // Where the device time goes in a few steps, and how idle the device is.
    if (!dev.is_cpu()) {
      at::Tensor t2 = first;
      int64_t p2 = item.prompt;
      attribute_steps(
          r, dev, std::min(item.gen, 4), item.gen, [&] { step(t2, p2++); }, "");
    }
    r.status = Status::ok;
  }

  /// Profiles `steps` calls of `one_step` and records where the device
  /// time goes (by class and by kernel), the kernels per step and how busy
  /// the device is against the measured step time (`r.timing` over `gen`
  /// steps). `prefix` names the metrics of a second attribution ("eager_").
  void attribute_steps(Result& r, const c10::Device& dev, int steps, int gen,
                       const std::function<void()>& one_step, const std::string& prefix) {
    const Capture cap = profile_call(dev, [&] {
      for (int g = 0; g < steps; ++g) one_step();
    });
    if (!cap.unavailable.empty()) {
      r.evidence[prefix + "attribution_unavailable"] = cap.unavailable;
      return;
    }
    const auto b = attribute_device_time(cap.events, annotation_class, impls_ ? &*impls_ : nullptr);
    json by_class = json::object();
    for (const auto& [k, v] : b.by_class_us) by_class[k] = v / steps;
    json top = json::array();
    for (std::size_t i = 0; i < std::min<std::size_t>(b.by_kernel.size(), 12); ++i) {
      const auto& k = b.by_kernel[i];
      top.push_back({{"name", k.name.substr(0, 160)},
                     {"class", k.cls},
                     {"per_step", static_cast<double>(k.count) / steps},
                     {"us_per_step", k.total_us / steps}});
    }
    const double step_us = r.timing->median_us / gen;
    const double busy = b.busy_us / steps;
    r.evidence[prefix + "device_time_per_step_us"] = by_class;
    r.evidence[prefix + "top_kernels"] = top;
    r.metrics[prefix + "kernels_per_step"] = static_cast<double>(b.kernels) / steps;
    r.metrics[prefix + "device_busy_per_step_us"] = busy;
    if (!prefix.empty()) return;  // the eager steps of a graph item: no step time of their own
    r.metrics["step_time_us"] = step_us;
    r.metrics["device_idle_fraction"] = step_us > 0 ? std::clamp(1.0 - busy / step_us, 0.0, 1.0) : 0.0;
    r.metrics["device_idle_between_kernels"] = b.idle_fraction;
    const bool launch_bound = step_us > 0 && busy / step_us < 0.6;
    r.evidence["launch_bound"] = launch_bound;
    r.evidence["bottleneck"] = fmt::format(
        "{}: the device is busy {:.0f} µs of each {:.0f} µs step ({:.0f}%), running {:.0f} kernels "
        "of {:.1f} µs on average{}",
        launch_bound ? "launch-bound" : "device-bound", busy, step_us, 100.0 * busy / step_us,
        static_cast<double>(b.kernels) / steps, b.kernel_us / std::max(b.kernels, 1),
        launch_bound ? "; the host cannot issue kernels as fast as the device runs them" : "");
  }

  void graph_decode(Result& r, const llm::Model& m, const c10::Device& dev, const Item& item) {
    const auto* backend = accelerator_backend(dev);
    auto graph = backend ? backend->make_graph(dev.index()) : nullptr;
    if (!graph) {
      r.status = Status::unavailable;
      r.reason = "this backend has no graph capture";
      return;
    }
    const int64_t warm = 3;  // capture() warms up three times on a side stream
    const at::Tensor prompt = random_tokens(m, dev, item.batch, item.prompt);
    // A cache length that is a multiple of 16: SDPA's memory-efficient
    // kernel pads its mask to one otherwise, in every layer of every step.
    const int64_t cache_len = (item.prompt + item.gen + warm + 15) / 16 * 16;
    llm::KVCache cache = llm::make_cache(m.config(), item.batch, cache_len, dev, m.dtype());
    const at::Tensor first = m.forward(prompt, 0, cache, true).argmax(-1);  // [B, 1]
    at::Tensor token = first.clone();
    at::Tensor pos = at::full({1}, item.prompt, at::TensorOptions().dtype(at::kLong).device(dev));
    auto reset = [&] {
      token.copy_(first);
      pos.fill_(item.prompt);
    };
    // Tokens from the eager static step, then from the graph: they must agree.
    reset();
    std::vector<at::Tensor> eager_tokens;
    for (int g = 0; g < item.gen; ++g) {
      m.decode_step_static(token, pos, cache);
      eager_tokens.push_back(token.clone());
    }
    reset();
    graph->capture([&] { m.decode_step_static(token, pos, cache); });
    reset();
    std::vector<at::Tensor> graph_tokens;
    for (int g = 0; g < item.gen; ++g) {
      graph->replay();
      graph_tokens.push_back(token.clone());
    }
    const bool same = at::equal(at::cat(eager_tokens, 1).cpu(), at::cat(graph_tokens, 1).cpu());
    r.timing = time_op(
        dev,
        [&] {
          reset();
          for (int g = 0; g < item.gen; ++g) graph->replay();
        },
        timer());
    roofline_decode(r, m, dev, item);
    // Device time of the replays (the profiler sees the kernels inside a
    // graph), and by class from the same step run eagerly (annotations
    // name the classes; a replay has none).
    reset();
    attribute_steps(
        r, dev, std::min(item.gen, 4), item.gen, [&] { graph->replay(); }, "");
    reset();
    attribute_steps(
        r, dev, std::min(item.gen, 4), item.gen, [&] { m.decode_step_static(token, pos, cache); }, "eager_");
    r.evidence["graph_tokens_match_eager"] = same;
    r.evidence["note"] =
        "graph replay of a static-shape decode step that attends over the whole cache with a mask";
    r.status = same ? Status::ok : Status::mismatch;
    if (!same) r.reason = "graph replay produced different tokens from the same step run eagerly";
  }

  LlmOptions o_;
  std::map<std::string, Item> items_;
  c10::Device target_ = c10::kCPU;
  std::map<std::string, Loaded> models_;
  std::optional<ImplementationTable> impls_;
};

}  // namespace

std::unique_ptr<WorkerSuite> make_llm_suite(const json& job) { return std::make_unique<LlmSuite>(job); }

std::string sdpa_backend_problem(const std::string& backend) {
  const std::string why = select_sdpa_backend(backend);
  (void)select_sdpa_backend("auto");
  return why;
}

std::string attention_problem(const std::string& attention) {
  if (attention == "sdpa" && !llm::has_sdpa()) {
    return fmt::format(
        "scaled_dot_product_attention needs torch >= 2.0 (this is torch {}); use --attention "
        "math (or auto, which picks it)",
        TORCH_VERSION);
  }
  return "";
}

LlmOptions resolve_llm_options(LlmOptions o) {
  const bool cpu = device_type_of(o.device) == "cpu";
  if (o.preset.empty()) o.preset = cpu ? (o.quick ? "tiny" : "qwen2.5-0.5b") : "llama-3.2-1b";
  if (o.cpu_preset.empty()) o.cpu_preset = o.quick ? "tiny" : "qwen2.5-0.5b";
  if (o.dtype.empty()) o.dtype = cpu ? "fp32" : "bf16";
  // llama-bench's prefill sizes (pp128/pp512/pp2048); pp2048 (and its
  // decode depth) only on an accelerator: on a CPU it alone would take
  // minutes with the default 0.5B model.
  if (o.prompts.empty()) {
    o.prompts = o.quick ? std::vector<int>{128}
                : cpu   ? std::vector<int>{128, 512}
                        : std::vector<int>{128, 512, 2048};
  }
  if (o.gens.empty()) o.gens = o.quick ? std::vector<int>{32} : std::vector<int>{128};
  if (o.batches.empty()) o.batches = {1};
  if (o.attention == "auto") o.attention = llm::has_sdpa() ? "sdpa" : "math";
  return o;
}

std::vector<ItemInfo> list_llm(const LlmOptions& options) {
  std::vector<ItemInfo> out;
  for (const auto& it : build_items(resolve_llm_options(options))) out.push_back(it.info);
  return out;
}

std::vector<std::string> llm_ceiling_keys(const LlmOptions& options) {
  const LlmOptions o = resolve_llm_options(options);
  const std::string type = device_type_of(o.device);
  std::vector<std::string> keys;
  auto add = [&](const std::string& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const auto& it : build_items(o)) {
    const std::string dev_type = it.on_cpu ? "cpu" : type;
    if (it.what == "pp") add(gemm_ceiling_key(dev_type, it.on_cpu ? "fp32" : o.dtype));
    if (it.what == "tg" || it.what == "graph") {
      for (const auto& k : memory_ceiling_keys(dev_type)) add(k);
    }
  }
  return keys;
}

std::vector<Result> run_llm(const LlmOptions& options, const RunCallbacks& callbacks) {
  LlmOptions o = resolve_llm_options(options);
  // The ceilings: bench rows the caller already has (the default run's bench
  // phase), else measured now by the bench suite; either way they are
  // returned with the rows, so the report shows every figure a row quotes.
  std::vector<std::string> missing;
  for (const auto& key : llm_ceiling_keys(o)) {
    if (!find_ceiling(o.ceilings, key)) missing.push_back(key);
  }
  std::vector<Result> measured;
  if (!missing.empty()) {
    BenchOptions b;
    b.device = o.device;
    b.quick = o.quick;
    b.cpu_twin = true;
    b.filters = missing;
    b.isolate = options.isolate;
    b.machine = options.machine;
    if (!list_benchmarks(b).empty()) measured = run_bench(b, callbacks);
    o.ceilings.insert(o.ceilings.end(), measured.begin(), measured.end());
  }
  auto results = run_torch_items("llm", o, list_llm(o), callbacks);
  results.insert(results.begin(), measured.begin(), measured.end());
  // Device rows get their speed-up over the CPU twin (same preset and test).
  const std::string type = device_type_of(o.device);
  // The CPU twin runs in fp32: match on preset and test (LlmKey::twin), not dtype.
  std::map<std::string, double> cpu_rate;  // twin -> tokens/s
  for (const auto& r : results) {
    const auto k = LlmKey::parse(r.key);
    if (k && k->device_type == "cpu" && r.device == "cpu" && r.status == Status::ok &&
        r.metrics.count("tokens_per_s")) {
      cpu_rate[k->twin()] = r.metrics.at("tokens_per_s");
    }
  }
  if (type != "cpu") {
    for (auto& r : results) {
      const auto k = LlmKey::parse(r.key);
      if (!k || k->device_type != type || r.status != Status::ok || !r.metrics.count("tokens_per_s"))
        continue;
      const auto found = cpu_rate.find(k->twin());
      if (found != cpu_rate.end() && found->second > 0)
        r.speedup = r.metrics.at("tokens_per_s") / found->second;
    }
  }
  return results;
}

}  // namespace accel::engine
