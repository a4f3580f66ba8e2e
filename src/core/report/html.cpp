#include "core/report/html.hpp"
// The HTML report (core/report/html.hpp): one self-contained page. This file
// holds the shared helpers, the header, verdict and findings, and render_html;
// the other sections are html_checks/charts/bench/env.cpp (html_detail.hpp).
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
#include "core/report/web_assets.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel::html_detail {

std::string esc(const std::string& s) { return html_escape(s); }

std::string status_class(const Result& r) {
  if (r.profile && r.profile->where == Where::cpu_fallback && r.status == Status::ok) return "st-fallback";
  return "st-" + std::string(to_string(r.status));
}

std::string status_label(const Result& r) {
  if (r.profile && r.profile->where == Where::cpu_fallback && r.status == Status::ok)
    return "ok, CPU fallback";
  return std::string(to_string(r.status));
}

std::string timing_text(const std::optional<Timing>& t) {
  if (!t || t->median_us <= 0) return "-";
  const double rel = 100.0 * t->iqr_us / t->median_us;
  return fmt::format("{} ±{:.0f}%{}", format_us(t->median_us), rel, t->noisy ? " (noisy)" : "");
}

std::string where_text(const Result& r) {
  if (!r.profile) return "-";
  switch (r.profile->where) {
    case Where::device_kernels:
      return fmt::format("device kernels ({})", r.profile->kernel_count);
    case Where::cpu_fallback:
      return "CPU fallback";
    case Where::no_device_work:
      return "no device work";
    case Where::profiler_blind:
      return "profiler blind";
    case Where::backend_kernels:
      return "on the device (backend's account)";
    case Where::none:
    case Where::host:
    case Where::unavailable:
      break;
  }
  return std::string(to_string(r.profile->where));
}

/// A reference as a link when it is a URL, else as text.
std::string reference_html(const std::string& ref) {
  if (ref.rfind("https://", 0) == 0 || ref.rfind("http://", 0) == 0) {
    return "<a href=\"" + esc(ref) + "\" rel=\"noreferrer\">" + esc(ref) + "</a>";
  }
  return esc(ref);
}

std::string problem_text(const Result& r) {
  if (r.profile && r.profile->where == Where::cpu_fallback && r.status == Status::ok) {
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
  if (r.profile && r.profile->where == Where::cpu_fallback) return 2;
  if (r.status == Status::unavailable) return 3;
  if (r.status == Status::skipped) return 4;
  return 5;
}

std::string cell(const std::string& s) { return "<td>" + esc(s) + "</td>"; }

std::string num_cell(const std::string& s) { return "<td class=\"num\">" + esc(s) + "</td>"; }

std::string sig(double v) { return format_sig3(v); }

std::vector<const Result*> result_pointers(const Report& report, ResultKind kind) {
  std::vector<const Result*> out;
  for (const auto& r : report.results) {
    if (r.kind == kind) out.push_back(&r);
  }
  return out;
}

std::string percent_of_bound_text(const Roofline& rf) {
  return rf.percent_of_bound > 0
             ? fmt::format("{:.1f}%{}", rf.percent_of_bound, rf.above_peak ? " (above: suspect)" : "")
             : "-";
}

/// A log-scale domain around [lo, hi] with some margin (never empty or <= 0).
json log_domain(double lo, double hi) {
  if (!(lo > 0)) lo = hi > 0 ? hi : 1;
  if (!(hi > 0)) hi = lo;
  return json::array({lo / 2, hi * 2});
}

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
    if (f.severity == Severity::critical) {
      worst = "critical";
      break;
    }
    if (f.severity == Severity::warning) worst = "warning";
    if (f.severity == Severity::info && worst == "none") worst = "info";
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
      const std::string sev = f.severity == Severity::none ? "note" : std::string(to_string(f.severity));
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

}  // namespace accel::html_detail

namespace accel {

// ------------------------------------------------------------------ fixed parts
// The page's style sheet and its two scripts are web/report.css,
// web/report-status.js (runs first: records script errors and rejected
// promises for the status element) and web/report-render.js (runs last:
// embeds every chart, checks that each drew, writes the status), embedded at
// build time like the charting code (web_assets.hpp).

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

using html_detail::bench_section;
using html_detail::checks_section;
using html_detail::environment_section;
using html_detail::esc;
using html_detail::header;
using html_detail::llm_section;
using html_detail::other_results_section;
using html_detail::Page;
using html_detail::roofline_section;
using html_detail::speedup_section;
using html_detail::verdict_and_findings;

std::string render_html(const Report& report, const HtmlOptions& options) {
  Page page;
  std::string main;
  header(main, report);
  main += "<nav><a href=\"#verdict\">verdict</a><a href=\"#findings\">findings</a>";
  bool any_check = false, any_bench = false, any_llm = false;
  for (const auto& r : report.results) {
    any_check = any_check || r.kind == ResultKind::check;
    any_bench = any_bench || r.kind == ResultKind::bench;
    any_llm = any_llm || r.kind == ResultKind::llm;
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
