// accel-doctor: is my accelerator really doing the work, and if it is slow,
// why, and what do I change?
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/app.hpp"
#include "cli/cmd_multi.hpp"
#include "platform/crash_handler.hpp"
#include "platform/interrupt.hpp"

int main(int argc, char** argv) {
  using namespace accel::cli;
  accel::platform::install_crash_handler();

  CLI::App cli{"accel-doctor: measures whether your accelerator does the work, and explains why not"};
  cli.set_version_flag("--version",
                       std::string(accel::tool_info().version) + " (" + accel::tool_info().commit + ")");
  // Options are --name everywhere; on Windows CLI11 would also take "/name",
  // which makes a root-relative path ("/data/run.log") an unknown option.
  // Set before the subcommands, which inherit it.
  cli.allow_windows_style_options(false);
  cli.require_subcommand(0, 1);
  cli.fallthrough();  // global options may follow the subcommand
  GlobalOptions g;
  cli.add_option(
         "--device", g.device,
         "auto, cpu, cuda, cuda:N, xpu, dml[:N] (torch-directml), privateuseone:N (auto: best accelerator, "
         "else the CPU); `ort` also takes gpu, dml, dml:N (DirectML device_id = DXGI adapter index) and "
         "webgpu")
      ->capture_default_str();
  cli.add_option("--json", g.json_path, "write the versioned JSON report to FILE ('-' for stdout)");
  cli.add_option("--trace", g.trace_path,
                 "write the Chrome/Perfetto trace of the run to FILE (torch with Kineto)");
  cli.add_option("--engine", g.engine_path,
                 "the torch engine (accel-doctor-torch) that measures; default: the one beside accel-doctor");
  cli.add_option(
      "--python", g.python_path,
      "measure with the torch of this Python interpreter (its accel_doctor package: pip install .); "
      "default: the engine beside accel-doctor, else python3/python on PATH with accel_doctor");
  cli.add_option(
      "--import", g.imports,
      "Python engine: import MODULE first (a plugin that registers a device, e.g. torch_directml); "
      "repeatable");
  cli.add_option(
      "--onnxruntime", g.onnxruntime_path,
      "the ONNX Runtime library (libonnxruntime.so.1, onnxruntime.dll) for `ort` and the default run; "
      "default: the library path, then an onnxruntime Python package's capi/ folder");
  cli.add_flag("-q,--quiet", g.quiet, "print nothing but errors");
  cli.add_flag("--no-color", g.no_color, "no colours (also when NO_COLOR is set)");
  cli.add_flag(
      "--redact", g.redact,
      "remove host and user names, home paths, serial numbers, UUIDs and IP/MAC addresses from every "
      "output (to share a report)");
  cli.add_option("--html", g.html_path,
                 "write a self-contained HTML report with charts to FILE (opens offline)");
  std::string format_name(to_string(g.format));
  cli.add_option("--format", format_name,
                 "standard output: text (tables), md (Markdown summary for an issue thread), "
                 "jsonl (one JSON object per line as results finish)")
      ->check(CLI::IsMember(
          std::vector<std::string>(std::begin(kOutputFormatNames), std::end(kOutputFormatNames))))
      ->capture_default_str();
  cli.add_option("--repeat", g.repeat,
                 "measuring commands: run each suite N times, each in its own engine process, and merge the "
                 "results (median of the N medians; `compare` then uses their spread)")
      ->check(CLI::Range(1, 100));

  auto* env = cli.add_subcommand("env", "devices, drivers, torch build, CPU BLAS and environment variables");
  OpsArgs ops_args;
  auto* ops = cli.add_subcommand("ops", "operator checks: device, correctness vs CPU float64, time vs CPU");
  ops->add_flag("--quick", ops_args.quick, "fewer repeats");
  ops->add_flag("--list", ops_args.list, "list the checks and exit");
  ops->add_option("--filter", ops_args.filters, "select checks by category, name, dtype or key part")
      ->delimiter(',');
  ops->add_flag("--no-isolate", ops_args.no_isolate, "run checks in this process (debugging)");
  ops->add_flag("--no-profile", ops_args.no_profile, "skip the profiler capture of each check");
  ops->add_option("--check-timeout", ops_args.check_timeout_s, "seconds per check before it is 'hung'")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);

  BenchArgs bench_args;
  auto* bench = cli.add_subcommand(
      "bench", "GEMM by dtype, memory bandwidth, host<->device copies, launch and sync latency");
  bench->add_flag("--quick", bench_args.quick, "fewer sizes, shorter timing");
  bench->add_flag("--list", bench_args.list, "list the benchmarks and exit");
  bench
      ->add_option("--filter", bench_args.filters,
                   "select by group (gemm, memory, transfer, launch), name, dtype or key part")
      ->delimiter(',');
  bench->add_flag("--no-cpu", bench_args.no_cpu, "skip the CPU twin of the device benchmarks");
  bench->add_flag("--no-isolate", bench_args.no_isolate, "run in this process (debugging)");
  bench->add_flag(
      "--vulkan", bench_args.vulkan,
      "the Vulkan compute ceiling of every Vulkan device (alone; with --filter, beside those rows)");
  bench->add_option("--from", bench_args.from,
                    "with --vulkan: compare the ceiling with the framework rows of a saved report.json "
                    "(accel-doctor bench --json) instead of measuring them now");

  ExplainArgs explain_args;
  auto* explain = cli.add_subcommand("explain",
                                     "recognise the causes of errors in a log or traceback (FILE, or "
                                     "standard input) and say what to change");
  explain->add_option("file", explain_args.file,
                      "log or traceback to read; '-' or nothing reads standard input");
  explain->add_option("--arch", explain_args.arch,
                      "GPU architecture of the machine that failed: gfx1032, sm_86, ...");
  explain->add_option("--os", explain_args.os, "its OS: linux, windows, macos, wsl (free text accepted)");
  explain->add_option("--backend", explain_args.backend,
                      "its torch backend: rocm, cuda, directml, mps, xpu, cpu");
  explain->add_option("--gpu", explain_args.gpu, "its GPU name(s), e.g. 'RX 6600 + Vega iGPU'");
  explain->add_option("--versions", explain_args.versions,
                      "versions, e.g. 'torch 2.4.0+cu121, driver 535.104'");
  explain->add_option("--env", explain_args.env, "NAME=VALUE of its environment (repeatable)");
  auto* explain_from = explain->add_option("--from", explain_args.from,
                                           "take the machine from a saved report.json (accel-doctor --json)");
  explain
      ->add_flag("--here", explain_args.here,
                 "take the machine from this computer's probes (OS, GPUs and archs, drivers, GPU "
                 "environment variables; no torch engine is started)")
      ->excludes(explain_from);
  explain->add_flag("--json", explain_args.json, "print the diagnoses as JSON on standard output");

  LlmArgs llm_args;
  auto* llm =
      cli.add_subcommand("llm", "LLM prefill and decode with a KV cache (llama-bench names: pp512, tg128)");
  llm->add_flag("--quick", llm_args.quick, "small grid (tiny preset on the CPU)");
  llm->add_flag("--list", llm_args.list, "list the items and exit");
  llm->add_option("--preset", llm_args.preset,
                  "tiny, qwen2.5-0.5b, llama-3.2-1b, llama-3.2-3b, llama-3.1-8b");
  llm->add_option("--weights", llm_args.weights,
                  "a Hugging Face checkpoint folder (config.json + .safetensors)")
      ->check(CLI::ExistingDirectory);
  llm->add_option("--dtype", llm_args.dtype, "fp32, fp16 or bf16 (default: bf16 on a GPU, fp32 on the CPU)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  llm->add_option("--attention", llm_args.attention, "sdpa, math or auto")
      ->check(CLI::IsMember({"sdpa", "math", "auto"}));
  llm->add_option("--sdpa-backend", llm_args.sdpa_backend,
                  "the SDPA backend: auto (torch's choice), flash, efficient, cudnn or math; a backend that "
                  "cannot run a row fails it (flash takes no mask: graph decode needs one)")
      ->check(CLI::IsMember({"auto", "flash", "efficient", "cudnn", "math"}));
  llm->add_option("--batch", llm_args.batches, "batch sizes (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  llm->add_option(
         "--prompt", llm_args.prompts,
         "prompt lengths (comma list; default 128,512,2048 on a GPU, 128,512 on the CPU, 128 with --quick)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--gen", llm_args.gens, "new tokens (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--cpu-preset", llm_args.cpu_preset, "the preset run on device and CPU for the speed-up");
  llm->add_flag("--no-cpu", llm_args.no_cpu, "skip the CPU comparison");
  llm->add_flag("--no-graphs", llm_args.no_graphs, "skip the graph-replay decode");
  llm->add_flag("--no-isolate", llm_args.no_isolate, "run in this process (debugging)");

  TrainArgs train_args;
  auto* train = cli.add_subcommand(
      "train",
      "training steps (MLP, residual CNN on MNIST-shaped data): fp32/fp16/bf16, batch sweep, per-step costs");
  train->add_flag("--quick", train_args.quick,
                  "small and fast (batch 32 and a short sweep on the CPU, 20 steps)");
  train->add_flag("--list", train_args.list, "list the items and exit");
  train
      ->add_option("--data", train_args.data,
                   "a folder with the MNIST IDX files (train-images-idx3-ubyte, ...)")
      ->check(CLI::ExistingDirectory);
  train->add_option("--model", train_args.models, "mlp, cnn (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"mlp", "cnn"}));
  train
      ->add_option("--precision", train_args.precisions,
                   "fp32, fp16, bf16 (comma list; fp16/bf16 use autocast)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  train->add_option("--batch", train_args.batches, "batch sizes of the step rows (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 24));
  train
      ->add_option("--steps", train_args.steps,
                   "steps of the loss-agreement runs (default 100, 20 with --quick)")
      ->check(CLI::Range(2, 100000));
  train->add_option("--sweep-min", train_args.sweep_min, "first batch of the sweep")
      ->check(CLI::Range(1, 1 << 24));
  train
      ->add_option("--sweep-max", train_args.sweep_max,
                   "largest batch the sweep tries (it doubles up to this)")
      ->check(CLI::Range(1, 1 << 26));
  train->add_option("--filter", train_args.filters, "keep items whose key contains one of these (comma list)")
      ->delimiter(',');
  train->add_option(
      "--inject-oom-above-bytes", train_args.inject_oom_above_bytes,
      "testing: a step estimated above N bytes throws torch's out-of-memory error (reported as injected)");
  train->add_flag("--no-sweep", train_args.no_sweep, "skip the batch-size sweep");
  train->add_flag("--no-item-cost", train_args.no_item_cost, "skip the per-step loss.item() cost");
  train->add_flag("--no-cpu", train_args.no_cpu, "skip the CPU comparison");
  train->add_flag("--no-isolate", train_args.no_isolate, "run in this process (debugging)");

  OrtArgs ort_args;
  auto* ort = cli.add_subcommand(
      "ort",
      "ONNX Runtime op checks and workloads: which provider ran each node (profile), CPU fallback and its "
      "cost, "
      "correctness vs the CPU provider, time (--device auto|cpu|gpu|dml[:N]|cuda[:N]|webgpu)");
  ort->add_flag("--quick", ort_args.quick, "small shapes, short timing");
  ort->add_flag("--list", ort_args.list, "list the checks and workloads and exit");
  ort->add_option("--filter", ort_args.filters, "keep keys containing one of these (category, name, dtype)")
      ->delimiter(',');
  ort->add_flag("--no-cpu", ort_args.no_cpu, "skip the CPU-provider timing of GPU rows");
  ort->add_flag("--no-workloads", ort_args.no_workloads, "the op checks only");
  ort->add_flag("--protobuf-writer", ort_args.protobuf_writer,
                "build the models with accel-doctor's ONNX writer instead of the Model Editor API (the path "
                "runtimes older than 1.22 take; also ACCEL_DOCTOR_ORT_WRITER=1)");

  ReportArgs report_args;
  auto* report = cli.add_subcommand(
      "report",
      "render saved JSON reports (--from, repeatable: merged into one) as --html, --format md|jsonl|text");
  // Not CLI::ExistingFile: a file that cannot be read gets the same message
  // from report, diagnose and compare (read_report_file: path and reason).
  report->add_option("--from", report_args.from, "a report.json written by --json (repeatable)")->required();

  DiagnoseArgs diagnose_args;
  auto* diagnose_cmd = cli.add_subcommand(
      "diagnose", "findings (ranked, with the fix for this platform) and a verdict for a saved report");
  diagnose_cmd->add_option("--from", diagnose_args.from, "a report.json written by --json");
  diagnose_cmd->add_flag("--list", diagnose_args.list, "list the rules and what triggers each");

  CompareArgs compare_args;
  auto* compare = cli.add_subcommand(
      "compare",
      "what got faster, slower, newly failing or fixed between two reports (exit 1 on a regression)");
  compare->add_option("A", compare_args.a, "the earlier report.json (before the upgrade)")->required();
  compare->add_option("B", compare_args.b, "the later report.json (after the upgrade)")->required();
  compare->add_flag("--json", compare_args.json, "print the comparison as JSON on standard output");
  compare
      ->add_option("--min-change", compare_args.min_change_pct,
                   "smallest change that counts, in percent (the noise threshold is at least this)")
      ->capture_default_str();

  MultiArgs multi_args;
  auto* multi = add_multi_command(cli, multi_args);

  // Subcommand help lists only its own options: say where the global ones are.
  for (auto* sub : cli.get_subcommands([](CLI::App*) { return true; })) {
    sub->footer(
        "Global options (before or after the command): --device, --engine PATH, --python PATH, --import "
        "MODULE, --onnxruntime PATH, --json FILE, --html FILE, "
        "--format "
        "text|md|jsonl, --trace FILE, --repeat N, --quiet, --no-color, --redact; "
        "`accel-doctor --help` explains them.");
  }
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0) std::cerr << "accel-doctor: ";  // usage errors carry the tool's name
    const int rc = cli.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }

  g.format = *output_format_from_string(format_name);  // CLI11 checked the name
  App app(g, std::vector<std::string>(argv, argv + argc));
  try {
    if (g.format != OutputFormat::text && g.json_path == "-") {
      throw UsageError(
          fmt::format("--format {} owns standard output; write the JSON report to a file (--json FILE)",
                      to_string(g.format)));
    }
    if (g.redact && !g.trace_path.empty()) {
      throw UsageError(
          "--trace writes the profiler's raw trace (paths, process and thread names), which --redact cannot "
          "vouch for; leave --trace out of a run you want to share");
    }
    if (!g.trace_path.empty() && (*env || *bench || *llm || *train || *ort || *explain || *report ||
                                  *diagnose_cmd || *compare || *multi)) {
      throw UsageError(
          "--trace records the profiler trace of the operator checks: use it with `ops` or the "
          "default run");
    }
    if (g.repeat > 1 && (*env || *ort || *explain || *report || *diagnose_cmd || *compare || *multi)) {
      throw UsageError(
          "--repeat repeats measurements: use it with ops, bench, llm, train or the default run");
    }
    // Output files are checked before anything is measured, not after.
    for (const auto& [what, path] : {std::pair<const char*, std::string>{"--json", g.json_path},
                                     {"--html", g.html_path},
                                     {"--trace", g.trace_path}}) {
      if (path.empty() || path == "-") continue;
      std::error_code ec;
      const bool existed = std::filesystem::exists(path, ec);
      {
        std::ofstream probe(path, std::ios::app);
        if (!probe)
          throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, std::strerror(errno)));
      }
      if (!existed) std::filesystem::remove(path, ec);
    }
    if (!g.onnxruntime_path.empty() && !std::filesystem::exists(g.onnxruntime_path)) {
      throw UsageError(fmt::format("--onnxruntime {}: no such file", g.onnxruntime_path));
    }
    if (!g.onnxruntime_path.empty() &&
        (*env || *ops || *bench || *llm || *train || *explain || *report || *diagnose_cmd || *compare)) {
      throw UsageError("--onnxruntime names the runtime of `ort` and the default run");
    }
    if (*env) return cmd_env(app);
    // Ctrl-C while measuring stops the engine, keeps what was measured,
    // writes the partial report and exits 130 (platform/interrupt.hpp).
    accel::platform::install_interrupt_handler();
    auto measured = [&](int rc) -> int {
      if (!accel::platform::interrupted()) return rc;
      std::cerr << "accel-doctor: interrupted: the report holds what was measured; the rest is marked "
                   "skipped (interrupted)\n";
      return kExitInterrupted;
    };
    if (*ops) return measured(cmd_ops(app, ops_args));
    if (*bench) return measured(cmd_bench(app, bench_args));
    if (*llm) return measured(cmd_llm(app, llm_args));
    if (*train) return measured(cmd_train(app, train_args));
    if (*multi) return measured(cmd_multi(app, multi_args));
    if (*ort) return measured(cmd_ort(app, ort_args));
    if (*explain) {
      if (g.format != OutputFormat::text || !g.html_path.empty()) {
        throw UsageError(
            "explain writes text or --json; --format and --html apply to measuring commands and report");
      }
      return cmd_explain(app, explain_args);
    }
    if (*report) return cmd_report(app, report_args);
    if (*diagnose_cmd) return cmd_diagnose(app, diagnose_args);
    if (*compare) return cmd_compare(app, compare_args);
    return measured(cmd_default(app));
  } catch (const UsageError& e) {
    std::cerr << "accel-doctor: " << app.scrub(e.what()) << "\n";
    return kExitUsage;
  } catch (const accel::engine::EngineError& e) {
    if (accel::platform::interrupted()) {  // stopped while asking the engine: keep what there is
      std::cerr << "accel-doctor: interrupted\n";
      try {
        app.write_json_if_requested();
      } catch (const std::exception&) {
      }
      return kExitInterrupted;
    }
    // An engine that cannot start, refuses or speaks another protocol is a
    // set-up problem of this machine, not a bug of accel-doctor.
    std::cerr << "accel-doctor: set-up error: the torch engine: " << app.scrub(e.what()) << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: internal error: " << app.scrub(e.what()) << "\n";
    return kExitInternal;
  }
}
