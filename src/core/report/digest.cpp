#include "core/report/digest.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/result_keys.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace accel {

namespace {

std::string versus_peak(double percent, double peak, const std::string& peak_text,
                        const std::string& source) {
  if (peak <= 0) return "";
  const std::string basis = source_basis(source);
  return fmt::format("{:.0f}% of {}{}{}", percent, peak_text, basis.empty() ? "" : " (" + basis + ")",
                     percent > 105 ? " - above the ceiling: suspect timing" : "");
}

/// The best (highest `figure`) ok result of each group, in first-seen order.
template <typename KeyFn, typename FigFn>
std::vector<const Result*> best_per(const std::vector<const Result*>& rows, KeyFn group_of, FigFn figure) {
  std::vector<std::string> order;
  std::map<std::string, const Result*> best;
  for (const Result* r : rows) {
    const auto f = figure(*r);
    if (!f) continue;
    const std::string g = group_of(*r);
    auto it = best.find(g);
    if (it == best.end()) {
      order.push_back(g);
      best[g] = r;
    } else if (*f > *figure(*it->second)) {
      it->second = r;
    }
  }
  std::vector<const Result*> out;
  for (const auto& g : order) out.push_back(best[g]);
  return out;
}

}  // namespace

std::string format_tflops(double tflops) {
  if (tflops >= 1) return format_sig3(tflops) + " TFLOP/s";
  if (tflops >= 1e-3) return format_sig3(tflops * 1e3) + " GFLOP/s";
  return format_sig3(tflops * 1e6) + " MFLOP/s";
}

std::string format_gbps(double gbps) {
  if (gbps >= 1000) return format_sig3(gbps / 1000) + " TB/s";
  if (gbps >= 1) return format_sig3(gbps) + " GB/s";
  return format_sig3(gbps * 1000) + " MB/s";
}

std::optional<double> metric(const Result& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  if (it == r.metrics.end() || !std::isfinite(it->second)) return std::nullopt;
  return it->second;
}

std::string report_device(const Report& report) {
  const auto& sel = report.context.environment.selection;
  if (sel && !sel->chosen.empty()) return sel->chosen;
  for (const auto& r : report.results) {
    if (!r.device.empty()) return r.device;
  }
  return "cpu";
}

std::vector<Result> results_of_kind(const Report& report, ResultKind kind) {
  std::vector<Result> out;
  for (const auto& r : report.results) {
    if (r.kind == kind) out.push_back(r);
  }
  return out;
}

std::string verdict_or_summary(const Report& report) {
  if (!report.verdict.empty()) return report.verdict;
  const auto checks = results_of_kind(report, ResultKind::check);
  if (checks.empty()) return "no verdict recorded";
  int ok = 0;
  for (const auto& r : checks) ok += r.status == Status::ok;
  return fmt::format("no verdict recorded: {}/{} checks ok on {}", ok, checks.size(), report_device(report));
}

bool needs_attention(const Result& r) {
  return is_failure(r.status) || (r.profile && r.profile->where == Where::cpu_fallback);
}

std::string source_basis(const std::string& source) {
  const auto colon = source.find(':');
  return colon == std::string::npos ? source : source.substr(0, colon);
}

LlmShape llm_shape(const Result& r) {
  LlmShape s;
  if (const auto k = LlmKey::parse(r.key); k && k->test != LlmKey::Test::correctness) {
    s.phase = k->test == LlmKey::Test::prefill ? "prefill"
              : k->test == LlmKey::Test::graph ? "graph"
                                               : "decode";
    s.batch = k->batch;
    s.prompt = k->prompt;
    s.gen = k->gen;
  }
  if (auto v = metric(r, "batch")) s.batch = static_cast<int>(*v);
  if (auto v = metric(r, "prompt_tokens")) s.prompt = static_cast<int>(*v);
  if (auto v = metric(r, "new_tokens")) s.gen = static_cast<int>(*v);
  return s;
}

