// The HTML report's benchmarks, LLM workloads and results of other kinds.
#include "core/report/html_detail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/evidence_views.hpp"
#include "core/report/console.hpp"
#include "core/report/digest.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel::html_detail {

namespace {

/// A benchmark chart: compute (GEMM) or bandwidth (memory, transfer), the
/// figure as a bar and the ceiling it is measured against as a tick.
struct BenchPanel {
  const char* id;
  const char* title;
  const char* metric;
  const char* unit;
};

/// The panel's rows (ok items with the metric), each with its ceiling; `lo`
/// and `hi` take the range of figures and ceilings.
json bench_panel_rows(const std::vector<const Result*>& bench, const BenchPanel& p, double& lo, double& hi) {
  json rows = json::array();
  for (const Result* r : bench) {
    const auto v = metric(*r, p.metric);
    if (r->status != Status::ok || !v || !(*v > 0)) continue;
    double ceiling = 0;
    std::string source;
    if (r->roofline) {
      if (std::string(p.metric) == "tflops") {
        ceiling = r->roofline->peak_tflops;
        source = r->roofline->peak_source;
      } else if (r->category == "memory") {
        ceiling = r->roofline->bandwidth_gbps;
        source = r->roofline->bandwidth_source;
      }
    }
    lo = std::min(lo, *v);
    hi = std::max(hi, std::max(*v, ceiling));
    json row = {{"label", r->name + " " + r->dtype + " " + r->shape + " (" + r->device + ")"},
                {"group", r->category},
                {"key", r->key},
                {"value", *v},
                {"percent", r->roofline ? r->roofline->percent_of_bound : 0.0},
                {"source", source_basis(source)}};
    if (ceiling > 0) row["ceiling"] = ceiling;
    rows.push_back(row);
  }
  return rows;
}

json bench_panel_spec(const BenchPanel& p, const json& rows, const json& domain) {
  return {
      {"width", 700},
      {"height", {{"step", 20}}},
      {"title", p.title},
      {"data", {{"values", rows}}},
      {"encoding",
       {{"y",
         {{"field", "label"},
          {"type", "nominal"},
          {"title", nullptr},
          {"sort", nullptr},
          {"axis", {{"labelLimit", 300}}}}}}},
      {"layer",
       json::array({{{"mark", {{"type", "bar"}}},
                     {"encoding",
                      {{"x",
                        {{"field", "value"},
                         {"type", "quantitative"},
                         {"title", std::string(p.unit) + " (log scale)"},
                         {"scale", {{"type", "log"}, {"domain", domain}, {"nice", false}}}}},
                       {"x2", {{"field", "base"}}},
                       {"color", {{"field", "group"}, {"type", "nominal"}, {"title", "group"}}},
                       {"tooltip",
                        json::array({{{"field", "key"}},
                                     {{"field", "value"}, {"format", ".3~g"}, {"title", p.unit}},
                                     {{"field", "ceiling"}, {"format", ".3~g"}, {"title", "ceiling"}},
                                     {{"field", "source"}, {"title", "ceiling basis"}},
                                     {{"field", "percent"}, {"format", ".1f"}, {"title", "% of bound"}}})}}}},
                    {{"transform", json::array({{{"filter", "isValid(datum.ceiling)"}}})},
                     {"mark", {{"type", "tick"}, {"color", "#222"}, {"thickness", 2}}},
                     {"encoding", {{"x", {{"field", "ceiling"}, {"type", "quantitative"}}}}}}})}};
}

void bench_table(std::string& out, const std::vector<const Result*>& bench) {
  open_details(out, fmt::format("Numbers: {} benchmarks", bench.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>status</th><th>median ±IQR</th>"
      "<th>figure</th><th>% of bound</th><th>ceiling source</th></tr></thead><tbody>\n";
  for (const Result* r : bench) {
    std::string figure = "-";
    if (auto t = metric(*r, "tflops")) {
      figure = format_tflops(*t);
    } else if (auto g = metric(*r, "gbps")) {
      figure = format_gbps(*g);
    } else if (auto u = metric(*r, "us_per_op")) {
      figure = format_us(*u) + " per op";
    }
    std::string source = "-";
    if (r->roofline)
      source = r->category == "gemm" ? r->roofline->peak_source : r->roofline->bandwidth_source;
    out += "<tr><td><code>" + esc(r->key) + "</code></td><td class=\"" + status_class(*r) + "\">" +
           esc(status_label(*r)) + (r->reason.empty() ? "" : ": " + esc(r->reason)) + "</td>" +
           num_cell(timing_text(r->timing)) + num_cell(figure) +
           num_cell(r->roofline ? percent_of_bound_text(*r->roofline) : "-") + cell(source) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n";
}

}  // namespace

void bench_section(std::string& out, Page& page, const Report& report) {
  const std::vector<const Result*> bench = result_pointers(report, ResultKind::bench);
  if (bench.empty()) return;
  out += "<section id=\"bench\"><h2>Benchmarks against their ceilings</h2>\n";
  for (const BenchPanel& p :
       {BenchPanel{"bench-gemm", "GEMM TFLOP/s (bar) and the compute peak of its dtype (tick)", "tflops",
                   "TFLOP/s"},
        BenchPanel{"bench-bandwidth",
                   "Memory and host-device bandwidth GB/s (bar) and the bandwidth ceiling (tick)", "gbps",
                   "GB/s"}}) {
    double lo = 1e300, hi = 0;
    json rows = bench_panel_rows(bench, p, lo, hi);
    if (rows.empty()) continue;
    // Bars on a log scale need an explicit base: the left edge of the domain.
    const json domain = log_domain(lo, hi);
    for (auto& row : rows) row["base"] = domain[0];
    out += page.chart(p.id, bench_panel_spec(p, rows, domain), p.title);
  }
  bench_table(out, bench);
  out += "</section>\n";
}

namespace {

/// One LLM chart's rows: measured tokens/s and, where known, the roofline
/// as a second row of the same series.
struct LlmChartRows {
  json rows = json::array();
  double ylo = 1e300, yhi = 0;
  std::string x_title;
};

/// The series of one row: device, model, dtype and the fixed sweep values.
std::string llm_series(const Result& r, const LlmShape& s, bool prefill, bool x_is_batch) {
  std::string series = r.device + " " + r.category + " " + r.dtype;
  if (x_is_batch) {
    series += prefill ? fmt::format(" pp{}", s.prompt) : fmt::format(" tg{}@d{}", s.gen, s.prompt);
  } else {
    series += prefill ? fmt::format(" b{}", s.batch) : fmt::format(" b{} tg{}", s.batch, s.gen);
  }
  if (s.phase == "graph") series += " graph replay";
  return series;
}

/// Prefill: tokens/s against the prompt length; decode: tokens/s against the
/// batch (the sweep's other axis when that one has a single value).
LlmChartRows llm_chart_rows(const std::vector<const Result*>& llm, bool prefill) {
  LlmChartRows c;
  std::vector<std::pair<const Result*, LlmShape>> rows_in;
  std::set<int> batches, prompts;
  for (const Result* r : llm) {
    const LlmShape s = llm_shape(*r);
    const auto tps = metric(*r, "tokens_per_s");
    if (s.phase.empty() || (s.phase == "prefill") != prefill || r->status != Status::ok || !tps ||
        !(*tps > 0)) {
      continue;
    }
    rows_in.emplace_back(r, s);
    batches.insert(s.batch);
    prompts.insert(s.prompt);
  }
  if (rows_in.empty()) return c;
  // x: the prompt (prefill) or the batch (decode), unless only the other varies.
  bool x_is_batch = !prefill;
  if (x_is_batch && batches.size() == 1 && prompts.size() > 1) x_is_batch = false;
  if (!x_is_batch && prompts.size() == 1 && batches.size() > 1) x_is_batch = true;
  c.x_title = x_is_batch ? "batch (sequences processed together)"
                         : (prefill ? "prompt tokens" : "context depth (tokens already in the cache)");
  for (const auto& [r, s] : rows_in) {
    const double tps = *metric(*r, "tokens_per_s");
    std::optional<double> roof, pct;
    if (prefill) {
      pct = metric(*r, "prefill_roofline_pct");
      if (pct && *pct > 0) roof = tps * 100.0 / *pct;
    } else {
      pct = metric(*r, "decode_roofline_pct");
      roof = metric(*r, "roofline_tokens_per_s");
    }
    json row = {{"series", llm_series(*r, s, prefill, x_is_batch)},
                {"x", x_is_batch ? s.batch : s.prompt},
                {"key", r->key},
                {"measured", tps},
                {"measure", "measured"},
                {"tokens_per_s", tps}};
    if (pct) row["roofline_pct"] = *pct;
    if (r->speedup) row["speedup"] = *r->speedup;
    c.ylo = std::min(c.ylo, tps);
    c.yhi = std::max(c.yhi, tps);
    if (roof && *roof > 0) {
      row["roofline_tokens_per_s"] = *roof;
      json roof_row = row;
      roof_row["measure"] = "roofline";
      roof_row["tokens_per_s"] = *roof;
      c.rows.push_back(row);
      c.rows.push_back(roof_row);
      c.ylo = std::min(c.ylo, *roof);
      c.yhi = std::max(c.yhi, *roof);
    } else {
      c.rows.push_back(row);
    }
  }
  return c;
}

json llm_chart_spec(const LlmChartRows& c, bool prefill) {
  const json tooltip =
      json::array({{{"field", "key"}},
                   {{"field", "measured"}, {"format", ".4~g"}, {"title", "tokens/s"}},
                   {{"field", "roofline_tokens_per_s"}, {"format", ".4~g"}, {"title", "roofline tokens/s"}},
                   {{"field", "roofline_pct"}, {"format", ".1f"}, {"title", "% of roofline"}},
                   {{"field", "speedup"}, {"format", ".3~g"}, {"title", "speed-up vs CPU"}}});
  return {{"width", 600},
          {"height", 320},
          {"title", prefill ? "Prefill tokens/s: measured (solid) and the GEMM-ceiling roofline (dashed)"
                            : "Decode tokens/s: measured (solid) and the bandwidth roofline (dashed)"},
          {"data", {{"values", c.rows}}},
          {"mark", {{"type", "line"}, {"point", true}}},
          {"encoding",
           {{"x",
             {{"field", "x"},
              {"type", "ordinal"},
              {"sort", "ascending"},
              {"title", c.x_title},
              {"axis", {{"labelAngle", 0}}}}},
            {"y",
             {{"field", "tokens_per_s"},
              {"type", "quantitative"},
              {"title", "tokens/s (log scale)"},
              {"scale", {{"type", "log"}, {"domain", log_domain(c.ylo, c.yhi)}, {"nice", false}}}}},
            {"color", {{"field", "series"}, {"type", "nominal"}, {"title", "series"}}},
            {"strokeDash",
             {{"field", "measure"},
              {"type", "nominal"},
              {"title", nullptr},
              {"scale",
               {{"domain", json::array({"measured", "roofline"})},
                {"range", json::array({json::array({1, 0}), json::array({6, 4})})}}}}},
            {"shape",
             {{"field", "measure"},
              {"type", "nominal"},
              {"title", "line"},
              {"scale",
               {{"domain", json::array({"measured", "roofline"})},
                {"range", json::array({"circle", "triangle-up"})}}}}},
            {"tooltip", tooltip}}}};
}

void llm_table(std::string& out, const std::vector<const Result*>& llm) {
  open_details(out, fmt::format("Numbers: {} LLM rows", llm.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>status</th><th>tokens/s</th>"
      "<th>latency</th><th>roofline</th><th>speed-up</th><th>note</th></tr></thead><tbody>\n";
  for (const Result* r : llm) {
    std::string rate = "-", lat = "-", roof = "-", note;
    if (auto v = metric(*r, "tokens_per_s")) rate = sig(*v);
    if (auto v = metric(*r, "ttft_ms")) lat = "TTFT " + format_us(*v * 1000);
    if (auto v = metric(*r, "token_latency_p50_ms")) {
      lat = "p50 " + format_us(*v * 1000) + ", p90 " +
            format_us(metric(*r, "token_latency_p90_ms").value_or(0) * 1000);
    }
    if (auto v = metric(*r, "prefill_roofline_pct")) roof = fmt::format("{:.0f}% of the GEMM ceiling", *v);
    if (auto v = metric(*r, "decode_roofline_pct")) {
      roof = fmt::format("{:.0f}% of the bandwidth roofline", *v);
      if (auto t = metric(*r, "roofline_tokens_per_s")) roof += " (" + sig(*t) + " tokens/s)";
    }
    if (r->status != Status::ok) {
      note = r->reason;
    } else if (const auto bottleneck = llm_evidence(*r).bottleneck) {
      note = *bottleneck;
    } else if (r->accuracy) {
      note = r->accuracy->detail;
    }
    out += "<tr><td><code>" + esc(r->key) + "</code></td><td class=\"" + status_class(*r) + "\">" +
           esc(status_label(*r)) + "</td>" + num_cell(rate) + num_cell(lat) + cell(roof) +
           num_cell(r->speedup ? format_ratio(*r->speedup) : "-") + cell(note) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n";
}

}  // namespace

void llm_section(std::string& out, Page& page, const Report& report) {
  const std::vector<const Result*> llm = result_pointers(report, ResultKind::llm);
  if (llm.empty()) return;
  out += "<section id=\"llm\"><h2>LLM prefill and decode</h2>\n";
  // One colour per device, model, dtype and the fixed sweep values; solid
  // lines are measured, dashed ones the rooflines (the GEMM ceiling for
  // prefill, the bandwidth ceiling for decode).
  for (const bool prefill : {true, false}) {
    const LlmChartRows c = llm_chart_rows(llm, prefill);
    if (c.rows.empty()) continue;
    out += page.chart(prefill ? "llm-prefill" : "llm-decode", llm_chart_spec(c, prefill),
                      prefill ? "prefill chart" : "decode chart");
  }
  llm_table(out, llm);
  out += "</section>\n";
}

/// Results of kinds without a section of their own ("train", and any kind a
/// newer engine adds): a table with their metrics, so nothing is left out.
void other_results_section(std::string& out, const Report& report) {
  std::vector<ResultKind> kinds;
  for (const auto& r : report.results) {
    if (r.kind == ResultKind::check || r.kind == ResultKind::bench || r.kind == ResultKind::llm) continue;
    if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) kinds.push_back(r.kind);
  }
  for (const auto& kind : kinds) {
    const std::string name(to_string(kind));
    const std::string title = kind == ResultKind::train  ? "Training"
                              : kind == ResultKind::none ? "Other results"
                                                         : "Results: " + name;
    out += "<section id=\"kind-" + esc(name) + "\"><h2>" + esc(title) + "</h2>\n";
    out +=
        "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>status</th><th>median "
        "±IQR</th>"
        "<th>speed-up</th><th>% of bound</th><th>metrics</th><th>note</th></tr></thead><tbody>\n";
    for (const auto& r : report.results) {
      if (r.kind != kind) continue;
      std::string metrics;
      for (const auto& [name, value] : r.metrics)
        metrics += (metrics.empty() ? "" : ", ") + name + " " + sig(value);
      out += "<tr><td><code>" + esc(r.key) + "</code></td><td class=\"" + status_class(r) + "\">" +
             esc(status_label(r)) + "</td>" + num_cell(timing_text(r.timing)) +
             num_cell(r.speedup ? format_ratio(*r.speedup) : "-") +
             num_cell(r.roofline && r.roofline->percent_of_bound > 0
                          ? fmt::format("{:.1f}%", r.roofline->percent_of_bound)
                          : "-") +
             cell(metrics) + cell(problem_text(r)) + "</tr>\n";
    }
    out += "</tbody></table></div>\n</section>\n";
  }
}

}  // namespace accel::html_detail
