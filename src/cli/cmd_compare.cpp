// `compare A.json B.json`: what got faster, slower, newly failing or fixed
// between two saved reports, counting only differences beyond noise
// (core/compare.hpp has the rule). Exit 1 on a regression, so it can gate an
// upgrade in CI; 2 when a file cannot be read.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>

#include "cli/app.hpp"
#include "core/compare.hpp"
#include "core/report/findings.hpp"

namespace accel::cli {

namespace {

Report read_or_usage(App& app, const std::string& path) {
  try {
    Report r = read_report_file(path);
    app.note_secrets(r);
    return r;
  } catch (const ReportError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

int cmd_compare(App& app, const CompareArgs& args) {
  if (app.options().format != OutputFormat::text || !app.options().html_path.empty()) {
    throw UsageError(
        "compare writes text or JSON (--json); --format md|jsonl and --html render reports: "
        "`accel-doctor report --from B.json --format md`");
  }
  if (!(args.min_change_pct >= 0 && args.min_change_pct < 1000)) {
    throw UsageError("--min-change must be a percentage between 0 and 1000");
  }
  const Report a = read_or_usage(app, args.a);
  const Report b = read_or_usage(app, args.b);
  CompareOptions o;
  o.min_change = args.min_change_pct / 100.0;
  const Comparison c = compare_reports(a, b, o, args.a, args.b);
  const json j = comparison_to_json(c);
  if (args.json) {
    std::cout << app.scrub(j.dump(2)) << "\n" << std::flush;  // asked for explicitly: even with --quiet
  } else {
    app.out(render_comparison(c, app.style_stdout()));
  }
  if (const std::string& path = app.options().json_path; !path.empty()) {
    const std::string text = app.scrub(j.dump(2)) + "\n";
    if (path == "-") {
      std::fputs(text.c_str(), stdout);
    } else {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      if (!out || !(out << text)) throw UsageError(fmt::format("cannot write {}", path));
    }
  }
  return c.regressed() ? kExitFindings : kExitHealthy;
}

// ---------------------------------------------------------------- options

CLI::App* add_compare_command(CLI::App& cli, CompareArgs& args) {
  auto* compare = cli.add_subcommand(
      "compare",
      "what got faster, slower, newly failing or fixed between two reports (exit 1 on a regression)");
  compare->add_option("A", args.a, "the earlier report.json (before the upgrade)")->required();
  compare->add_option("B", args.b, "the later report.json (after the upgrade)")->required();
  compare->add_flag("--json", args.json, "print the comparison as JSON on standard output");
  compare
      ->add_option("--min-change", args.min_change_pct,
                   "smallest change that counts, in percent (the noise threshold is at least this)")
      ->capture_default_str();
  return compare;
}

}  // namespace accel::cli
