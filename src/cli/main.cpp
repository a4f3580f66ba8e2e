// accel-doctor: is my accelerator really doing the work, and if it is slow,
// why, and what do I change?
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/app.hpp"
#include "engine/isolation.hpp"

int main(int argc, char** argv) {
  using namespace accel::cli;
  // The hidden worker mode runs checks for a parent process (engine/ops.hpp).
  if (argc >= 2 && std::string(argv[1]) == "__worker") return accel::engine::worker_main();

  CLI::App cli{"accel-doctor: measures whether your accelerator does the work, and explains why not"};
  cli.set_version_flag("--version", std::string(accel::tool_info().version) + " (" + accel::tool_info().commit + ")");
  cli.require_subcommand(0, 1);
  cli.fallthrough();  // global options may follow the subcommand
  GlobalOptions g;
  cli.add_option("--device", g.device, "auto, cpu, cuda, cuda:N (auto: best accelerator, else the CPU)")
      ->capture_default_str();
  cli.add_option("--json", g.json_path, "write the versioned JSON report to FILE ('-' for stdout)");
  cli.add_option("--trace", g.trace_path, "write the Chrome/Perfetto trace of the run to FILE (torch with Kineto)");
  cli.add_flag("-q,--quiet", g.quiet, "print nothing but errors");
  cli.add_flag("--no-color", g.no_color, "no colours (also when NO_COLOR is set)");

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
  auto* bench = cli.add_subcommand("bench", "GEMM by dtype, memory bandwidth, host<->device copies, launch and sync latency");
  bench->add_flag("--quick", bench_args.quick, "fewer sizes, shorter timing");
  bench->add_flag("--list", bench_args.list, "list the benchmarks and exit");
  bench->add_option("--filter", bench_args.filters, "select by group (gemm, memory, transfer, launch), name, dtype or key part")
      ->delimiter(',');
  bench->add_flag("--no-cpu", bench_args.no_cpu, "skip the CPU twin of the device benchmarks");
  bench->add_flag("--no-isolate", bench_args.no_isolate, "run in this process (debugging)");

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
  explain->add_option("--from", explain_args.from,
                      "take the machine from a saved report.json (accel-doctor --json)");
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
  llm->add_option("--batch", llm_args.batches, "batch sizes (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  llm->add_option("--prompt", llm_args.prompts, "prompt lengths (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--gen", llm_args.gens, "new tokens (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--cpu-preset", llm_args.cpu_preset, "the preset run on device and CPU for the speed-up");
  llm->add_flag("--no-cpu", llm_args.no_cpu, "skip the CPU comparison");
  llm->add_flag("--no-graphs", llm_args.no_graphs, "skip the graph-replay decode");
  llm->add_flag("--no-isolate", llm_args.no_isolate, "run in this process (debugging)");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = cli.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }

  App app(g, std::vector<std::string>(argv, argv + argc));
  try {
    if (*env) return cmd_env(app);
    if (*ops) return cmd_ops(app, ops_args);
    if (*bench) return cmd_bench(app, bench_args);
    if (*llm) return cmd_llm(app, llm_args);
    if (*explain) return cmd_explain(app, explain_args);
    return cmd_default(app);
  } catch (const UsageError& e) {
    std::cerr << "accel-doctor: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}
