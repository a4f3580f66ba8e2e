// `bench --vulkan`: the Vulkan compute ceiling (engines/vulkan, issue 13) in
// the front end, joined with the framework's bench rows of the same run.
#include <fmt/format.h>

#include <iostream>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "engines/vulkan/ceiling.hpp"

namespace accel::cli {

VulkanPhase run_vulkan_phase(App& app, const std::vector<Result>& framework, bool quick) {
  VulkanPhase phase;
  app.status("Vulkan ceiling: measuring every Vulkan device ...");
  vulkan::Options o;
  o.quick = quick;
  vulkan::Run run = vulkan::run(o);
  app.clear_status();
  vulkan::attach_framework_ratios(run.results, framework, app.environment());
  try {
    if (const std::string dir = find_kb_dir(); !dir.empty()) {
      vulkan::attach_datasheet(run.results, GpuPeakTable::load(dir));
    }
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: datasheet peaks unavailable: " << e.what() << "\n";
  }
  for (const auto& r : run.results) phase.measured = phase.measured || r.status == Status::ok;
  if (run.results.empty()) {
    // The clear line in the report: one skipped row that says why.
    Result r;
    r.key = "bench/vulkan/ceiling/none/-/-";
    r.kind = "bench";
    r.name = "ceiling";
    r.category = "vulkan";
    r.status = Status::skipped;
    r.reason = "Vulkan ceiling not measured: " + run.error;
    run.results.push_back(r);
  }
  app.out("\n" + vulkan::render(run));
  phase.results = std::move(run.results);
  return phase;
}

int cmd_bench_vulkan_only(App& app, const BenchArgs& args) {
  Report& report = app.report("bench");
  VulkanPhase phase = run_vulkan_phase(app, {}, args.quick);
  if (!phase.measured) {
    report.results.insert(report.results.end(), phase.results.begin(), phase.results.end());
    app.write_json_if_requested();
    return kExitUsage;  // --vulkan was the whole request and nothing could be measured
  }
  return finish_command(app, report, phase.results);
}

}  // namespace accel::cli
