// `bench`: microbenchmarks against the hardware's ceilings.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/machine_context.hpp"
#include "core/report/console.hpp"

namespace accel::cli {

std::vector<Result> run_bench_phase(App& app, const engine::BenchOptions& o) {
  auto results =
      run_repeated(app, [&](const engine::RunCallbacks& cb) { return app.engine().run_bench(o, cb); });
  app.clear_status();
  app.apply_rooflines(results, results);
  return results;
}

int cmd_bench(App& app, const BenchArgs& args) {
  if (!args.from.empty() && (!args.vulkan || !args.filters.empty() || args.list)) {
    throw UsageError(
        "bench --from FILE compares the Vulkan ceiling with a saved report's rows: use it with --vulkan "
        "alone (no --filter, no --list)");
  }
  if (args.vulkan && args.filters.empty() && !args.list) return cmd_bench_vulkan_only(app, args);
  engine::BenchOptions o;
  o.quick = args.quick;
  o.filters = args.filters;
  o.cpu_twin = !args.no_cpu;
  o.isolate = !args.no_isolate;
  if (args.list) {
    o.device = app.device_choice().chosen;
    const auto rows = app.engine().list_benchmarks(o);
    std::string out;
    for (const auto& r : rows) out += r.key + "\n";
    out += fmt::format("{} benchmarks\n", rows.size());
    app.out(out);
    return kExitHealthy;
  }
  Report& report = app.report("bench");
  o.device = app.device_choice().chosen;
  o.machine = machine_context_of(app.environment(), o.device);
  if (app.engine().list_benchmarks(o).empty()) {
    throw UsageError("no benchmark matches --filter; `accel-doctor bench --list` shows them");
  }
  auto results = run_bench_phase(app, o);
  app.out(render_bench_table(results, app.style_stdout()));
  if (args.vulkan) {  // beside the framework rows; no Vulkan device is a line, not an exit code
    VulkanPhaseOptions vo;
    vo.quick = args.quick;
    vo.framework = results;
    auto phase = run_vulkan_phase(app, vo);
    results.insert(results.end(), phase.results.begin(), phase.results.end());
  }
  return finish_command(app, report, results);
}

// ---------------------------------------------------------------- options

CLI::App* add_bench_command(CLI::App& cli, BenchArgs& args) {
  auto* bench = cli.add_subcommand(
      "bench", "GEMM by dtype, memory bandwidth, host<->device copies, launch and sync latency");
  bench->add_flag("--quick", args.quick, "fewer sizes, shorter timing");
  bench->add_flag("--list", args.list, "list the benchmarks and exit");
  bench
      ->add_option("--filter", args.filters,
                   "select by group (gemm, memory, transfer, launch), name, dtype or key part")
      ->delimiter(',');
  bench->add_flag("--no-cpu", args.no_cpu, "skip the CPU twin of the device benchmarks");
  bench->add_flag("--no-isolate", args.no_isolate, "run in this process (debugging)");
  bench->add_flag(
      "--vulkan", args.vulkan,
      "the Vulkan compute ceiling of every Vulkan device (alone; with --filter, beside those rows)");
  bench->add_option("--from", args.from,
                    "with --vulkan: compare the ceiling with the framework rows of a saved report.json "
                    "(accel-doctor bench --json) instead of measuring them now");
  return bench;
}

}  // namespace accel::cli
