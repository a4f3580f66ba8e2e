// The HTML report's operator-check matrix and the list of checks that did
// not pass.
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

/// One cell of the matrix: the checks of a category and dtype as dots, the
/// count that passed, and the problems folded under it.
void matrix_cell(std::string& out, const std::string& cat, const std::string& d,
                 const std::vector<const Result*>& in) {
  if (in.empty()) {
    out += "<td class=\"cell none\"></td>";
    return;
  }
  int ok = 0, worst = 5;
  const Result* worst_r = in.front();
  std::vector<const Result*> problems;
  std::string title = fmt::format("{} {}: {} check{}", cat, d, in.size(), in.size() == 1 ? "" : "s");
  for (const Result* r : in) {
    ok += r->status == Status::ok && !(r->profile && r->profile->where == Where::cpu_fallback);
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
  out += "<td class=\"cell " + (worst == 5 ? std::string("st-ok") : status_class(*worst_r)) + "\" title=\"" +
         esc(title) + "\"><div class=\"cnt\">" + fmt::format("{}/{}", ok, in.size()) +
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
    out +=
        "<details class=\"why" + std::string(failing ? "" : " soft") + "\"><summary>" + what + "</summary>";
    problem_list(out, problems);
    out += "</details>";
  }
  out += "</td>";
}

/// The matrix: a row per category, a column per dtype, and its legend.
void check_matrix(std::string& out, const std::vector<const Result*>& checks) {
  std::vector<std::string> categories, dtypes;
  for (const Result* r : checks) {
    if (std::find(categories.begin(), categories.end(), r->category) == categories.end()) {
      categories.push_back(r->category);
    }
    if (std::find(dtypes.begin(), dtypes.end(), r->dtype) == dtypes.end()) dtypes.push_back(r->dtype);
  }
  std::stable_sort(dtypes.begin(), dtypes.end(),
                   [](const std::string& a, const std::string& b) { return dtype_rank(a) < dtype_rank(b); });
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
      matrix_cell(out, cat, d, in);
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
}

/// The checks that need attention, and those not in this torch build.
void problem_lists(std::string& out, const std::vector<const Result*>& checks) {
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
}

void all_checks_table(std::string& out, const std::vector<const Result*>& checks) {
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
  out += "</tbody></table></div></details>\n";
}

}  // namespace

void checks_section(std::string& out, const Report& report) {
  const std::vector<const Result*> checks = result_pointers(report, ResultKind::check);
  if (checks.empty()) return;
  out += "<section id=\"checks\"><h2>Operator checks</h2>\n";
  out += "<p class=\"summary\">" +
         esc(checks_summary_line(results_of_kind(report, ResultKind::check), checks.front()->device)) +
         "</p>\n";
  out +=
      "<p class=\"hint\">Each cell is one category and dtype; each dot one check (hover for its name and "
      "status). Click a cell's problems to read the error, its cause and the fix.</p>\n";
  check_matrix(out, checks);
  problem_lists(out, checks);
  all_checks_table(out, checks);
  out += "</section>\n";
}

}  // namespace accel::html_detail
