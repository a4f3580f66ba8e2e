// `report --from report.json`: renders saved reports without running
// anything (CI and support threads, no GPU needed).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <map>

#include <iostream>

#include "cli/app.hpp"
#include "core/report/console.hpp"
#include "core/report/digest.hpp"
#include "core/report/multi_tables.hpp"

namespace accel::cli {

namespace {

/// Several reports as one: the first one's context, every result and
/// finding in order, the distinct verdicts joined.
/// One report from several: the first one's context, every result (a later
/// result of a key replaces an earlier one: the same file twice counts once),
/// and no findings or verdict, so the rules run on the merged evidence.
/// `replaced` counts the results that replaced another.
Report merge_reports(const std::vector<Report>& reports, std::size_t& replaced) {
  Report merged = reports.front();
  replaced = 0;
  if (reports.size() == 1) return merged;
  std::map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < merged.results.size(); ++i) at.emplace(merged.results[i].key, i);
  for (std::size_t i = 1; i < reports.size(); ++i) {
    const Report& r = reports[i];
    for (const auto& x : r.results) {
      if (const auto it = at.find(x.key); it != at.end()) {
        merged.results[it->second] = x;
        ++replaced;
      } else {
        at.emplace(x.key, merged.results.size());
        merged.results.push_back(x);
      }
    }
    if (!r.context.command.empty() && r.context.command != merged.context.command) {
      merged.context.command += "+" + r.context.command;
    }
    if (r.context.finished_at > merged.context.finished_at)
      merged.context.finished_at = r.context.finished_at;
    if (merged.context.environment.host.hostname.empty()) merged.context.environment = r.context.environment;
  }
  merged.findings.clear();
  merged.verdict.clear();
  return merged;
}

std::string render_text(const Report& report, const ConsoleStyle& style) {
  std::string out = render_environment(report.context.environment, style);
  const auto checks = results_of_kind(report, ResultKind::check);
  if (!checks.empty()) {
    out += "\n" + render_checks_table(checks, style);
    const std::string problems = render_check_problems(checks, style);
    if (!problems.empty()) out += "\n" + problems;
    out += "\n" + wrap_to_width(checks_summary_line(checks, checks.front().device), style.width) + "\n";
  }
  const auto bench = results_of_kind(report, ResultKind::bench);
  if (!bench.empty()) out += "\n" + render_bench_table(bench, style);
  const auto llm = results_of_kind(report, ResultKind::llm);
  if (!llm.empty()) out += "\n" + render_llm_table(llm, style);
  const auto train = results_of_kind(report, ResultKind::train);
  if (!train.empty()) out += "\n" + render_train_table(train, style);
  // Several GPUs or machines: the topology, and (a merge of per-rank reports)
  // every rank's node and the slowest link.
  if (const std::string topo = render_topology(report.context.environment, style); !topo.empty())
    out += "\n" + topo;
  out += render_multi_tables(report.results, style);
  out += fmt::format("\nVerdict: {}\n", verdict_or_summary(report));
  if (report.findings.empty()) {
    out += "No findings.\n";
  } else {
    int n = 0;
    for (const auto& f : report.findings) {
      out += fmt::format("{}. [{}] {}\n", ++n, to_string(f.severity), f.title);
      if (!f.evidence.empty()) out += "   evidence: " + f.evidence + "\n";
      if (!f.fix.empty()) out += "   fix: " + f.fix + "\n";
    }
  }
  return out;
}

}  // namespace

int cmd_report(App& app, const ReportArgs& args) {
  std::vector<Report> reports;
  for (const auto& path : args.from) {
    try {
      reports.push_back(read_report_file(path));
    } catch (const ReportError& e) {
      throw UsageError(e.what());
    }
  }
  if (reports.empty()) throw UsageError("report: --from FILE is required");
  for (const auto& r : reports) app.note_secrets(r);  // --redact: their host and user names too
  std::size_t replaced = 0;
  Report report = merge_reports(reports, replaced);
  if (replaced > 0) {
    std::cerr << fmt::format(
        "accel-doctor: report: {} result(s) appear in more than one --from file; the "
        "later file's result is kept\n",
        replaced);
  }
  // A report saved by a measuring command other than the default run has no
  // findings yet: the rules are pure, so the rendered report gets them.
  if (report.findings.empty() && report.verdict.empty()) add_diagnosis(app, report);
  app.out(render_text(report, app.style_stdout()));
  app.write_outputs(report);
  return kExitHealthy;  // rendering succeeded; `diagnose --from` gives the health exit code
}

// ---------------------------------------------------------------- options

CLI::App* add_report_command(CLI::App& cli, ReportArgs& args) {
  auto* report = cli.add_subcommand(
      "report",
      "render saved JSON reports (--from, repeatable: merged into one) as --html, --format md|jsonl|text");
  // Not CLI::ExistingFile: a file that cannot be read gets the same message
  // from report, diagnose and compare (read_report_file: path and reason).
  report->add_option("--from", args.from, "a report.json written by --json (repeatable)")->required();
  return report;
}

}  // namespace accel::cli
