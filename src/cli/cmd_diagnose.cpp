// `diagnose --from report.json`: the rules engine over a saved report (one
// attached to a support thread can be read anywhere), and the helpers the
// default run uses to add findings and the verdict to its own report.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>

#include "cli/app.hpp"
#include "core/redact.hpp"
#include "core/report/findings.hpp"
#include "core/report/json_report.hpp"
#include "core/rules/rules.hpp"

namespace accel::cli {

namespace {

const RuleData& rule_data() {
  static std::optional<RuleData> data;
  if (!data) {
    const std::string dir = find_kb_dir();
    try {
      data = dir.empty() ? RuleData{} : RuleData::load(dir);
    } catch (const RuleDataError& e) {
      throw UsageError(std::string("set-up error: ") + e.what());
    }
  }
  return *data;
}

std::string describe_origin(const Report& r, const std::string& path) {
  std::string s = fmt::format("Diagnosis of {}", path);
  std::vector<std::string> parts;
  if (!r.context.command.empty()) parts.push_back("`" + r.context.command + "` run");
  if (!r.context.started_at.empty()) parts.push_back("started " + r.context.started_at);
  if (!r.context.tool.version.empty()) {
    parts.push_back(fmt::format("accel-doctor {}{}", r.context.tool.version,
                                r.context.tool.commit.empty() ? "" : " (" + r.context.tool.commit + ")"));
  }
  parts.push_back(fmt::format("{} results", r.results.size()));
  s += " (";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : "") + parts[i];
  return s + ")";
}

}  // namespace

DiagnoseOptions diagnose_options(App& app) {
  DiagnoseOptions o;
  o.kb = &app.kb();
  o.data = &rule_data();
  return o;
}

void add_diagnosis(App& app, Report& report) {
  report.findings = diagnose(report, diagnose_options(app));
  report.verdict = verdict_line(report, report.findings);
}

int report_diagnosis(App& app, Report& report) {
  add_diagnosis(app, report);
  const ConsoleStyle style = app.style_stdout();
  const bool attention = needs_attention(report, report.findings);
  app.out("\n" + render_findings(report.findings, style));
  app.out("\n" + render_verdict(report.verdict, attention, style));
  return attention ? kExitFindings : kExitHealthy;
}

int cmd_diagnose(App& app, const DiagnoseArgs& args) {
  if (args.list) {
    std::string out;
    for (const auto& r : list_rules()) out += fmt::format("{:<34} {}\n", r.id, r.triggers);
    std::cout << out << std::flush;  // asked for explicitly: printed even with --quiet
    return kExitHealthy;
  }
  if (args.from.empty()) {
    throw UsageError(
        "diagnose needs --from report.json (a report written with --json); `accel-doctor` without a command "
        "measures and diagnoses this machine");
  }
  Report report;
  try {
    report = read_report_file(args.from);
  } catch (const ReportError& e) {
    throw UsageError(e.what());
  }
  app.note_secrets(report);
  (void)diagnose_options(app);  // the kb and kb/rules.json: a broken one is refused before any output
  app.out(wrap_to_width(describe_origin(report, args.from), app.style_stdout().width) + "\n");
  const int rc = report_diagnosis(app, report);
  app.write_outputs(report);  // --json, --html, --format md|jsonl, all redacted with --redact
  return rc;
}

// ---------------------------------------------------------------- options

CLI::App* add_diagnose_command(CLI::App& cli, DiagnoseArgs& args) {
  auto* diagnose_cmd = cli.add_subcommand(
      "diagnose", "findings (ranked, with the fix for this platform) and a verdict for a saved report");
  diagnose_cmd->add_option("--from", args.from, "a report.json written by --json");
  diagnose_cmd->add_flag("--list", args.list, "list the rules and what triggers each");
  return diagnose_cmd;
}

}  // namespace accel::cli