namespace {

/// The ok benchmarks of one group ("gemm", "memory", ...).
std::vector<const Result*> ok_bench_in(const Report& report, const std::string& group) {
  std::vector<const Result*> rows;
  for (const auto& r : report.results) {
    if (r.kind == ResultKind::bench && r.status == Status::ok && r.category == group) rows.push_back(&r);
  }
  return rows;
}

/// GEMM: the fastest shape per device and dtype.
void gemm_figures(const Report& report, std::vector<KeyFigure>& out) {
  for (const Result* r : best_per(
           ok_bench_in(report, "gemm"), [](const Result& x) { return x.device + "/" + x.dtype; },
           [](const Result& x) { return metric(x, "tflops"); })) {
    const double t = *metric(*r, "tflops");
    std::string versus;
    if (r->roofline) {
      versus = versus_peak(r->roofline->percent_of_bound, r->roofline->peak_tflops,
                           format_tflops(r->roofline->peak_tflops), r->roofline->peak_source);
    }
    out.push_back({"gemm", fmt::format("{} GEMM on {} ({} {})", r->dtype, r->device, r->name, r->shape),
                   r->dtype == "int8" ? format_sig3(t) + " TOPS" : format_tflops(t), versus, r->key});
  }
}

/// Memory and transfers: the fastest of each benchmark per device; launch
/// latency.
void bandwidth_and_launch_figures(const Report& report, std::vector<KeyFigure>& out) {
  for (const std::string group : {"memory", "transfer"}) {
    for (const Result* r : best_per(
             ok_bench_in(report, group), [](const Result& x) { return x.device + "/" + x.name; },
             [](const Result& x) { return metric(x, "gbps"); })) {
      const double g = *metric(*r, "gbps");
      std::string versus;
      if (group == "memory" && r->roofline && source_basis(r->roofline->bandwidth_source) != "measured") {
        versus =
            versus_peak(100.0 * g / std::max(r->roofline->bandwidth_gbps, 1e-12), r->roofline->bandwidth_gbps,
                        format_gbps(r->roofline->bandwidth_gbps), r->roofline->bandwidth_source);
      }
      out.push_back({group,
                     fmt::format("{} {} on {} ({})", group == "memory" ? "memory" : "transfer", r->name,
                                 r->device, r->shape),
                     format_gbps(g), versus, r->key});
    }
  }
  for (const Result* r : ok_bench_in(report, "launch")) {
    if (auto us = metric(*r, "us_per_op")) {
      out.push_back(
          {"launch", fmt::format("{} on {}", r->name, r->device), format_us(*us) + " per op", "", r->key});
    }
  }
}

/// LLM rows: per device, model, dtype and phase (prefill, decode, graph
/// replay), the first row of the sweep (smallest batch and prompt: what one
/// user sees) and the fastest one when it is another row.
std::vector<const Result*> picked_llm_rows(const Report& report) {
  std::vector<std::string> groups;
  std::map<std::string, std::vector<const Result*>> picked;
  for (const auto& r : report.results) {
    if (r.kind != ResultKind::llm || r.status != Status::ok) continue;
    const LlmShape s = llm_shape(r);
    const auto tps = metric(r, "tokens_per_s");
    if (s.phase.empty() || !tps) continue;
    const std::string g = r.device + "/" + r.category + "/" + r.dtype + "/" + s.phase;
    auto& rows = picked[g];
    if (rows.empty()) {
      groups.push_back(g);
      rows.push_back(&r);
    } else if (*tps > *metric(*rows.back(), "tokens_per_s")) {
      if (rows.size() == 1) {
        rows.push_back(&r);
      } else {
        rows.back() = &r;
      }
    }
  }
  std::vector<const Result*> out;
  for (const auto& g : groups) out.insert(out.end(), picked[g].begin(), picked[g].end());
  return out;
}

void llm_figures(const Report& report, std::vector<KeyFigure>& out) {
  for (const Result* r : picked_llm_rows(report)) {
    const LlmShape s = llm_shape(*r);
    std::string versus;
    if (s.phase == "prefill") {
      if (auto pct = metric(*r, "prefill_roofline_pct")) {
        versus = fmt::format("{:.0f}% of the measured GEMM ceiling", *pct);
      }
    } else if (auto pct = metric(*r, "decode_roofline_pct")) {
      versus = fmt::format("{:.0f}% of the bandwidth roofline", *pct);
      if (auto roof = metric(*r, "roofline_tokens_per_s")) {
        versus += fmt::format(" ({} tokens/s)", format_sig3(*roof));
      }
    }
    if (r->speedup) versus += (versus.empty() ? "" : "; ") + format_ratio(*r->speedup) + " vs CPU";
    out.push_back({s.phase == "prefill" ? "llm prefill" : "llm decode",
                   fmt::format("{} {} {} on {} ({}, batch {})", r->category, r->dtype, r->name, r->device,
                               s.phase == "graph" ? "graph replay" : s.phase, s.batch),
                   format_sig3(*metric(*r, "tokens_per_s")) + " tokens/s", versus, r->key});
  }
}

}  // namespace

std::vector<KeyFigure> key_figures(const Report& report) {
  std::vector<KeyFigure> out;
  const auto checks = results_of_kind(report, ResultKind::check);
  if (!checks.empty()) {
    const std::string device = checks.front().device.empty() ? report_device(report) : checks.front().device;
    std::string line = checks_summary_line(checks, device);
    if (line.rfind("Summary: ", 0) == 0) line = line.substr(9);
    out.push_back({"checks", "operator checks", line, "", ""});
  }
  gemm_figures(report, out);
  bandwidth_and_launch_figures(report, out);
  llm_figures(report, out);
  return out;
}

}  // namespace accel
