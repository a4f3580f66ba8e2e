// The HTML report's roofline chart and table, and the speed-up vs CPU.
#include "core/report/html_detail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/report/digest.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel::html_detail {

namespace {

/// One roof: a device and the pair of ceilings its items are measured
/// against (dtypes with the same compute peak share it).
struct Roof {
  std::string device;
  std::vector<std::string> dtypes;
  double peak = 0, bw = 0;
  std::string peak_source, bw_source;
  std::string series;
};

/// The items with a roofline: those placed on the chart (with the roof each
/// is measured against) and those that cannot be (no FLOPs or no time).
struct RoofPlan {
  std::vector<Roof> roofs;
  std::vector<const Result*> placed, not_placed;
  std::vector<std::size_t> roof_of;  ///< per placed item, its roof
};

/// The legend name of a roof: its device, dtypes and ceilings.
std::string roof_series(const Roof& roof) {
  std::string dts;
  for (const auto& d : roof.dtypes) dts += (dts.empty() ? "" : "/") + d;
  if (roof.peak > 0 && roof.bw > 0) {
    return fmt::format("{} {}: {}, {}", roof.device, dts, format_tflops(roof.peak), format_gbps(roof.bw));
  }
  if (roof.peak > 0) {
    return fmt::format("{} {}: {}, bandwidth unknown", roof.device, dts, format_tflops(roof.peak));
  }
  if (roof.bw > 0)
    return fmt::format("{} {}: {}, compute peak unknown", roof.device, dts, format_gbps(roof.bw));
  return fmt::format("{} {}: no ceiling known", roof.device, dts);
}

RoofPlan plan_roofs(const Report& report) {
  RoofPlan p;
  for (const auto& r : report.results) {
    if (!r.roofline) continue;
    const Roofline& rf = *r.roofline;
    if (!(rf.intensity_flop_per_byte > 0) || !(rf.achieved_tflops > 0)) {
      p.not_placed.push_back(&r);
      continue;
    }
    const double peak = rf.peak_tflops > 0 ? rf.peak_tflops : 0,
                 bw = rf.bandwidth_gbps > 0 ? rf.bandwidth_gbps : 0;
    auto it = std::find_if(p.roofs.begin(), p.roofs.end(), [&](const Roof& x) {
      return x.device == r.device && x.peak == peak && x.bw == bw;
    });
    if (it == p.roofs.end()) {
      p.roofs.push_back(Roof{r.device, {}, peak, bw, rf.peak_source, rf.bandwidth_source, ""});
      it = p.roofs.end() - 1;
    }
    if (std::find(it->dtypes.begin(), it->dtypes.end(), r.dtype) == it->dtypes.end())
      it->dtypes.push_back(r.dtype);
    p.placed.push_back(&r);
    p.roof_of.push_back(static_cast<std::size_t>(it - p.roofs.begin()));
  }
  for (auto& roof : p.roofs) {
    std::stable_sort(roof.dtypes.begin(), roof.dtypes.end(), [](const std::string& a, const std::string& b) {
      return dtype_rank(a) < dtype_rank(b);
    });
    roof.series = roof_series(roof);
  }
  return p;
}

/// The chart's points: one per placed item.
json roofline_points(const RoofPlan& p) {
  json points = json::array();
  for (std::size_t i = 0; i < p.placed.size(); ++i) {
    const Result& r = *p.placed[i];
    const Roofline& rf = *r.roofline;
    points.push_back({{"key", r.key},
                      {"kind", r.kind},
                      {"dtype", r.dtype},
                      {"series", p.roofs[p.roof_of[i]].series},
                      {"status", status_label(r)},
                      {"intensity", rf.intensity_flop_per_byte},
                      {"achieved_tflops", rf.achieved_tflops},
                      {"bound_tflops", rf.bound_tflops},
                      {"percent_of_bound", std::round(rf.percent_of_bound * 10) / 10},
                      {"above_peak", rf.above_peak}});
  }
  return points;
}

/// The chart's extent on both (log) axes.
struct Extent {
  double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
};

/// The intensity range: the placed items and every ridge point, widened.
Extent intensity_extent(const RoofPlan& p) {
  Extent e;
  for (const Result* r : p.placed) {
    e.xmin = std::min(e.xmin, r->roofline->intensity_flop_per_byte);
    e.xmax = std::max(e.xmax, r->roofline->intensity_flop_per_byte);
    e.ymin = std::min(e.ymin, r->roofline->achieved_tflops);
    e.ymax = std::max(e.ymax, r->roofline->achieved_tflops);
  }
  for (const auto& roof : p.roofs) {
    if (roof.peak > 0 && roof.bw > 0) {
      const double ridge = roof.peak / roof.bw * 1000;
      e.xmin = std::min(e.xmin, ridge / 4);
      e.xmax = std::max(e.xmax, ridge * 4);
    }
  }
  e.xmin /= 2;
  e.xmax *= 2;
  return e;
}

/// The roofs as lines over the intensity range (each with its ridge point);
/// widens the TFLOP/s range to what they reach.
json roof_lines(const std::vector<Roof>& roofs, Extent& e) {
  json lines = json::array();
  for (const auto& roof : roofs) {
    if (!(roof.peak > 0) && !(roof.bw > 0)) continue;
    std::vector<double> xs;
    const int n = 48;
    for (int i = 0; i <= n; ++i) xs.push_back(e.xmin * std::pow(e.xmax / e.xmin, static_cast<double>(i) / n));
    if (roof.peak > 0 && roof.bw > 0) xs.push_back(roof.peak / roof.bw * 1000);
    std::sort(xs.begin(), xs.end());
    for (double x : xs) {
      double y = roof.peak > 0 ? roof.peak : 0;
      if (roof.bw > 0) y = roof.peak > 0 ? std::min(roof.peak, x * roof.bw / 1000) : x * roof.bw / 1000;
      lines.push_back({{"series", roof.series}, {"intensity", x}, {"tflops", y}});
      e.ymin = std::min(e.ymin, y);
    }
    // The chart reaches up to the highest known compute peak; a roof
    // without one (bandwidth only) runs off the top instead of stretching it.
    if (roof.peak > 0) e.ymax = std::max(e.ymax, roof.peak);
  }
  return lines;
}

/// The Vega-Lite spec: the roofs as lines, the items as points (log-log).
json roofline_spec(const json& lines, const json& points, const Extent& e) {
  const json x = {{"field", "intensity"},
                  {"type", "quantitative"},
                  {"title", "arithmetic intensity (FLOP/byte)"},
                  {"scale", {{"type", "log"}, {"domain", json::array({e.xmin, e.xmax})}, {"nice", false}}}};
  const json y_dom = log_domain(e.ymin, e.ymax);
  return {
      {"width", 860},
      {"height", 440},
      {"title", "Achieved TFLOP/s against the compute and bandwidth ceilings (log-log)"},
      {"layer",
       json::array(
           {{{"data", {{"values", lines}}},
             {"mark", {{"type", "line"}, {"strokeWidth", 2}, {"clip", true}}},
             {"encoding",
              {{"x", x},
               {"y",
                {{"field", "tflops"},
                 {"type", "quantitative"},
                 {"title", "TFLOP/s"},
                 {"scale", {{"type", "log"}, {"domain", y_dom}, {"nice", false}}}}},
               {"color",
                {{"field", "series"},
                 {"type", "nominal"},
                 {"title", "ceiling (line) and its items"},
                 {"legend", {{"orient", "bottom"}, {"columns", 2}, {"labelLimit", 520}}}}},
               {"detail", {{"field", "series"}}}}}},
            {{"data", {{"values", points}}},
             {"mark", {{"type", "point"}, {"filled", true}, {"size", 46}, {"opacity", 0.8}, {"clip", true}}},
             {"encoding",
              {{"x", x},
               {"y", {{"field", "achieved_tflops"}, {"type", "quantitative"}}},
               {"color", {{"field", "series"}, {"type", "nominal"}}},
               {"shape",
                {{"field", "kind"},
                 {"type", "nominal"},
                 {"title", "kind"},
                 {"legend", {{"orient", "right"}}}}},
               {"tooltip",
                json::array({{{"field", "key"}},
                             {{"field", "status"}},
                             {{"field", "series"}, {"title", "ceiling"}},
                             {{"field", "intensity"}, {"format", ".3~g"}, {"title", "FLOP/byte"}},
                             {{"field", "achieved_tflops"}, {"format", ".3~g"}, {"title", "TFLOP/s"}},
                             {{"field", "bound_tflops"}, {"format", ".3~g"}, {"title", "bound TFLOP/s"}},
                             {{"field", "percent_of_bound"}, {"title", "% of bound"}},
                             {{"field", "above_peak"}, {"title", "above the ceiling"}}})}}}}})},
      {"resolve", {{"scale", {{"color", "shared"}}}}}};
}

void ceilings_table(std::string& out, const std::vector<Roof>& roofs) {
  out +=
      "<table class=\"data ceilings\"><thead><tr><th>ceiling</th><th>compute peak</th><th>source</th>"
      "<th>bandwidth</th><th>source</th><th>ridge point</th></tr></thead><tbody>\n";
  for (const auto& roof : roofs) {
    out += "<tr>" + cell(roof.series) + num_cell(roof.peak > 0 ? format_tflops(roof.peak) : "unknown") +
           cell(roof.peak_source) + num_cell(roof.bw > 0 ? format_gbps(roof.bw) : "unknown") +
           cell(roof.bw_source) +
           num_cell(roof.peak > 0 && roof.bw > 0 ? sig(roof.peak / roof.bw * 1000) + " FLOP/byte" : "-") +
           "</tr>\n";
  }
  out += "</tbody></table>\n";
}

void placed_table(std::string& out, const std::vector<const Result*>& placed) {
  open_details(out, fmt::format("Numbers: {} items on the chart", placed.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>device</th><th>FLOP/byte</th>"
      "<th>achieved</th><th>bound</th><th>% of bound</th><th>GB/s</th></tr></thead><tbody>\n";
  for (const Result* r : placed) {
    const Roofline& rf = *r->roofline;
    out += "<tr><td><code>" + esc(r->key) + "</code></td>" + cell(r->device) +
           num_cell(sig(rf.intensity_flop_per_byte)) + num_cell(format_tflops(rf.achieved_tflops)) +
           num_cell(rf.bound_tflops > 0 ? format_tflops(rf.bound_tflops) : "-") +
           num_cell(percent_of_bound_text(rf)) + num_cell(format_gbps(rf.achieved_gbps)) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n";
}

void not_placed_table(std::string& out, const std::vector<const Result*>& not_placed) {
  open_details(
      out, fmt::format("Not on the chart: {} items without FLOPs (copies, fills, views) or without a time",
                       not_placed.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>device</th><th>achieved</th>"
      "<th>bandwidth ceiling</th><th>% of bound</th></tr></thead><tbody>\n";
  for (const Result* r : not_placed) {
    const Roofline& rf = *r->roofline;
    out += "<tr><td><code>" + esc(r->key) + "</code></td>" + cell(r->device) +
           num_cell(rf.achieved_gbps > 0 ? format_gbps(rf.achieved_gbps) : "-") +
           num_cell(rf.bandwidth_gbps > 0
                        ? format_gbps(rf.bandwidth_gbps) + " (" + source_basis(rf.bandwidth_source) + ")"
                        : "unknown") +
           num_cell(percent_of_bound_text(rf)) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n";
}

}  // namespace

void roofline_section(std::string& out, Page& page, const Report& report) {
  const RoofPlan plan = plan_roofs(report);
  out += "<section id=\"roofline\"><h2>Roofline</h2>\n";
  if (plan.placed.empty()) {
    out += "<p class=\"empty\">No item has both FLOPs and a time, so none can be placed on a roofline.</p>\n";
  } else {
    Extent extent = intensity_extent(plan);
    const json lines = roof_lines(plan.roofs, extent);
    out += page.chart("roofline", roofline_spec(lines, roofline_points(plan), extent), "roofline chart");
    ceilings_table(out, plan.roofs);
    placed_table(out, plan.placed);
  }
  if (!plan.not_placed.empty()) not_placed_table(out, plan.not_placed);
  out += "</section>\n";
}

void speedup_section(std::string& out, Page& page, const Report& report) {
  json rows = json::array();
  std::vector<const Result*> with;
  for (const auto& r : report.results) {
    if (!r.speedup || !(*r.speedup > 0) || !std::isfinite(*r.speedup)) continue;
    with.push_back(&r);
    rows.push_back({{"group", std::string(to_string(r.kind)) + " " + r.category},
                    {"key", r.key},
                    {"speedup", *r.speedup},
                    {"status", status_label(r)},
                    {"device_us", r.timing ? r.timing->median_us : 0.0},
                    {"cpu_us", r.cpu_timing ? r.cpu_timing->median_us : 0.0}});
  }
  out += "<section id=\"speedup\"><h2>Speed-up vs CPU</h2>\n";
  if (with.empty()) {
    out += "<p class=\"empty\">No speed-ups: " +
           std::string(report_device(report) == "cpu" ? "this run measured the CPU itself."
                                                      : "no item was also timed on the CPU.") +
           "</p>\n</section>\n";
    return;
  }
  double lo = 1e300, hi = 0;
  for (const Result* r : with) {
    lo = std::min(lo, *r->speedup);
    hi = std::max(hi, *r->speedup);
  }
  lo = std::min(lo, 1.0);
  hi = std::max(hi, 1.0);
  std::set<std::string> groups;
  for (const auto& r : rows) groups.insert(r["group"].get<std::string>());
  const json domain = log_domain(lo, hi);
  const json x_scale = {{"type", "log"}, {"domain", domain}, {"nice", false}};
  for (auto& row : rows) row["base"] = domain[0];
  json spec = {
      {"width", 760},
      {"height", {{"step", 22}}},
      {"title", "Device time vs CPU time of the same item (bar: median of the group; ticks: each item)"},
      {"data", {{"values", rows}}},
      {"encoding", {{"y", {{"field", "group"}, {"type", "nominal"}, {"title", nullptr}, {"sort", "-x"}}}}},
      {"layer",
       json::array(
           {{{"mark", {{"type", "bar"}, {"color", "#9ecae1"}}},
             {"encoding",
              {{"x",
                {{"aggregate", "median"},
                 {"field", "speedup"},
                 {"type", "quantitative"},
                 {"title", "speed-up vs CPU (x, log scale)"},
                 {"scale", x_scale}}},
               {"x2", {{"aggregate", "min"}, {"field", "base"}}}}}},
            {{"mark", {{"type", "tick"}, {"color", "#08519c"}, {"thickness", 2}}},
             {"encoding",
              {{"x", {{"field", "speedup"}, {"type", "quantitative"}}},
               {"tooltip", json::array({{{"field", "key"}},
                                        {{"field", "speedup"}, {"format", ".3~g"}, {"title", "speed-up (x)"}},
                                        {{"field", "device_us"}, {"format", ".4~g"}, {"title", "device µs"}},
                                        {{"field", "cpu_us"}, {"format", ".4~g"}, {"title", "CPU µs"}},
                                        {{"field", "status"}}})}}}},
            {{"mark", {{"type", "rule"}, {"color", "#d62728"}, {"strokeDash", json::array({4, 3})}}},
             {"data", {{"values", json::array({{{"one", 1}}})}}},
             {"encoding", {{"x", {{"field", "one"}, {"type", "quantitative"}}}, {"y", nullptr}}}}})}};
  out += page.chart("speedup", spec, "speed-up vs CPU chart");
  out += "<p class=\"hint\">Left of the dashed line (1x) the device is slower than the CPU.</p>\n";
  open_details(out, fmt::format("Numbers: {} items timed on both", with.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>device median</th><th>CPU "
      "median</th>"
      "<th>speed-up</th></tr></thead><tbody>\n";
  std::vector<const Result*> sorted = with;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Result* a, const Result* b) { return *a->speedup < *b->speedup; });
  for (const Result* r : sorted) {
    out += "<tr><td><code>" + esc(r->key) + "</code></td>" + num_cell(timing_text(r->timing)) +
           num_cell(timing_text(r->cpu_timing)) + num_cell(format_ratio(*r->speedup)) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n</section>\n";
}

}  // namespace accel::html_detail
