// `env`, `ops` and the default run.
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/machine_context.hpp"
#include "core/report/console.hpp"
#include "platform/crash_handler.hpp"

namespace accel::cli {

int cmd_env(App& app) {
  app.report("env");
  Environment& env = app.environment();
  app.device_choice();
  app.out(render_environment(env, app.style_stdout()));
  app.write_json_if_requested();
  return kExitHealthy;
}

engine::OpsOptions ops_options(App& app, const OpsArgs& args) {
  engine::OpsOptions o;
  o.device = app.device_choice().chosen;
  o.quick = args.quick;
  o.filters = args.filters;
  o.isolate = !args.no_isolate;
  o.profile = !args.no_profile;
  o.trace_path = app.options().trace_path;
  o.check_timeout_s = args.check_timeout_s;
  const char* test_checks = std::getenv("ACCEL_DOCTOR_TEST_CHECKS");
  o.include_test_checks = test_checks && std::string(test_checks) == "1";
  // Tests force the worker hand-over with a tiny budget.
  if (const char* retire = std::getenv("ACCEL_DOCTOR_WORKER_RETIRE_BYTES")) {
    o.worker_retire_anon_bytes = std::strtod(retire, nullptr);
    o.worker_retire_min_items = 1;
  }
  o.machine = machine_context_of(app.environment(), o.device);
  return o;
}

namespace {
/// The device copy bandwidth the checks' rooflines use, measured now with the bench row.
std::vector<Result> measure_bandwidth(App& app, const std::string& device) {
  engine::BenchOptions b;
  b.device = device;
  b.quick = true;
  b.cpu_twin = false;
  b.filters = {fmt::format("bench/{}/memory/copy", device.substr(0, device.find(':')))};
  app.status("measuring device memory bandwidth…");
  auto r = run_repeated(app, [&](const engine::RunCallbacks&) { return app.engine().run_bench(b, {}); });
  app.clear_status();
  return r;
}
}  // namespace

std::vector<Result> run_ops_phase(App& app, const engine::OpsOptions& o, bool measure) {
  platform::set_crash_phase(o.trace_path.empty() ? "ops: running the checks"
                                                 : "ops: running the checks, merging the trace");
  auto results =
      run_repeated(app, [&](const engine::RunCallbacks& cb) { return app.engine().run_ops(o, cb); });
  app.clear_status();
  if (measure) {
    platform::set_crash_phase("ops: measuring the device memory bandwidth");
    auto measured = measure_bandwidth(app, o.device);
    app.apply_rooflines(results, measured);
    app.report("ops").results.insert(app.report("ops").results.end(), measured.begin(), measured.end());
  }
  platform::set_crash_phase("ops: reporting");
  if (!o.trace_path.empty()) {
    std::error_code ec;
    if (std::filesystem::exists(o.trace_path, ec)) {
      app.out(fmt::format("Trace written to {} (open it in https://ui.perfetto.dev or chrome://tracing).\n",
                          o.trace_path));
    } else {
      std::cerr << "accel-doctor: --trace: no trace written: this torch build cannot write Chrome traces "
                   "(it has no Kineto profiler)\n";
    }
  }
  return results;
}

int cmd_ops(App& app, const OpsArgs& args) {
  if (args.list) {
    engine::OpsOptions o;
    o.filters = args.filters;
    const char* test_checks = std::getenv("ACCEL_DOCTOR_TEST_CHECKS");
    o.include_test_checks = test_checks && std::string(test_checks) == "1";
    const auto checks = app.engine().list_checks(o);
    std::string out = fmt::format("{:<44} {:<14} {:<5} {:<22} {:<12} {}\n", "key", "category", "dtype",
                                  "shape", "verify", "FLOPs formula");
    for (const auto& c : checks) {
      out += fmt::format("{:<44} {:<14} {:<5} {:<22} {:<12} {}\n", c.key, c.category, c.dtype, c.shape,
                         c.verify, c.flops_formula);
    }
    out += fmt::format("{} checks\n", checks.size());
    app.out(out);
    return kExitHealthy;
  }
  Report& report = app.report("ops");
  const engine::OpsOptions o = ops_options(app, args);
  if (app.engine().list_checks(o).empty()) {
    throw UsageError("no check matches --filter; `accel-doctor ops --list` shows them");
  }
  auto results = run_ops_phase(app, o);
  const ConsoleStyle style = app.style_stdout();
  app.out(render_checks_table(results, style));
  app.out("\n" + wrap_to_width(checks_summary_line(results, o.device), style.width) + "\n");
  const std::string problems = render_check_problems(results, style);
  if (!problems.empty()) app.out("\n" + problems);
  return finish_command(app, report, results, /*problems_listed=*/!problems.empty());
}

// ---------------------------------------------------------------- options

CLI::App* add_env_command(CLI::App& cli) {
  auto* env = cli.add_subcommand("env", "devices, drivers, torch build, CPU BLAS and environment variables");
  return env;
}

CLI::App* add_ops_command(CLI::App& cli, OpsArgs& args) {
  auto* ops = cli.add_subcommand("ops", "operator checks: device, correctness vs CPU float64, time vs CPU");
  ops->add_flag("--quick", args.quick, "fewer repeats");
  ops->add_flag("--list", args.list, "list the checks and exit");
  ops->add_option("--filter", args.filters, "select checks by category, name, dtype or key part")
      ->delimiter(',');
  ops->add_flag("--no-isolate", args.no_isolate, "run checks in this process (debugging)");
  ops->add_flag("--no-profile", args.no_profile, "skip the profiler capture of each check");
  ops->add_option("--check-timeout", args.check_timeout_s, "seconds per check before it is 'hung'")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return ops;
}

}  // namespace accel::cli
