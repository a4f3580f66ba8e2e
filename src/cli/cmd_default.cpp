// The default run (`accel-doctor` with no command): the whole diagnosis in
// one go. env, a representative set of operator checks, quick benchmarks, the
// Vulkan ceiling of every Vulkan GPU (docs/vulkan.md), ONNX Runtime on its GPU
// provider when one is found (docs/onnxruntime.md) and
// a small LLM prefill/decode, then the rules engine's findings and a verdict.
#include <fmt/format.h>

#include <iostream>

#include "cli/app.hpp"
#include "cli/cmd_multi.hpp"
#include "cli/phases.hpp"
#include "core/machine_context.hpp"
#include "core/multi/launch.hpp"
#include "core/report/console.hpp"
#include "core/report/multi_tables.hpp"
#include "platform/crash_handler.hpp"
#include "platform/interrupt.hpp"
#include "platform/probes.hpp"

namespace accel::cli {

namespace {

/// The checks of the default run: every fp32 and integer check, plus the
/// fp16/bf16 variants of the categories where half precision takes its own
/// library path on a GPU (GEMM/linear algebra, convolution, normalisation,
/// attention). `accel-doctor ops` runs the whole catalog.
const std::vector<std::string> kDefaultOpsFilters{
    "/fp32",       "/int64",    "/int32",    "/int8",         "/bool",  // key suffixes: the dtype
    "ops/linalg/", "ops/conv/", "ops/norm/", "ops/attention/"};         // key prefixes: the category

/// The row that stands for a whole phase of the default run ("doctor/ops").
Result phase_row(const std::string& phase, const std::string& device, Status status, std::string reason) {
  Result r;
  r.key = "doctor/" + phase;
  r.kind = ResultKind::phase;
  r.name = phase;
  r.category = phase;
  r.device = device;
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

/// Runs one phase; an exception is recorded as an error result (so it is in
/// the report and the findings) and the run goes on.
template <typename Fn>
std::vector<Result> fenced(App& app, const std::string& phase, const std::string& device, Fn&& fn) {
  platform::set_crash_phase(("the default run's " + phase + " phase").c_str());
  if (platform::interrupted()) {  // Ctrl-C in an earlier phase: the rest is not run
    return {phase_row(phase, device, Status::skipped, "not run: interrupted")};
  }
  try {
    return fn();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    app.clear_status();
    std::cerr << "accel-doctor: the " << phase << " phase failed: " << app.scrub(e.what())
              << " (the other phases go on)\n";
    Result r = phase_row(phase, device, Status::error, "the phase stopped before it finished");
    r.error = ErrorInfo{e.what(), "", "", "", ""};
    return {r};
  }
}

/// The Vulkan ceiling of every Vulkan GPU (software devices are listed, not
/// measured), joined with the framework's bench rows; no loader, no device or
/// no GPU is one line and a skipped row, never the run's exit code.
std::vector<Result> vulkan_ceiling_phase(App& app, const std::vector<Result>& bench,
                                         const std::string& device) {
  return fenced(app, "vulkan", device, [&] {
    VulkanPhaseOptions o;
    o.quick = true;
    o.gpus_only = true;
    o.framework = bench;
    return run_vulkan_phase(app, o).results;
  });
}

/// Several GPUs that torch sees: their peer access and copies and the
/// collectives over all of them (docs/multi.md), a short sweep. Nothing with
/// one GPU or the CPU, nor in a process a launcher started as one rank.
std::vector<Result> multi_gpu_phase(App& app, const Environment& env, const MachineContext& machine,
                                    const std::string& device) {
  const auto gpus = std::count_if(env.devices.begin(), env.devices.end(),
                                  [](const DeviceInfo& d) { return d.id.rfind("cuda:", 0) == 0; });
  if (gpus < 2) return {};
  try {
    if (multi::detect_launch(platform::environment_entries()).distributed()) return {};
  } catch (const multi::LaunchError&) {
    return {};  // a launcher's variables that do not add up: `multi` says why
  }
  return fenced(app, "multi", device, [&] {
    engine::MultiRequest q;
    q.device = "cuda";
    q.quick = true;
    q.sizes_bytes = {8.0 * 1024 * 1024, 256.0 * 1024 * 1024};
    std::string note;
    engine::MultiOptions o = engine::resolve_multi_request(q, env, {}, note);
    o.machine = machine;
    app.out("\n" + render_topology(env, app.style_stdout()));
    app.out(fmt::format("Several GPUs: {} (`accel-doctor multi` runs the whole sweep).\n", note));
    auto rows = run_multi_phase(app, o);
    app.out(render_multi_tables(rows, app.style_stdout()));
    return rows;
  });
}

/// The default run with no engine to measure with: the environment (already
/// printed) and the rules over it, with each phase that could not run
/// recorded as `skipped` and why (the rules turn that into a finding).
int diagnose_without_engine(App& app, Report& report) {
  const std::string why = engine::engine_missing_message(app.engine_search());
  app.out(fmt::format("\nNothing measured: {}\n", why));
  for (const char* phase : {"ops", "bench", "llm"}) {
    Result r = phase_row(phase, "", Status::skipped, "not measured: no torch engine");
    r.evidence["engine_missing"] = why;
    report.results.push_back(r);
  }
  // The Vulkan ceiling and ONNX Runtime need no torch: measured anyway.
  const auto vk = vulkan_ceiling_phase(app, {}, "");
  report.results.insert(report.results.end(), vk.begin(), vk.end());
  const auto ort = fenced(app, "onnxruntime", "", [&] { return run_ort_phase(app, "cpu"); });
  report.results.insert(report.results.end(), ort.begin(), ort.end());
  platform::set_crash_phase("diagnosis and report");
  report.context.environment = app.environment();
  const int rc = report_diagnosis(app, report);
  app.write_json_if_requested();
  return rc;
}

}  // namespace

int cmd_default(App& app) {
  Report& report = app.report("doctor");
  Environment& env = app.environment();
  const DeviceChoice& choice = app.device_choice();
  const std::string device = choice.chosen;
  const bool on_cpu = device == "cpu";
  const ConsoleStyle style = app.style_stdout();
  app.out(render_environment(env, style));
  const MachineContext machine = machine_context_of(env, device);
  auto keep = [&](const std::vector<Result>& rs) {
    report.results.insert(report.results.end(), rs.begin(), rs.end());
  };

  if (app.engine_search().path.empty()) return diagnose_without_engine(app, report);

  // 1. Operators.
  app.out(fmt::format("\nChecking operators on {} ({}).\n", device, choice.reason));
  OpsArgs ops_args;
  ops_args.quick = true;
  ops_args.filters = kDefaultOpsFilters;
  auto ops = fenced(app, "ops", device, [&] {
    const engine::OpsOptions o = ops_options(app, ops_args);
    return run_ops_phase(app, o, /*measure_bandwidth=*/false);
  });

  const std::string problems = render_check_problems_brief(ops, style);
  if (!problems.empty()) app.out("\n" + problems);
  app.out(
      "\n" + wrap_to_width(checks_summary_line(ops, device), style.width) +
      "\n(`accel-doctor ops` runs the whole catalog with every dtype; --html FILE shows the matrix.)\n\n");
  // 2. Benchmarks (their copy bandwidth is also the checks' roofline ceiling).
  app.out(fmt::format("Benchmarking {} (GEMM, memory, {}launch).\n", device,
                      on_cpu ? "" : "host<->device copies, "));
  auto bench = fenced(app, "bench", device, [&] {
    engine::BenchOptions o;
    o.device = device;
    o.quick = true;
    o.cpu_twin = !on_cpu;
    o.machine = machine;
    return run_bench_phase(app, o);
  });
  app.apply_rooflines(ops, bench);
  keep(ops);
  keep(bench);
  app.out(render_bench_table(bench, style));
  keep(vulkan_ceiling_phase(app, bench, device));
  // ONNX Runtime on its GPU provider, when a runtime with one is found (docs/onnxruntime.md).
  keep(fenced(app, "onnxruntime", device, [&] { return run_ort_phase(app, device); }));

  // 3. A small LLM: prefill and decode with a KV cache.
  auto llm = fenced(app, "llm", device, [&] {
    engine::LlmOptions o;
    o.device = device;
    o.quick = true;
    if (!on_cpu) o.preset = "qwen2.5-0.5b";
    o.machine = machine;
    o.ceilings = bench;  // the GEMM and memory ceilings are the bench rows above
    const engine::LlmOptions resolved = app.engine().plan_llm(o).resolved;
    app.out(fmt::format(
        "\nLLM on {}: {} preset ({}, random weights), prompt {}, {} new tokens{}.\n", device, resolved.preset,
        resolved.dtype, fmt::join(resolved.prompts, ","), fmt::join(resolved.gens, ","),
        on_cpu ? "" : fmt::format("; vs CPU with the {} preset on both", resolved.cpu_preset)));
    return run_llm_phase(app, o);
  });
  keep(llm);
  app.out(render_llm_table(llm, style));
  keep(multi_gpu_phase(app, env, machine, device));

  platform::set_crash_phase("diagnosis and report");
  // 4. Findings and the verdict (the rules read the environment from the report).
  report.context.environment = env;
  const int rc = report_diagnosis(app, report);
  app.write_json_if_requested();
  return rc;
}

}  // namespace accel::cli
