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

namespace {

/// The options every command takes (before or after it); --format is parsed
/// into `format_name` and checked against the OutputFormat names.
void add_global_options(CLI::App& cli, accel::cli::GlobalOptions& g, std::string& format_name) {
  using namespace accel::cli;
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
}

/// Every command with its options, registered once (add_<command>_command).
struct Commands {
  accel::cli::OpsArgs ops_args;
  accel::cli::BenchArgs bench_args;
  accel::cli::ExplainArgs explain_args;
  accel::cli::LlmArgs llm_args;
  accel::cli::TrainArgs train_args;
  accel::cli::OrtArgs ort_args;
  accel::cli::ReportArgs report_args;
  accel::cli::DiagnoseArgs diagnose_args;
  accel::cli::CompareArgs compare_args;
  accel::cli::MultiArgs multi_args;
  CLI::App *env = nullptr, *ops = nullptr, *bench = nullptr, *explain = nullptr, *llm = nullptr,
           *train = nullptr, *ort = nullptr, *report = nullptr, *diagnose = nullptr, *compare = nullptr,
           *multi = nullptr;

  explicit Commands(CLI::App& cli) {
    using namespace accel::cli;
    env = add_env_command(cli);
    ops = add_ops_command(cli, ops_args);
    bench = add_bench_command(cli, bench_args);
    explain = add_explain_command(cli, explain_args);
    llm = add_llm_command(cli, llm_args);
    train = add_train_command(cli, train_args);
    ort = add_ort_command(cli, ort_args);
    report = add_report_command(cli, report_args);
    diagnose = add_diagnose_command(cli, diagnose_args);
    compare = add_compare_command(cli, compare_args);
    multi = add_multi_command(cli, multi_args);
  }
};

/// Global options that do not go together, or with the command given.
void check_option_combinations(const accel::cli::GlobalOptions& g, const Commands& c) {
  using accel::cli::UsageError;
  if (g.format != accel::cli::OutputFormat::text && g.json_path == "-") {
    throw UsageError(
        fmt::format("--format {} owns standard output; write the JSON report to a file (--json FILE)",
                    to_string(g.format)));
  }
  if (g.redact && !g.trace_path.empty()) {
    throw UsageError(
        "--trace writes the profiler's raw trace (paths, process and thread names), which --redact cannot "
        "vouch for; leave --trace out of a run you want to share");
  }
  if (!g.trace_path.empty() && (*c.env || *c.bench || *c.llm || *c.train || *c.ort || *c.explain ||
                                *c.report || *c.diagnose || *c.compare || *c.multi)) {
    throw UsageError(
        "--trace records the profiler trace of the operator checks: use it with `ops` or the "
        "default run");
  }
  if (g.repeat > 1 &&
      (*c.env || *c.ort || *c.explain || *c.report || *c.diagnose || *c.compare || *c.multi)) {
    throw UsageError("--repeat repeats measurements: use it with ops, bench, llm, train or the default run");
  }
}

/// Output files are checked before anything is measured, not after; so is
/// --onnxruntime.
void check_paths(const accel::cli::GlobalOptions& g, const Commands& c) {
  using accel::cli::UsageError;
  for (const auto& [what, path] : {std::pair<const char*, std::string>{"--json", g.json_path},
                                   {"--html", g.html_path},
                                   {"--trace", g.trace_path}}) {
    if (path.empty() || path == "-") continue;
    std::error_code ec;
    const bool existed = std::filesystem::exists(path, ec);
    {
      std::ofstream probe(path, std::ios::app);
      if (!probe) throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, std::strerror(errno)));
    }
    if (!existed) std::filesystem::remove(path, ec);
  }
  if (!g.onnxruntime_path.empty() && !std::filesystem::exists(g.onnxruntime_path)) {
    throw UsageError(fmt::format("--onnxruntime {}: no such file", g.onnxruntime_path));
  }
  if (!g.onnxruntime_path.empty() && (*c.env || *c.ops || *c.bench || *c.llm || *c.train || *c.explain ||
                                      *c.report || *c.diagnose || *c.compare)) {
    throw UsageError("--onnxruntime names the runtime of `ort` and the default run");
  }
}

/// Runs the command given (the default run without one).
int run_command(accel::cli::App& app, const accel::cli::GlobalOptions& g, const Commands& c) {
  using namespace accel::cli;
  if (*c.env) return cmd_env(app);
  // Ctrl-C while measuring stops the engine, keeps what was measured,
  // writes the partial report and exits 130 (platform/interrupt.hpp).
  accel::platform::install_interrupt_handler();
  auto measured = [&](int rc) -> int {
    if (!accel::platform::interrupted()) return rc;
    std::cerr << "accel-doctor: interrupted: the report holds what was measured; the rest is marked "
                 "skipped (interrupted)\n";
    return kExitInterrupted;
  };
  if (*c.ops) return measured(cmd_ops(app, c.ops_args));
  if (*c.bench) return measured(cmd_bench(app, c.bench_args));
  if (*c.llm) return measured(cmd_llm(app, c.llm_args));
  if (*c.train) return measured(cmd_train(app, c.train_args));
  if (*c.multi) return measured(cmd_multi(app, c.multi_args));
  if (*c.ort) return measured(cmd_ort(app, c.ort_args));
  if (*c.explain) {
    if (g.format != OutputFormat::text || !g.html_path.empty()) {
      throw UsageError(
          "explain writes text or --json; --format and --html apply to measuring commands and report");
    }
    return cmd_explain(app, c.explain_args);
  }
  if (*c.report) return cmd_report(app, c.report_args);
  if (*c.diagnose) return cmd_diagnose(app, c.diagnose_args);
  if (*c.compare) return cmd_compare(app, c.compare_args);
  return measured(cmd_default(app));
}

/// An engine that cannot start, refuses or speaks another protocol is a
/// set-up problem of this machine, not a bug of accel-doctor.
int engine_error_exit(accel::cli::App& app, const accel::engine::EngineError& e) {
  using namespace accel::cli;
  if (accel::platform::interrupted()) {  // stopped while asking the engine: keep what there is
    std::cerr << "accel-doctor: interrupted\n";
    try {
      app.write_json_if_requested();
    } catch (const std::exception&) {
    }
    return kExitInterrupted;
  }
  std::cerr << "accel-doctor: set-up error: the torch engine: " << app.scrub(e.what()) << "\n";
  return kExitUsage;
}

}  // namespace

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
  std::string format_name(to_string(g.format));
  add_global_options(cli, g, format_name);
  Commands commands(cli);

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
    check_option_combinations(g, commands);
    check_paths(g, commands);
    return run_command(app, g, commands);
  } catch (const UsageError& e) {
    std::cerr << "accel-doctor: " << app.scrub(e.what()) << "\n";
    return kExitUsage;
  } catch (const accel::engine::EngineError& e) {
    return engine_error_exit(app, e);
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: internal error: " << app.scrub(e.what()) << "\n";
    return kExitInternal;
  }
}
