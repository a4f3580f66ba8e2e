// Performance rules: LLM decode and batch size (launch-bound decode, small batch). Thresholds and shared
// helpers: rules_perf_detail.hpp.
#include "core/evidence_views.hpp"
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- LLM

void rule_launch_bound(const Ctx& c, std::vector<Finding>& out) {
  const Result* worst = nullptr;
  std::optional<std::string> worst_graph;  // the key of worst's graph-replay twin
  double worst_idle = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::llm || !ok(r) || r.device == "cpu") continue;
    const auto k = LlmKey::parse(r.key);
    if (!k || k->test != LlmKey::Test::decode) continue;
    const bool flagged = llm_evidence(r).launch_bound;
    const double idle = metric(r, "device_idle_fraction");
    if (!flagged && idle < kLaunchIdle) continue;
    // Prefer the rows with a graph-replay twin (the main model, not the
    // small preset run only for the speed-up vs CPU): they show the gain.
    LlmKey graph = *k;
    graph.test = LlmKey::Test::graph;
    const bool has_graph = c.find(graph.str()) != nullptr;
    const bool worst_has_graph = worst_graph && c.find(*worst_graph) != nullptr;
    if (!worst || (has_graph && !worst_has_graph) || (has_graph == worst_has_graph && idle > worst_idle)) {
      worst = &r;
      worst_idle = idle;
      worst_graph = graph.str();
    }
  }
  if (!worst) return;
  const Result* graph = c.find(*worst_graph);
  double gain = 0;
  if (graph && ok(*graph) && metric(*worst, "tokens_per_s") > 0) {
    gain = metric(*graph, "tokens_per_s") / metric(*worst, "tokens_per_s");
  }
  std::string evidence = fmt::format("{}: {} tokens/s, device idle {} of each step", worst->key,
                                     rate(metric(*worst, "tokens_per_s"), ""), pct(100 * worst_idle));
  if (metric(*worst, "kernels_per_step") > 0) {
    evidence += fmt::format(", {:.0f} kernels per step", metric(*worst, "kernels_per_step"));
  }
  if (metric(*worst, "step_time_us") > 0) {
    evidence += fmt::format(", {} per step", rate(metric(*worst, "step_time_us"), "µs"));
  }
  if (gain > 0) {
    evidence += fmt::format("; graph replay of the same decode: {} tokens/s ({})",
                            rate(metric(*graph, "tokens_per_s"), ""), times(gain));
  }
  if (const auto bottleneck = llm_evidence(*worst).bottleneck) evidence += "; " + *bottleneck;
  // A tip when this run proved the remedy on this machine (graph replay of
  // the same decode): the device is fine, the eager code wastes it. A
  // warning when the device idles most of the step and no graph-replay
  // measurement shows the way out (backends without graphs).
  const bool warn = worst_idle >= 0.5 && gain == 0;
  std::string fix;
  if (c.platform.backend == "cuda" || c.platform.backend == "rocm") {
    fix =
        "Remove the per-kernel launch cost: torch.compile(model, mode=\"reduce-overhead\") (CUDA/HIP "
        "graphs), "
        "or capture the decode step yourself with torch.cuda.CUDAGraph and a static KV cache (Hugging Face: "
        "generate(..., cache_implementation=\"static\") with torch.compile); serve several requests per step "
        "(larger batch: same launches, more tokens); or use a serving engine with graphs (vLLM, SGLang, "
        "TensorRT-LLM)";
  } else {
    fix =
        "Batch several sequences per step (same launches, more tokens), and fuse small ops with "
        "torch.compile "
        "where this backend supports it";
  }
  out.push_back(make_finding(
      "launch_bound_decode", warn ? Severity::warning : Severity::info, 40 + 40 * worst_idle,
      fmt::format("LLM decode is launch-bound: the device idles {} of each step", pct(100 * worst_idle)),
      evidence,
      "At small batch each decode step is hundreds of tiny kernels; the host cannot launch them as fast as "
      "the "
      "device runs them, so the GPU waits on Python and the driver.",
      fix, kRefGraphs));
}

void rule_small_batch(const Ctx& c, std::vector<Finding>& out) {
  static const std::regex kBatch("/b([0-9]+)/");
  struct Point {
    int batch;
    const Result* r;
  };
  std::map<std::string, std::vector<Point>> groups;
  for (const auto& r : c.report.results) {
    if ((r.kind != ResultKind::llm && r.kind != ResultKind::train) || !ok(r)) continue;
    std::smatch m;
    if (!std::regex_search(r.key, m, kBatch)) continue;
    const std::string group = m.prefix().str() + "/b*/" + m.suffix().str();
    groups[group].push_back({std::stoi(m[1].str()), &r});
  }
  const Point *lo_best = nullptr, *hi_best = nullptr;
  double best_gain = 0;
  std::string metric_name;
  for (auto& [g, pts] : groups) {
    if (pts.size() < 2) continue;
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.batch < b.batch; });
    const Point &lo = pts.front(), &hi = pts.back();
    if (lo.batch == hi.batch) continue;
    const std::string m = lo.r->metrics.count("samples_per_s") ? "samples_per_s" : "tokens_per_s";
    const double a = metric(*lo.r, m), b = metric(*hi.r, m);
    if (a <= 0 || b <= 0) continue;
    const double gain = b / a;
    const double efficiency = gain / (static_cast<double>(hi.batch) / lo.batch);
    if (gain >= kBatchGain && efficiency >= kBatchEfficiency && gain > best_gain) {
      best_gain = gain;
      lo_best = &lo;
      hi_best = &hi;
      metric_name = m;
    }
  }
  if (!lo_best) return;
  const std::string unit = metric_name == "samples_per_s" ? "samples/s" : "tokens/s";
  out.push_back(make_finding(
      "small_batch", Severity::info, std::min(35.0, 10 + 6 * std::log2(best_gain)),
      fmt::format("Batch {} under-uses the device: batch {} gives {} the throughput", lo_best->batch,
                  hi_best->batch, times(best_gain)),
      fmt::format("{}: {} {} at batch {}, {} {} at batch {} ({:.0f}% scaling efficiency)", lo_best->r->key,
                  rate(metric(*lo_best->r, metric_name), ""), unit, lo_best->batch,
                  rate(metric(*hi_best->r, metric_name), ""), unit, hi_best->batch,
                  100 * best_gain / (static_cast<double>(hi_best->batch) / lo_best->batch)),
      "A small batch reads the same weights for fewer tokens or samples: the device is bound by launches and "
      "weight reads, not by its compute.",
      "Raise the batch size as far as memory and latency allow (serve several requests together, gradient "
      "accumulation keeps the effective batch for training); watch peak memory with "
      "torch.cuda.max_memory_allocated()",
      kRefRoofline));
}

}  // namespace accel::rules::perf
