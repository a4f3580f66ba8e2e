#include "core/report/html.hpp"

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
#include "core/report/web_assets.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel {

namespace {

// ------------------------------------------------------------------ helpers

std::string esc(const std::string& s) { return html_escape(s); }

std::string status_class(const Result& r) {
  if (r.profile && r.profile->where == "cpu_fallback" && r.status == Status::ok) return "st-fallback";
  return "st-" + std::string(to_string(r.status));
}

std::string status_label(const Result& r) {
  if (r.profile && r.profile->where == "cpu_fallback" && r.status == Status::ok) return "ok, CPU fallback";
  return std::string(to_string(r.status));
}

std::string timing_text(const std::optional<Timing>& t) {
  if (!t || t->median_us <= 0) return "-";
  const double rel = 100.0 * t->iqr_us / t->median_us;
  return fmt::format("{} ±{:.0f}%{}", format_us(t->median_us), rel, t->noisy ? " (noisy)" : "");
}

std::string where_text(const Result& r) {
  if (!r.profile) return "-";
  const std::string& w = r.profile->where;
  if (w == "device_kernels") return fmt::format("device kernels ({})", r.profile->kernel_count);
  if (w == "cpu_fallback") return "CPU fallback";
  if (w == "no_device_work") return "no device work";
  if (w == "profiler_blind") return "profiler blind";
  if (w == "backend_kernels") return "on the device (backend's account)";
  return w;
}

/// A reference as a link when it is a URL, else as text.
std::string reference_html(const std::string& ref) {
  if (ref.rfind("https://", 0) == 0 || ref.rfind("http://", 0) == 0) {
    return "<a href=\"" + esc(ref) + "\" rel=\"noreferrer\">" + esc(ref) + "</a>";
  }
  return esc(ref);
}

std::string problem_text(const Result& r) {
  if (r.profile && r.profile->where == "cpu_fallback" && r.status == Status::ok) {
    return "ran on the CPU: " + r.profile->detail;
  }
  if (r.error && !r.error->message.empty()) return r.error->message;
  if (!r.reason.empty()) return r.reason;
  return "";
}

/// Sorts dtypes the way people read them: floating point widest first, then integers.
int dtype_rank(const std::string& d) {
  static const std::vector<std::string> kOrder{"fp64",  "fp32",  "tf32",  "bf16", "fp16",  "fp8",
                                               "int64", "int32", "int16", "int8", "uint8", "bool"};
  const auto it = std::find(kOrder.begin(), kOrder.end(), d);
  return it == kOrder.end() ? static_cast<int>(kOrder.size()) : static_cast<int>(it - kOrder.begin());
}

/// Worst first: the status class that colours a matrix cell.
int severity_of(const Result& r) {
  switch (r.status) {
    case Status::crashed:
    case Status::hung:
      return 0;
    case Status::error:
    case Status::off_device:
    case Status::mismatch:
      return 1;
    default:
      break;
  }
  if (r.profile && r.profile->where == "cpu_fallback") return 2;
  if (r.status == Status::unavailable) return 3;
  if (r.status == Status::skipped) return 4;
  return 5;
}

std::string cell(const std::string& s) { return "<td>" + esc(s) + "</td>"; }
std::string num_cell(const std::string& s) { return "<td class=\"num\">" + esc(s) + "</td>"; }

std::string sig(double v) { return format_sig3(v); }

/// A log-scale domain around [lo, hi] with some margin (never empty or <= 0).
json log_domain(double lo, double hi) {
  if (!(lo > 0)) lo = hi > 0 ? hi : 1;
  if (!(hi > 0)) hi = lo;
  return json::array({lo / 2, hi * 2});
}

// ------------------------------------------------------------------ the page

class Page {
 public:
  /// A chart container with its spec island right after it.
  std::string chart(const std::string& id, json spec, const std::string& label) {
    ++charts_;
    spec["config"] = chart_config();
    return fmt::format(
        "<div class=\"chart\" id=\"chart-{0}\" data-spec=\"spec-{0}\" role=\"img\" aria-label=\"{1}\">"
        "</div>\n<script type=\"application/json\" id=\"spec-{0}\" class=\"chart-spec\">{2}</script>\n",
        id, esc(label), json_for_script(spec));
  }
  int charts() const { return charts_; }

 private:
  static json chart_config() {
    return json{{"font", "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"},
                {"axis", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"gridColor", "#e6e6e6"}}},
                {"legend", {{"labelFontSize", 11}, {"titleFontSize", 12}, {"labelLimit", 440}}},
                {"view", {{"stroke", "#ccc"}}}};
  }
  int charts_ = 0;
};

void open_details(std::string& out, const std::string& summary) {
  out += "<details class=\"numbers\"><summary>" + esc(summary) + "</summary>\n";
}

// ------------------------------------------------------------------ header, verdict, findings

void header(std::string& out, const Report& report) {
  const auto& c = report.context;
  out += "<header><h1>accel-doctor report</h1><p class=\"meta\">";
  std::vector<std::string> parts;
  parts.push_back("accel-doctor " + esc(c.tool.version.empty() ? "?" : c.tool.version) +
                  (c.tool.commit.empty() ? "" : " (" + esc(c.tool.commit) + ")"));
  if (!c.command.empty()) parts.push_back("command <code>" + esc(c.command) + "</code>");
  parts.push_back("device <code>" + esc(report_device(report)) + "</code>");
  if (!c.started_at.empty()) {
    parts.push_back("run " + esc(c.started_at) + (c.finished_at.empty() ? "" : " to " + esc(c.finished_at)));
  }
  if (!c.environment.host.hostname.empty()) parts.push_back("host " + esc(c.environment.host.hostname));
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? " · " : "") + parts[i];
  out += "</p>";
  if (!c.argv.empty()) {
    std::string argv;
    for (const auto& a : c.argv) argv += (argv.empty() ? "" : " ") + a;
    out += "<p class=\"meta\">argv: <code>" + esc(argv) + "</code></p>";
  }
  out += "</header>\n";
}

