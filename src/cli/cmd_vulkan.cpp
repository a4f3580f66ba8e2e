// `bench --vulkan` and the default run's ceiling phase: the Vulkan compute
// ceiling (engines/vulkan, issue 13) in the front end, joined with the
// framework's bench rows of the same run or of a saved report (--from).
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "engines/vulkan/ceiling.hpp"

namespace accel::cli {

namespace {

Result not_measured_row(const std::string& why) {
  Result r;
  r.key = "bench/vulkan/ceiling/none/-/-";
  r.kind = ResultKind::bench;
  r.name = "ceiling";
  r.category = "vulkan";
  r.status = Status::skipped;
  r.reason = "Vulkan ceiling not measured: " + why;
  return r;
}

/// "no Vulkan GPU: only llvmpipe (...), a software device" for a run that found devices but no GPU.
std::string no_gpu_reason(const vulkan::Run& run) {
  std::vector<std::string> names;
  for (const auto& d : run.devices)
    names.push_back(d.name + (d.software ? " (software)" : " (" + d.type + ")"));
  return fmt::format("no Vulkan GPU: the loader lists {}, not a GPU ceiling", fmt::join(names, ", "));
}

}  // namespace

VulkanPhase run_vulkan_phase(App& app, const VulkanPhaseOptions& options) {
  VulkanPhase phase;
  app.status(options.gpus_only ? "Vulkan ceiling: measuring every Vulkan GPU ..."
                               : "Vulkan ceiling: measuring every Vulkan device ...");
  vulkan::Options o;
  o.quick = options.quick;
  o.gpus_only = options.gpus_only;
  if (const char* loader = std::getenv("ACCEL_DOCTOR_VULKAN_LOADER"); loader && *loader) {
    o.loader_names = {loader};
  }
  // kb/gpus.json: the last-level cache that sizes the memory buffers, and the datasheet.
  o.datasheet = app.peaks();
  vulkan::Run run = vulkan::run(o);
  app.clear_status();
  vulkan::attach_framework_ratios(run.results, options.framework,
                                  options.framework_env ? *options.framework_env : app.environment(),
                                  options.source);
  if (o.datasheet) vulkan::attach_datasheet(run.results, *o.datasheet);
  for (const auto& r : run.results) phase.measured = phase.measured || r.status == Status::ok;
  if (run.results.empty()) {
    // The clear line in the report: one skipped row that says why.
    const std::string why = run.devices.empty() ? run.error : no_gpu_reason(run);
    phase.results.push_back(not_measured_row(why));
    app.out("\nVulkan ceiling: not measured: " + why + "\n");
    return phase;
  }
  app.out("\n" + vulkan::render(run));
  phase.results = std::move(run.results);
  return phase;
}

int cmd_bench_vulkan_only(App& app, const BenchArgs& args) {
  Report& report = app.report("bench");
  VulkanPhaseOptions o;
  o.quick = args.quick;
  Report saved;
  if (!args.from.empty()) {
    try {
      saved = read_report_file(args.from);
    } catch (const ReportError& e) {
      throw UsageError(e.what());
    }
    for (const auto& r : saved.results) {
      if (r.kind == ResultKind::bench && !vulkan::is_vulkan_key(r.key)) o.framework.push_back(r);
    }
    if (o.framework.empty()) {
      throw UsageError(
          fmt::format("--from {}: the report has no framework bench rows to compare with", args.from));
    }
    o.framework_env = &saved.context.environment;
    o.source = args.from;
  }
  VulkanPhase phase = run_vulkan_phase(app, o);
  if (!phase.measured) {
    report.results.insert(report.results.end(), phase.results.begin(), phase.results.end());
    app.write_json_if_requested();
    return kExitUsage;  // --vulkan was the whole request and nothing could be measured
  }
  return finish_command(app, report, phase.results);
}

}  // namespace accel::cli
