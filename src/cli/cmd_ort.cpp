// `accel-doctor ort` and the default run's ONNX Runtime phase: the ONNX
// Runtime engine (engines/onnxruntime, issue 12) in the front end. Its rows
// are ordinary check and bench Results (keys ort/... and bench/ort-...), so
// compare, report and diagnose work on them unchanged.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>

#include "cli/app.hpp"
#include "cli/environment.hpp"
#include "cli/phases.hpp"
#include "core/ceilings.hpp"
#include "core/machine_context.hpp"
#include "core/peaks.hpp"
#include "core/report/console.hpp"
#include "core/report/findings.hpp"
#include "engine_api/busy_sampled_engine.hpp"
#include "engines/onnxruntime/engine.hpp"
#include "platform/interrupt.hpp"

namespace accel::cli {

namespace {

bool writer_forced_by_env() {
  const char* v = std::getenv("ACCEL_DOCTOR_ORT_WRITER");
  return v && std::string(v) == "1";
}

ort::EngineOptions engine_options(App& app, const Environment& env, const OrtArgs& args) {
  ort::EngineOptions o;
  o.search.explicit_path = app.options().onnxruntime_path;
  o.search.python = app.options().python_path;
  o.device = args.device.empty() ? app.options().device : args.device;
  o.quick = args.quick;
  o.filters = args.filters;
  o.force_writer = args.protobuf_writer || writer_forced_by_env();
  o.cpu_twin = !args.no_cpu;
  o.workloads = !args.no_workloads;
  o.kb = &app.kb();
  o.machine = machine_context_of(env, "cpu");
  o.windows = env.windows ? &*env.windows : nullptr;
  o.interrupted = [] { return platform::interrupted(); };
  return o;
}

/// Runs the engine with the front end's GPU busy sampler around it: each
/// row on a GPU provider gets what the GPU did while it ran (`gpu_busy`, as
/// the torch engine's rows do; rows on the CPU provider get none).
ort::EngineRun run_sampled(App& app, const Environment& env, ort::EngineOptions o) {
  engine::RunCallbacks progress;
  progress.on_start = [&app](const engine::ItemInfo& item, std::size_t i, std::size_t n) {
    app.item_started(item.key, i, n);
  };
  progress.on_result = [&app](const Result& r) { app.item_finished(r); };
  ort::EngineRun run;
  const auto factory =
      o.device == "cpu" ? engine::GpuBusySamplerFactory() : app.gpu_busy_sampler_factory(&env.gpus);
  auto results = engine::run_gpu_busy_sampled(factory, progress, [&](const engine::RunCallbacks& cb) {
    o.on_start = [&cb](const std::string& key, std::size_t i, std::size_t n) {
      engine::ItemInfo item;
      item.key = key;
      if (cb.on_start) cb.on_start(item, i, n);
    };
    o.on_result = cb.on_result;
    run = ort::run_engine(o);
    return run.results;
  });
  run.results = std::move(results);
  return run;
}

/// Rooflines: the CPU from this host's estimate (build_ceilings), a GPU
/// provider's device from the datasheet row of its EP device's name.
void apply_ort_rooflines(std::vector<Result>& results, const Environment& env) {
  std::optional<GpuPeakTable> table;
  try {
    if (const std::string dir = find_kb_dir(); !dir.empty()) table = GpuPeakTable::load(dir);
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: datasheet peaks unavailable: " << e.what() << "\n";
  }
  auto ceilings = build_ceilings(env, results, {}, table ? &*table : nullptr);
  if (env.onnxruntime && table && env.onnxruntime->device != "cpu") {
    const OnnxRuntimeInfo& info = *env.onnxruntime;
    std::string name;
    for (const auto& d : info.ep_devices) {
      if (d.type == "gpu" &&
          (info.device == fmt::format("dml:{}", d.dxgi_adapter_number.value_or(-1)) || name.empty()))
        name = d.name;
    }
    if (!name.empty()) {
      DeviceCeilings c;
      c.device = info.device;
      GpuProperties gpu;
      gpu.name = name;
      for (const char* dt : {"fp32", "fp16"}) c.compute[dt] = device_compute_peak(*table, gpu, dt);
      c.datasheet_bandwidth = device_bandwidth_peak(*table, gpu);
      ceilings.push_back(c);
    }
  }
  annotate_rooflines(results, ceilings);
}

/// The environment `ort` reports: the platform probes, and the ONNX Runtime
/// it found; torch is not asked (the torch engine is not started).
Environment ort_environment(App& app) {
  EngineAbsence absent;
  absent.kind = EngineAbsence::Kind::failed;
  absent.why = "not asked: `accel-doctor ort` measures with ONNX Runtime, not torch";
  return collect_environment(app.kb(), nullptr, absent);
}

}  // namespace

int cmd_ort(App& app, const OrtArgs& args) {
  Report& report = app.report("ort");
  Environment env = ort_environment(app);
  ort::EngineOptions o = engine_options(app, env, args);
  if (args.list) {
    for (const auto& item : ort::plan(o)) {
      app.out(fmt::format("{:<48} {:<16} {}\n", item.key, item.category, item.flops_formula));
    }
    return kExitHealthy;
  }
  report.context.environment = env;  // the JSON Lines context line, written with the first row
  app.status("ONNX Runtime: looking for the runtime ...");
  ort::EngineRun run = run_sampled(app, env, o);
  app.clear_status();
  env.onnxruntime = run.info;
  report.context.environment = env;
  if (!run.setup_error.empty()) throw UsageError(run.setup_error);
  const ConsoleStyle style = app.style_stdout();
  app.out(ort::render_summary(run));
  apply_ort_rooflines(run.results, env);
  std::vector<Result> checks, bench;
  for (const auto& r : run.results) (r.kind == ResultKind::bench ? bench : checks).push_back(r);
  if (!checks.empty()) app.out("\n" + render_checks_table(checks, style));
  if (!bench.empty()) app.out("\n" + render_bench_table(bench, style));
  const std::string problems = render_check_problems(checks, style);
  if (!problems.empty()) app.out("\n" + problems);
  // The findings of the ONNX Runtime rules (fallback cost, the integrated
  // GPU, two onnxruntime packages, ...) on this run.
  report.results.insert(report.results.end(), run.results.begin(), run.results.end());
  add_diagnosis(app, report);
  std::vector<Finding> ort_findings;
  for (const auto& f : report.findings) {
    if (f.id.rfind("ort_", 0) == 0) ort_findings.push_back(f);
  }
  if (!ort_findings.empty()) app.out("\n" + render_findings(ort_findings, style));
  report.results.clear();
  return finish_command(app, report, run.results, !problems.empty());
}

std::vector<Result> run_ort_phase(App& app, const std::string& torch_device) {
  Environment& env = app.environment();
  OrtArgs args;
  args.quick = true;
  args.no_workloads = false;
  ort::EngineOptions o = engine_options(app, env, args);
  // The default run measures ONNX Runtime only on a GPU provider: the CPU
  // provider's figures would repeat what the CPU rows already say.
  o.device = "gpu";
  o.gpu_only = true;
  o.machine = machine_context_of(env, torch_device);
  // A representative set: the linear algebra, convolution, normalisation and
  // attention rows, fp32 and fp16, and the workloads.
  o.filters = {"ort/linalg/", "ort/conv/", "ort/norm/", "ort/attention/", "ort/workload/"};
  app.status("ONNX Runtime: looking for a runtime with a GPU provider ...");
  ort::EngineRun run = run_sampled(app, env, o);
  app.clear_status();
  if (!run.runtime_found && app.options().onnxruntime_path.empty()) {
    app.out("\nONNX Runtime: not found (" + run.not_measured + "); not measured.\n");
    return {};
  }
  env.onnxruntime = run.info;
  if (!run.setup_error.empty() && !app.options().onnxruntime_path.empty() && !run.runtime_found) {
    throw UsageError(run.setup_error);
  }
  if (run.results.empty()) {
    app.out(fmt::format("\nONNX Runtime {}: {}; not measured.\n", run.info.version,
                        run.not_measured.empty() ? "nothing selected" : run.not_measured));
    return {};
  }
  app.out("\n" + ort::render_summary(run));
  apply_ort_rooflines(run.results, env);
  const ConsoleStyle style = app.style_stdout();
  std::vector<Result> checks, bench;
  for (const auto& r : run.results) (r.kind == ResultKind::bench ? bench : checks).push_back(r);
  const std::string problems = render_check_problems_brief(checks, style);
  if (!problems.empty()) app.out("\n" + problems);
  app.out("\n" + wrap_to_width(checks_summary_line(checks, run.info.device), style.width) + "\n");
  if (!bench.empty()) app.out(render_bench_table(bench, style));
  return run.results;
}

// ---------------------------------------------------------------- options

CLI::App* add_ort_command(CLI::App& cli, OrtArgs& args) {
  auto* ort = cli.add_subcommand(
      "ort",
      "ONNX Runtime op checks and workloads: which provider ran each node (profile), CPU fallback and its "
      "cost, "
      "correctness vs the CPU provider, time (--device auto|cpu|gpu|dml[:N]|cuda[:N]|webgpu)");
  ort->add_flag("--quick", args.quick, "small shapes, short timing");
  ort->add_flag("--list", args.list, "list the checks and workloads and exit");
  ort->add_option("--filter", args.filters, "keep keys containing one of these (category, name, dtype)")
      ->delimiter(',');
  ort->add_flag("--no-cpu", args.no_cpu, "skip the CPU-provider timing of GPU rows");
  ort->add_flag("--no-workloads", args.no_workloads, "the op checks only");
  ort->add_flag("--protobuf-writer", args.protobuf_writer,
                "build the models with accel-doctor's ONNX writer instead of the Model Editor API (the path "
                "runtimes older than 1.22 take; also ACCEL_DOCTOR_ORT_WRITER=1)");
  return ort;
}

}  // namespace accel::cli