void verdict_and_findings(std::string& out, const Report& report) {
  // As the rules engine ranked them.
  const auto& findings = report.findings;
  std::string worst = "none";
  for (const auto& f : findings) {
    if (f.severity == "critical") {
      worst = "critical";
      break;
    }
    if (f.severity == "warning") worst = "warning";
    if (f.severity == "info" && worst == "none") worst = "info";
  }
  bool failed = false;
  for (const auto& r : report.results) failed = failed || is_failure(r.status);
  if (worst == "none" && failed) worst = "warning";
  out += "<section id=\"verdict\" class=\"verdict sev-" + worst +
         "\"><h2>Verdict</h2><p class=\"verdict-text\">" + esc(verdict_or_summary(report)) +
         "</p></section>\n";
  out += fmt::format("<section id=\"findings\"><h2>Findings ({})</h2>\n", findings.size());
  if (findings.empty()) {
    out += "<p class=\"empty\">No findings.</p>\n";
  } else {
    out += "<ol class=\"findings\">\n";
    for (const auto& f : findings) {
      const std::string sev = f.severity.empty() ? "note" : f.severity;
      out += "<li class=\"finding sev-" + esc(sev) +
             "\"><div class=\"finding-head\"><span class=\"badge sev-" + esc(sev) + "\">" + esc(sev) +
             "</span> <strong>" + esc(f.title) + "</strong>" +
             (f.id.empty() ? "" : " <code class=\"fid\">" + esc(f.id) + "</code>") + "</div><dl>";
      if (!f.evidence.empty()) out += "<dt>evidence</dt><dd>" + esc(f.evidence) + "</dd>";
      if (!f.why.empty()) out += "<dt>why it matters</dt><dd>" + esc(f.why) + "</dd>";
      if (!f.fix.empty()) out += "<dt>fix</dt><dd>" + esc(f.fix) + "</dd>";
      if (!f.reference.empty()) out += "<dt>see</dt><dd>" + reference_html(f.reference) + "</dd>";
      out += "</dl></li>\n";
    }
    out += "</ol>\n";
  }
  out += "</section>\n";

  const auto figures = key_figures(report);
  if (!figures.empty()) {
    out += "<section id=\"key-numbers\"><h2>Key numbers</h2>\n";
    for (const auto& k : figures) {
      if (k.group == "checks") out += "<p class=\"summary\">Operator checks: " + esc(k.value) + "</p>\n";
    }
    out +=
        "<table class=\"data "
        "key-numbers\"><thead><tr><th>what</th><th>measured</th><th>against</th></tr></thead>"
        "<tbody>\n";
    for (const auto& k : figures) {
      if (k.group == "checks") continue;
      out += "<tr><td>" + esc(k.label) +
             (k.key.empty() ? "" : "<br><code class=\"key\">" + esc(k.key) + "</code>") + "</td>" +
             num_cell(k.value) + cell(k.versus.empty() ? "-" : k.versus) + "</tr>\n";
    }
    out += "</tbody></table></section>\n";
  }
}

// ------------------------------------------------------------------ operator matrix

void problem_list(std::string& out, const std::vector<const Result*>& rows) {
  out += "<ul class=\"problems\">\n";
  for (const Result* r : rows) {
    out += "<li class=\"" + status_class(*r) + "\"><span class=\"badge " + status_class(*r) + "\">" +
           esc(status_label(*r)) + "</span> <code>" + esc(r->key) + "</code> on " + esc(r->device);
    const std::string text = problem_text(*r);
    if (!text.empty()) out += "<div class=\"msg\">" + esc(text) + "</div>";
    if (r->error) {
      if (!r->reason.empty() && r->reason != r->error->message && r->error->message != text) {
        out += "<div><b>message:</b> " + esc(r->error->message) + "</div>";
      }
      if (!r->error->cause.empty()) out += "<div><b>cause:</b> " + esc(r->error->cause) + "</div>";
      if (!r->error->fix.empty()) out += "<div><b>fix:</b> " + esc(r->error->fix) + "</div>";
      if (!r->error->reference.empty())
        out += "<div><b>see:</b> " + reference_html(r->error->reference) + "</div>";
    }
    for (const auto& w : r->warnings) out += "<div><b>warning:</b> " + esc(w) + "</div>";
    out += "</li>\n";
  }
  out += "</ul>\n";
}

