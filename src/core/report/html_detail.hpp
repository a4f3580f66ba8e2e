// Internal to the HTML reporter (core/report/html*.cpp), not a public header:
// the helpers and the Page its parts share, and the sections render_html
// puts together. The parts:
//   html.cpp          the helpers, header, verdict and findings, render_html
//   html_checks.cpp   the operator-check matrix and its problem list
//   html_charts.cpp   the roofline and the speed-up vs CPU
//   html_bench.cpp    benchmarks, LLM workloads, other result kinds
//   html_env.cpp      the environment
// The page's CSS and scripts: web/report*, embedded (web_assets.hpp).
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/evidence.hpp"
#include "core/json.hpp"
#include "core/report/html.hpp"

namespace accel::html_detail {

std::string esc(const std::string& s);
std::string status_class(const Result& r);
std::string status_label(const Result& r);
std::string timing_text(const std::optional<Timing>& t);
std::string where_text(const Result& r);
/// A reference as a link when it is a URL, else as text.
std::string reference_html(const std::string& ref);
std::string problem_text(const Result& r);
/// Sorts dtypes the way people read them: floating point widest first, then integers.
int dtype_rank(const std::string& d);
/// Worst first: the status class that colours a matrix cell.
int severity_of(const Result& r);
std::string cell(const std::string& s);
std::string num_cell(const std::string& s);
std::string sig(double v);
/// The report's results of one kind, in report order (not copies: digest.hpp's results_of_kind).
std::vector<const Result*> result_pointers(const Report& report, ResultKind kind);
/// An item's "% of bound", "(above: suspect)" when over the ceiling; "-" when none.
std::string percent_of_bound_text(const Roofline& rf);
/// A log-scale domain around [lo, hi] with some margin (never empty or <= 0).
json log_domain(double lo, double hi);
void open_details(std::string& out, const std::string& summary);

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

// ------------------------------------------------------------------ sections

void header(std::string& out, const Report& report);
void verdict_and_findings(std::string& out, const Report& report);
void checks_section(std::string& out, const Report& report);
void roofline_section(std::string& out, Page& page, const Report& report);
void speedup_section(std::string& out, Page& page, const Report& report);
void bench_section(std::string& out, Page& page, const Report& report);
void llm_section(std::string& out, Page& page, const Report& report);
void other_results_section(std::string& out, const Report& report);
void environment_section(std::string& out, const Report& report);

}  // namespace accel::html_detail