void checks_section(std::string& out, const Report& report) {
  std::vector<const Result*> checks;
  for (const auto& r : report.results) {
    if (r.kind == "check") checks.push_back(&r);
  }
  if (checks.empty()) return;
  std::vector<std::string> categories, dtypes;
  for (const Result* r : checks) {
    if (std::find(categories.begin(), categories.end(), r->category) == categories.end()) {
      categories.push_back(r->category);
    }
    if (std::find(dtypes.begin(), dtypes.end(), r->dtype) == dtypes.end()) dtypes.push_back(r->dtype);
  }
  std::stable_sort(dtypes.begin(), dtypes.end(),
                   [](const std::string& a, const std::string& b) { return dtype_rank(a) < dtype_rank(b); });

  out += "<section id=\"checks\"><h2>Operator checks</h2>\n";
  out += "<p class=\"summary\">" +
         esc(checks_summary_line(
             [&] {
               std::vector<Result> v;
               for (const Result* r : checks) v.push_back(*r);
               return v;
             }(),
             checks.front()->device)) +
         "</p>\n";
  out +=
      "<p class=\"hint\">Each cell is one category and dtype; each dot one check (hover for its name and "
      "status). Click a cell's problems to read the error, its cause and the fix.</p>\n";
  out += "<div class=\"scroll\"><table class=\"matrix\"><thead><tr><th>category</th>";
  for (const auto& d : dtypes) out += "<th>" + esc(d) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& cat : categories) {
    out += "<tr><th scope=\"row\">" + esc(cat) + "</th>";
    for (const auto& d : dtypes) {
      std::vector<const Result*> in;
      for (const Result* r : checks) {
        if (r->category == cat && r->dtype == d) in.push_back(r);
      }
      if (in.empty()) {
        out += "<td class=\"cell none\"></td>";
        continue;
      }
      int ok = 0, worst = 5;
      const Result* worst_r = in.front();
      std::vector<const Result*> problems;
      std::string title = fmt::format("{} {}: {} check{}", cat, d, in.size(), in.size() == 1 ? "" : "s");
      for (const Result* r : in) {
        ok += r->status == Status::ok && !(r->profile && r->profile->where == "cpu_fallback");
        if (severity_of(*r) < worst) {
          worst = severity_of(*r);
          worst_r = r;
        }
        if (severity_of(*r) <= 3) {
          problems.push_back(r);
          title += "\n" + r->name + ": " + status_label(*r) +
                   (problem_text(*r).empty() ? "" : " - " + problem_text(*r));
        }
      }
      out += "<td class=\"cell " + (worst == 5 ? std::string("st-ok") : status_class(*worst_r)) +
             "\" title=\"" + esc(title) + "\"><div class=\"cnt\">" + fmt::format("{}/{}", ok, in.size()) +
             "</div><div class=\"dots\">";
      for (const Result* r : in) {
        out += "<span class=\"dot " + status_class(*r) + "\" title=\"" +
               esc(r->name + " " + r->dtype + ": " + status_label(*r) +
                   (r->timing ? ", " + format_us(r->timing->median_us) : "") +
                   (r->speedup ? ", " + format_ratio(*r->speedup) + " vs CPU" : "")) +
               "\"></span>";
      }
      out += "</div>";
      if (!problems.empty()) {
        int failing = 0;
        for (const Result* r : problems) failing += severity_of(*r) <= 2;
        const int missing = static_cast<int>(problems.size()) - failing;
        std::string what;
        if (failing) what = fmt::format("{} failing", failing);
        if (missing) what += fmt::format("{}{} unavailable", what.empty() ? "" : ", ", missing);
        out += "<details class=\"why" + std::string(failing ? "" : " soft") + "\"><summary>" + what +
               "</summary>";
        problem_list(out, problems);
        out += "</details>";
      }
      out += "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table></div>\n";
  out +=
      "<p class=\"legend\"><span class=\"dot st-ok\"></span> ok <span class=\"dot st-fallback\"></span> CPU "
      "fallback "
      "<span class=\"dot st-unavailable\"></span> unavailable <span class=\"dot st-skipped\"></span> skipped "
      "<span class=\"dot st-mismatch\"></span> mismatch / error / off device <span class=\"dot "
      "st-crashed\"></span> "
      "crashed / hung</p>\n";

  std::vector<const Result*> failing, unavailable;
  for (const Result* r : checks) {
    if (needs_attention(*r)) failing.push_back(r);
    if (r->status == Status::unavailable) unavailable.push_back(r);
  }
  out += fmt::format("<h3>Checks that need attention ({})</h3>\n", failing.size());
  if (failing.empty()) {
    out += "<p class=\"empty\">None: every check ran where it should and gave the right result.</p>\n";
  } else {
    // A long list stays folded: the matrix above already points at each one.
    out += fmt::format(
        "<details{}><summary>{} check{} failed, ran on the CPU, or gave a wrong result</summary>\n",
        failing.size() <= 10 ? " open" : "", failing.size(), failing.size() == 1 ? "" : "s");
    problem_list(out, failing);
    out += "</details>\n";
  }
  if (!unavailable.empty()) {
    out += fmt::format("<details><summary>Not in this torch build ({} unavailable)</summary>\n",
                       unavailable.size());
    problem_list(out, unavailable);
    out += "</details>\n";
  }
  open_details(out, fmt::format("All {} checks", checks.size()));
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>shape</th><th>status</th>"
      "<th>ran</th><th>device median ±IQR</th><th>CPU median ±IQR</th><th>speed-up</th><th>% of bound</th>"
      "<th>accuracy</th><th>note</th></tr></thead><tbody>\n";
  for (const Result* r : checks) {
    out += "<tr><td><code>" + esc(r->key) + "</code></td>" + cell(r->shape) + "<td class=\"" +
           status_class(*r) + "\">" + esc(status_label(*r)) + "</td>" + cell(where_text(*r)) +
           num_cell(timing_text(r->timing)) + num_cell(timing_text(r->cpu_timing)) +
           num_cell(r->speedup ? format_ratio(*r->speedup) : "-") +
           num_cell(r->roofline && r->roofline->percent_of_bound > 0
                        ? fmt::format("{:.0f}%{}", r->roofline->percent_of_bound,
                                      r->roofline->above_peak ? " !" : "")
                        : "-") +
           cell(r->accuracy ? r->accuracy->detail : "-") + cell(problem_text(*r)) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n</section>\n";
}

// ------------------------------------------------------------------ roofline

/// One roof: a device and the pair of ceilings its items are measured
/// against (dtypes with the same compute peak share it).
struct Roof {
  std::string device;
  std::vector<std::string> dtypes;
  double peak = 0, bw = 0;
  std::string peak_source, bw_source;
  std::string series;
};

void roofline_section(std::string& out, Page& page, const Report& report) {
  std::vector<Roof> roofs;
  std::vector<const Result*> placed, not_placed;
  std::vector<std::size_t> roof_of;
  for (const auto& r : report.results) {
    if (!r.roofline) continue;
    const Roofline& rf = *r.roofline;
    if (!(rf.intensity_flop_per_byte > 0) || !(rf.achieved_tflops > 0)) {
      not_placed.push_back(&r);
      continue;
    }
    const double peak = rf.peak_tflops > 0 ? rf.peak_tflops : 0,
                 bw = rf.bandwidth_gbps > 0 ? rf.bandwidth_gbps : 0;
    auto it = std::find_if(roofs.begin(), roofs.end(), [&](const Roof& x) {
      return x.device == r.device && x.peak == peak && x.bw == bw;
    });
    if (it == roofs.end()) {
      roofs.push_back(Roof{r.device, {}, peak, bw, rf.peak_source, rf.bandwidth_source, ""});
      it = roofs.end() - 1;
    }
    if (std::find(it->dtypes.begin(), it->dtypes.end(), r.dtype) == it->dtypes.end())
      it->dtypes.push_back(r.dtype);
    placed.push_back(&r);
    roof_of.push_back(static_cast<std::size_t>(it - roofs.begin()));
  }
  for (auto& roof : roofs) {
    std::stable_sort(roof.dtypes.begin(), roof.dtypes.end(), [](const std::string& a, const std::string& b) {
      return dtype_rank(a) < dtype_rank(b);
    });
    std::string dts;
    for (const auto& d : roof.dtypes) dts += (dts.empty() ? "" : "/") + d;
    if (roof.peak > 0 && roof.bw > 0) {
      roof.series =
          fmt::format("{} {}: {}, {}", roof.device, dts, format_tflops(roof.peak), format_gbps(roof.bw));
    } else if (roof.peak > 0) {
      roof.series = fmt::format("{} {}: {}, bandwidth unknown", roof.device, dts, format_tflops(roof.peak));
    } else if (roof.bw > 0) {
      roof.series = fmt::format("{} {}: {}, compute peak unknown", roof.device, dts, format_gbps(roof.bw));
    } else {
      roof.series = fmt::format("{} {}: no ceiling known", roof.device, dts);
    }
  }
  json points = json::array();
  for (std::size_t i = 0; i < placed.size(); ++i) {
    const Result& r = *placed[i];
    const Roofline& rf = *r.roofline;
    points.push_back({{"key", r.key},
                      {"kind", r.kind},
                      {"dtype", r.dtype},
                      {"series", roofs[roof_of[i]].series},
                      {"status", status_label(r)},
                      {"intensity", rf.intensity_flop_per_byte},
                      {"achieved_tflops", rf.achieved_tflops},
                      {"bound_tflops", rf.bound_tflops},
                      {"percent_of_bound", std::round(rf.percent_of_bound * 10) / 10},
                      {"above_peak", rf.above_peak}});
  }
  out += "<section id=\"roofline\"><h2>Roofline</h2>\n";
  if (placed.empty()) {
    out += "<p class=\"empty\">No item has both FLOPs and a time, so none can be placed on a roofline.</p>\n";
  } else {
    double xmin = 1e300, xmax = 0, ymin = 1e300, ymax = 0;
    for (const Result* r : placed) {
      xmin = std::min(xmin, r->roofline->intensity_flop_per_byte);
      xmax = std::max(xmax, r->roofline->intensity_flop_per_byte);
      ymin = std::min(ymin, r->roofline->achieved_tflops);
      ymax = std::max(ymax, r->roofline->achieved_tflops);
    }
    for (const auto& roof : roofs) {
      if (roof.peak > 0 && roof.bw > 0) {
        const double ridge = roof.peak / roof.bw * 1000;
        xmin = std::min(xmin, ridge / 4);
        xmax = std::max(xmax, ridge * 4);
      }
    }
    xmin /= 2;
    xmax *= 2;
    json lines = json::array();
    for (const auto& roof : roofs) {
      if (!(roof.peak > 0) && !(roof.bw > 0)) continue;
      std::vector<double> xs;
      const int n = 48;
      for (int i = 0; i <= n; ++i) xs.push_back(xmin * std::pow(xmax / xmin, static_cast<double>(i) / n));
      if (roof.peak > 0 && roof.bw > 0) xs.push_back(roof.peak / roof.bw * 1000);
      std::sort(xs.begin(), xs.end());
      for (double x : xs) {
        double y = roof.peak > 0 ? roof.peak : 0;
        if (roof.bw > 0) y = roof.peak > 0 ? std::min(roof.peak, x * roof.bw / 1000) : x * roof.bw / 1000;
        lines.push_back({{"series", roof.series}, {"intensity", x}, {"tflops", y}});
        ymin = std::min(ymin, y);
      }
      // The chart reaches up to the highest known compute peak; a roof
      // without one (bandwidth only) runs off the top instead of stretching it.
      if (roof.peak > 0) ymax = std::max(ymax, roof.peak);
    }
    const json x = {{"field", "intensity"},
                    {"type", "quantitative"},
                    {"title", "arithmetic intensity (FLOP/byte)"},
                    {"scale", {{"type", "log"}, {"domain", json::array({xmin, xmax})}, {"nice", false}}}};
    const json y_dom = log_domain(ymin, ymax);
    json spec = {
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
               {"mark",
                {{"type", "point"}, {"filled", true}, {"size", 46}, {"opacity", 0.8}, {"clip", true}}},
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
    out += page.chart("roofline", spec, "roofline chart");

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
    open_details(out, fmt::format("Numbers: {} items on the chart", placed.size()));
    out +=
        "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>key</th><th>device</th><th>FLOP/byte</th>"
        "<th>achieved</th><th>bound</th><th>% of bound</th><th>GB/s</th></tr></thead><tbody>\n";
    for (const Result* r : placed) {
      const Roofline& rf = *r->roofline;
      out += "<tr><td><code>" + esc(r->key) + "</code></td>" + cell(r->device) +
             num_cell(sig(rf.intensity_flop_per_byte)) + num_cell(format_tflops(rf.achieved_tflops)) +
             num_cell(rf.bound_tflops > 0 ? format_tflops(rf.bound_tflops) : "-") +
             num_cell(rf.percent_of_bound > 0 ? fmt::format("{:.1f}%{}", rf.percent_of_bound,
                                                            rf.above_peak ? " (above: suspect)" : "")
                                              : "-") +
             num_cell(format_gbps(rf.achieved_gbps)) + "</tr>\n";
    }
    out += "</tbody></table></div></details>\n";
  }
  if (!not_placed.empty()) {
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
             num_cell(rf.percent_of_bound > 0 ? fmt::format("{:.1f}%{}", rf.percent_of_bound,
                                                            rf.above_peak ? " (above: suspect)" : "")
                                              : "-") +
             "</tr>\n";
    }
    out += "</tbody></table></div></details>\n";
  }
  out += "</section>\n";
}

// ------------------------------------------------------------------ speed-up vs CPU

void speedup_section(std::string& out, Page& page, const Report& report) {
  json rows = json::array();
  std::vector<const Result*> with;
  for (const auto& r : report.results) {
    if (!r.speedup || !(*r.speedup > 0) || !std::isfinite(*r.speedup)) continue;
    with.push_back(&r);
    rows.push_back({{"group", r.kind + " " + r.category},
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

// ------------------------------------------------------------------ benchmarks

void bench_section(std::string& out, Page& page, const Report& report) {
  std::vector<const Result*> bench;
  for (const auto& r : report.results) {
    if (r.kind == "bench") bench.push_back(&r);
  }
  if (bench.empty()) return;
  out += "<section id=\"bench\"><h2>Benchmarks against their ceilings</h2>\n";
  auto label_of = [](const Result& r) {
    return r.name + " " + r.dtype + " " + r.shape + " (" + r.device + ")";
  };
  // Compute (GEMM) and bandwidth (memory, transfer) each get a chart: the
  // figure as a bar and the ceiling it is measured against as a tick.
  struct Panel {
    const char* id;
    const char* title;
    const char* metric;
    const char* unit;
  };
  for (const Panel& p : {Panel{"bench-gemm", "GEMM TFLOP/s (bar) and the compute peak of its dtype (tick)",
                               "tflops", "TFLOP/s"},
                         Panel{"bench-bandwidth",
                               "Memory and host-device bandwidth GB/s (bar) and the bandwidth ceiling (tick)",
                               "gbps", "GB/s"}}) {
    json rows = json::array();
    double lo = 1e300, hi = 0;
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
      json row = {{"label", label_of(*r)},
                  {"group", r->category},
                  {"key", r->key},
                  {"value", *v},
                  {"percent", r->roofline ? r->roofline->percent_of_bound : 0.0},
                  {"source", source_basis(source)}};
      if (ceiling > 0) row["ceiling"] = ceiling;
      rows.push_back(row);
    }
    if (rows.empty()) continue;
    // Bars on a log scale need an explicit base: the left edge of the domain.
    const json domain = log_domain(lo, hi);
    for (auto& row : rows) row["base"] = domain[0];
    json spec = {
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
         json::array(
             {{{"mark", {{"type", "bar"}}},
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
    out += page.chart(p.id, spec, p.title);
  }
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
           num_cell(r->roofline && r->roofline->percent_of_bound > 0
                        ? fmt::format("{:.1f}%{}", r->roofline->percent_of_bound,
                                      r->roofline->above_peak ? " (above: suspect)" : "")
                        : "-") +
           cell(source) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n</section>\n";
}

// ------------------------------------------------------------------ LLM

void llm_section(std::string& out, Page& page, const Report& report) {
  std::vector<const Result*> llm;
  for (const auto& r : report.results) {
    if (r.kind == "llm") llm.push_back(&r);
  }
  if (llm.empty()) return;
  out += "<section id=\"llm\"><h2>LLM prefill and decode</h2>\n";
  // Prefill: tokens/s against the prompt length; decode: tokens/s against the
  // batch (the sweep's other axis when that one has a single value). One
  // colour per device, model, dtype and the fixed sweep values; solid lines
  // are measured, dashed ones the rooflines (the GEMM ceiling for prefill,
  // the bandwidth ceiling for decode).
  for (const bool prefill : {true, false}) {
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
    if (rows_in.empty()) continue;
    // x: the prompt (prefill) or the batch (decode), unless only the other varies.
    bool x_is_batch = !prefill;
    if (x_is_batch && batches.size() == 1 && prompts.size() > 1) x_is_batch = false;
    if (!x_is_batch && prompts.size() == 1 && batches.size() > 1) x_is_batch = true;
    const std::string x_title =
        x_is_batch ? "batch (sequences processed together)"
                   : (prefill ? "prompt tokens" : "context depth (tokens already in the cache)");
    json rows = json::array();
    double ylo = 1e300, yhi = 0;
    for (const auto& [r, s] : rows_in) {
      const double tps = *metric(*r, "tokens_per_s");
      std::string series = r->device + " " + r->category + " " + r->dtype;
      if (x_is_batch) {
        series += prefill ? fmt::format(" pp{}", s.prompt) : fmt::format(" tg{}@d{}", s.gen, s.prompt);
      } else {
        series += prefill ? fmt::format(" b{}", s.batch) : fmt::format(" b{} tg{}", s.batch, s.gen);
      }
      if (s.phase == "graph") series += " graph replay";
      std::optional<double> roof, pct;
      if (prefill) {
        pct = metric(*r, "prefill_roofline_pct");
        if (pct && *pct > 0) roof = tps * 100.0 / *pct;
      } else {
        pct = metric(*r, "decode_roofline_pct");
        roof = metric(*r, "roofline_tokens_per_s");
      }
      json row = {{"series", series},      {"x", x_is_batch ? s.batch : s.prompt},
                  {"key", r->key},         {"measured", tps},
                  {"measure", "measured"}, {"tokens_per_s", tps}};
      if (pct) row["roofline_pct"] = *pct;
      if (r->speedup) row["speedup"] = *r->speedup;
      ylo = std::min(ylo, tps);
      yhi = std::max(yhi, tps);
      if (roof && *roof > 0) {
        row["roofline_tokens_per_s"] = *roof;
        json roof_row = row;
        roof_row["measure"] = "roofline";
        roof_row["tokens_per_s"] = *roof;
        rows.push_back(row);
        rows.push_back(roof_row);
        ylo = std::min(ylo, *roof);
        yhi = std::max(yhi, *roof);
      } else {
        rows.push_back(row);
      }
    }
    const json tooltip =
        json::array({{{"field", "key"}},
                     {{"field", "measured"}, {"format", ".4~g"}, {"title", "tokens/s"}},
                     {{"field", "roofline_tokens_per_s"}, {"format", ".4~g"}, {"title", "roofline tokens/s"}},
                     {{"field", "roofline_pct"}, {"format", ".1f"}, {"title", "% of roofline"}},
                     {{"field", "speedup"}, {"format", ".3~g"}, {"title", "speed-up vs CPU"}}});
    json spec = {
        {"width", 600},
        {"height", 320},
        {"title", prefill ? "Prefill tokens/s: measured (solid) and the GEMM-ceiling roofline (dashed)"
                          : "Decode tokens/s: measured (solid) and the bandwidth roofline (dashed)"},
        {"data", {{"values", rows}}},
        {"mark", {{"type", "line"}, {"point", true}}},
        {"encoding",
         {{"x",
           {{"field", "x"},
            {"type", "ordinal"},
            {"sort", "ascending"},
            {"title", x_title},
            {"axis", {{"labelAngle", 0}}}}},
          {"y",
           {{"field", "tokens_per_s"},
            {"type", "quantitative"},
            {"title", "tokens/s (log scale)"},
            {"scale", {{"type", "log"}, {"domain", log_domain(ylo, yhi)}, {"nice", false}}}}},
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
    out +=
        page.chart(prefill ? "llm-prefill" : "llm-decode", spec, prefill ? "prefill chart" : "decode chart");
  }
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
    } else if (r->evidence.contains("bottleneck") && r->evidence["bottleneck"].is_string()) {
      note = r->evidence["bottleneck"].get<std::string>();
    } else if (r->accuracy) {
      note = r->accuracy->detail;
    }
    out += "<tr><td><code>" + esc(r->key) + "</code></td><td class=\"" + status_class(*r) + "\">" +
           esc(status_label(*r)) + "</td>" + num_cell(rate) + num_cell(lat) + cell(roof) +
           num_cell(r->speedup ? format_ratio(*r->speedup) : "-") + cell(note) + "</tr>\n";
  }
  out += "</tbody></table></div></details>\n</section>\n";
}

// ------------------------------------------------------------------ other kinds

/// Results of kinds without a section of their own ("train", and any kind a
/// newer engine adds): a table with their metrics, so nothing is left out.
void other_results_section(std::string& out, const Report& report) {
  std::vector<std::string> kinds;
  for (const auto& r : report.results) {
    if (r.kind == "check" || r.kind == "bench" || r.kind == "llm") continue;
    if (std::find(kinds.begin(), kinds.end(), r.kind) == kinds.end()) kinds.push_back(r.kind);
  }
  for (const auto& kind : kinds) {
    const std::string title = kind == "train" ? "Training"
                              : kind.empty()  ? "Other results"
                                              : "Results: " + kind;
    out += "<section id=\"kind-" + esc(kind) + "\"><h2>" + esc(title) + "</h2>\n";
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

// ------------------------------------------------------------------ environment

std::string or_missing(const std::string& value, const NotCollected& nc, const std::string& field) {
  if (!value.empty()) return value;
  const auto it = nc.find(field);
  return it == nc.end() ? "could not collect" : "could not collect (" + it->second + ")";
}

void kv_table(std::string& out, const std::string& title,
              const std::vector<std::pair<std::string, std::string>>& rows) {
  out += "<h3>" + esc(title) + "</h3><table class=\"kv\"><tbody>\n";
  for (const auto& [k, v] : rows) out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  out += "</tbody></table>\n";
}

void environment_section(std::string& out, const Report& report) {
  const Environment& env = report.context.environment;
  out += "<section id=\"environment\"><h2>Environment</h2>\n<div class=\"env-grid\"><div>\n";
  const auto& h = env.host;
  std::string mem = or_missing("", h.not_collected, "memory_total_bytes");
  if (h.memory_total_bytes) {
    mem = format_bytes(static_cast<double>(*h.memory_total_bytes)) + " total" +
          (h.memory_available_bytes
               ? ", " + format_bytes(static_cast<double>(*h.memory_available_bytes)) + " available"
               : "");
  }
  std::string simd;
  for (const auto& s : h.simd) simd += (simd.empty() ? "" : " ") + s;
  kv_table(
      out, "Host",
      {{"OS", or_missing(h.os, h.not_collected, "os")},
       {"kernel", or_missing(h.kernel, h.not_collected, "kernel")},
       {"CPU", or_missing(h.cpu_model, h.not_collected, "cpu_model")},
       {"cores", h.logical_cores
                     ? fmt::format("{} logical{}", *h.logical_cores,
                                   h.physical_cores ? fmt::format(", {} physical", *h.physical_cores) : "")
                     : or_missing("", h.not_collected, "logical_cores")},
       {"max clock", h.cpu_max_mhz ? fmt::format("{:.0f} MHz", *h.cpu_max_mhz)
                                   : or_missing("", h.not_collected, "cpu_max_mhz")},
       {"SIMD", simd.empty() ? or_missing("", h.not_collected, "simd") : simd},
       {"memory", mem},
       {"CPU governor", or_missing(h.cpu_governor, h.not_collected, "cpu_governor")}});
  const auto& t = env.torch;
  auto build = [&](const char* key) {
    const auto it = t.build.find(key);
    return it == t.build.end() ? std::string("?") : it->second;
  };
  std::string archs, feats;
  for (const auto& a : t.arch_list) archs += (archs.empty() ? "" : " ") + a;
  for (const auto& [k, v] : t.features) feats += (feats.empty() ? "" : " ") + k + (v ? "+" : "-");
  std::vector<std::pair<std::string, std::string>> torch_rows{
      {"version", t.version + (t.source.empty() ? "" : " (" + t.source + ")")}, {"backend", t.backend}};
  if (!t.cuda_version.empty()) torch_rows.push_back({"CUDA runtime", t.cuda_version});
  if (!t.cudnn_version.empty()) torch_rows.push_back({"cuDNN", t.cudnn_version});
  if (!t.hip_version.empty()) torch_rows.push_back({"HIP runtime", t.hip_version});
  if (!t.miopen_version.empty()) torch_rows.push_back({"MIOpen", t.miopen_version});
  torch_rows.push_back({"arch list", archs.empty() ? or_missing("", t.not_collected, "arch_list") : archs});
  torch_rows.push_back({"BLAS / LAPACK (build)", build("BLAS_INFO") + " / " + build("LAPACK_INFO")});
  if (!t.openmp.empty()) torch_rows.push_back({"OpenMP", t.openmp});
  if (!t.cpu_capability.empty()) torch_rows.push_back({"CPU capability", t.cpu_capability});
  torch_rows.push_back({"threads", fmt::format("intra-op {}, inter-op {}", t.intra_op_threads.value_or(-1),
                                               t.inter_op_threads.value_or(-1))});
  torch_rows.push_back({"features", feats});
  kv_table(out, "Torch", torch_rows);
  const auto& b = env.blas;
  kv_table(
      out, "CPU BLAS loaded in the process",
      {{"library", or_missing(b.name, b.not_collected, "name") + (b.version.empty() ? "" : " " + b.version)},
       {"path", b.library.empty() ? "-" : b.library},
       {"recognised by", b.evidence.empty() ? "-" : b.evidence}});
  out += "</div><div>\n";
  const auto& d = env.driver;
  std::vector<std::pair<std::string, std::string>> drv{
      {"NVIDIA driver", or_missing(d.nvidia_driver, d.not_collected, "nvidia_driver")},
      {"CUDA driver API", d.cuda_driver_api.empty()
                              ? or_missing(d.cuda_init_error, d.not_collected, "cuda_driver_api")
                              : d.cuda_driver_api},
      {"ROCm", or_missing(d.rocm_version, d.not_collected, "rocm_version")}};
  if (!d.amdgpu_driver.empty()) drv.push_back({"amdgpu", d.amdgpu_driver});
  for (const auto& n : d.device_nodes) drv.push_back({"device node", n});
  if (d.device_nodes.empty())
    drv.push_back({"device nodes", or_missing("", d.not_collected, "device_nodes")});
  kv_table(out, "Drivers", drv);
  if (env.selection) {
    kv_table(out, "Device selection",
             {{"requested", env.selection->requested},
              {"measured", env.selection->chosen},
              {"why", env.selection->reason}});
  }
  out += "</div></div>\n";

  out += fmt::format("<h3>Accelerators torch sees ({})</h3>\n", env.devices.size());
  if (env.devices.empty()) {
    out += "<p class=\"empty\">None.</p>\n";
  } else {
    out +=
        "<div class=\"scroll\"><table "
        "class=\"data\"><thead><tr><th>id</th><th>name</th><th>arch</th><th>memory</th>"
        "<th>units</th><th>kind</th><th>arch in the torch build</th><th>PCI</th></tr></thead><tbody>\n";
    for (const auto& dev : env.devices) {
      out += "<tr>" + cell(dev.id) + cell(dev.name) + cell(dev.arch) +
             num_cell(dev.total_memory_bytes ? format_bytes(static_cast<double>(*dev.total_memory_bytes))
                                             : "-") +
             num_cell(dev.multiprocessors
                          ? fmt::format("{} {}", *dev.multiprocessors, dev.vendor == "amd" ? "CUs" : "SMs")
                          : "-") +
             cell(dev.integrated ? (*dev.integrated ? "integrated" : "discrete") : "-") +
             cell(dev.arch_in_build ? (*dev.arch_in_build ? "yes" : "NO")
                                    : or_missing("", dev.not_collected, "arch_in_build")) +
             cell(dev.pci_bus_id) + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  out += fmt::format("<h3>GPUs found without torch ({})</h3>\n", env.gpus.size());
  if (env.gpus.empty()) {
    out += "<p class=\"empty\">None.</p>\n";
  } else {
    out +=
        "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>PCI</th><th>vendor</th><th>name</th>"
        "<th>driver</th><th>arch</th><th>memory</th><th>PCIe link</th><th>not "
        "collected</th></tr></thead><tbody>\n";
    for (const auto& g : env.gpus) {
      std::string nc;
      for (const auto& [k, v] : g.not_collected) nc += (nc.empty() ? "" : "; ") + k + ": " + v;
      out += "<tr>" + cell(g.pci_address) + cell(g.vendor + " " + g.device_id) +
             cell(g.name.empty() ? "(unnamed)" : g.name) + cell(g.driver.empty() ? "none" : g.driver) +
             cell(!g.gfx_target.empty()           ? g.gfx_target
                  : !g.compute_capability.empty() ? "cc " + g.compute_capability
                                                  : "-") +
             num_cell(g.vram_bytes ? format_bytes(static_cast<double>(*g.vram_bytes)) : "-") +
             cell(g.link ? fmt::format("{} x{} (max {} x{})", g.link->current_speed,
                                       g.link->current_width.value_or(0), g.link->max_speed,
                                       g.link->max_width.value_or(0))
                         : "-") +
             cell(nc) + "</tr>\n";
    }
    out += "</tbody></table></div>\n";
  }
  out += "<h3>Environment variables that change GPU behaviour</h3>\n";
  if (env.env_vars.empty()) {
    out += "<p class=\"empty\">None set.</p>\n";
  } else {
    out +=
        "<table "
        "class=\"data\"><thead><tr><th>variable</th><th>value</th><th>effect</th></tr></thead><tbody>\n";
    for (const auto& v : env.env_vars) {
      out += "<tr><td><code>" + esc(v.name) + "</code></td><td><code>" + esc(v.value) + "</code></td>" +
             cell(v.effect) + "</tr>\n";
    }
    out += "</tbody></table>\n";
  }
  if (env.windows) {
    out +=
        "<h3>Windows</h3>\n<table class=\"data\"><thead><tr><th>part</th><th>fact</th><th>value</th></tr>"
        "</thead><tbody>\n";
    for (const auto& r : windows_env_rows(*env.windows))
      out += "<tr>" + cell(r.group) + cell(r.label) + cell(r.value) + "</tr>\n";
    out += "</tbody></table>\n";
  }
  if (const auto indices = gpu_index_rows(env, report.results); !indices.empty()) {
    out +=
        "<h3>GPU indices</h3>\n<table class=\"data\"><thead><tr><th>adapter</th><th>indices</th></tr>"
        "</thead><tbody>\n";
    for (const auto& r : indices) out += "<tr>" + cell(r.label) + cell(r.value) + "</tr>\n";
    out += "</tbody></table>\n";
  }
  if (env.onnxruntime) {
    out +=
        "<h3>ONNX Runtime</h3>\n<table "
        "class=\"data\"><thead><tr><th>part</th><th>fact</th><th>value</th></tr>"
        "</thead><tbody>\n";
    for (const auto& r : onnxruntime_env_rows(*env.onnxruntime))
      out += "<tr>" + cell(r.group) + cell(r.label) + cell(r.value) + "</tr>\n";
    out += "</tbody></table>\n";
  }
  if (!t.config.empty()) {
    open_details(out, "Torch build configuration (at::show_config)");
    out += "<pre class=\"config\">" + esc(t.config) + "</pre></details>\n";
  }
  out += "</section>\n";
}

// ------------------------------------------------------------------ fixed parts
// The page's style sheet and its two scripts are web/report.css,
// web/report-status.js (runs first: records script errors and rejected
// promises for the status element) and web/report-render.js (runs last:
// embeds every chart, checks that each drew, writes the status), embedded at
// build time like the charting code (web_assets.hpp).

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string json_for_script(const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  // '<', '>' and '&' only occur inside JSON strings, where \u escapes mean the same.
  for (char c : text) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_html(const Report& report, const HtmlOptions& options) {
  Page page;
  std::string main;
  header(main, report);
  main += "<nav><a href=\"#verdict\">verdict</a><a href=\"#findings\">findings</a>";
  bool any_check = false, any_bench = false, any_llm = false;
  for (const auto& r : report.results) {
    any_check = any_check || r.kind == "check";
    any_bench = any_bench || r.kind == "bench";
    any_llm = any_llm || r.kind == "llm";
  }
  if (any_check) main += "<a href=\"#checks\">operator checks</a>";
  main += "<a href=\"#roofline\">roofline</a><a href=\"#speedup\">speed-up</a>";
  if (any_bench) main += "<a href=\"#bench\">benchmarks</a>";
  if (any_llm) main += "<a href=\"#llm\">LLM</a>";
  if (!gpu_busy_rows(report.results).empty()) main += "<a href=\"#gpu-busy\">GPU busy</a>";
  main += "<a href=\"#environment\">environment</a></nav>\n";
  verdict_and_findings(main, report);
  checks_section(main, report);
  roofline_section(main, page, report);
  speedup_section(main, page, report);
  bench_section(main, page, report);
  llm_section(main, page, report);
  other_results_section(main, report);
  main += render_gpu_busy_html(report.results);
  environment_section(main, report);

  std::string out;
  out.reserve(main.size() + 900000);
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"accel-doctor " + esc(report.context.tool.version) + "\">\n";
  out += "<title>accel-doctor report: " + esc(report_device(report)) +
         (report.context.started_at.empty() ? "" : " " + esc(report.context.started_at)) + "</title>\n";
  out += "<style>\n" + std::string(web_assets::report_css()) + "</style>\n<script>\n" +
         std::string(web_assets::report_status_js()) + "</script>\n</head>\n<body>\n";
  out += main;
  std::string versions(web_assets::versions());
  out += "<footer><p>Charts drawn in this page by ";
  {
    std::string list;
    std::size_t start = 0;
    while (start < versions.size()) {
      auto nl = versions.find('\n', start);
      if (nl == std::string::npos) nl = versions.size();
      const std::string row = versions.substr(start, nl - start);
      if (!row.empty()) list += (list.empty() ? "" : ", ") + row;
      start = nl + 1;
    }
    out += esc(list);
  }
  out += ", inlined in this file; nothing is fetched when it opens.</p>\n";
  out += fmt::format(
      "<pre id=\"render-status\">{{\"charts\": {}, \"drawn\": 0, \"errors\": [], \"done\": false}}</pre>\n",
      page.charts());
  out += "<details><summary>Licences of the inlined charting code</summary><pre>";
  out += esc("Vega\n" + std::string(web_assets::license_vega()) + "\nVega-Lite\n" +
             std::string(web_assets::license_vega_lite()) + "\nvega-embed\n" +
             std::string(web_assets::license_vega_embed()));
  out += "</pre></details></footer>\n";
  if (options.embed_report) {
    out += "<script type=\"application/json\" id=\"accel-report\">" + json_for_script(json(report)) +
           "</script>\n";
  }
  // The vendored code contains no "</script": checked by the unit test.
  out += "<script>" + std::string(web_assets::vega_js()) + "</script>\n";
  out += "<script>" + std::string(web_assets::vega_lite_js()) + "</script>\n";
  out += "<script>" + std::string(web_assets::vega_embed_js()) + "</script>\n";
  out += "<script>\n" + std::string(web_assets::report_render_js()) + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace accel
