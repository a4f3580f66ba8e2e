// Shared state of one accel-doctor invocation: global options, the knowledge
// base, terminal style, and the report being built.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/progress.hpp"
#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "core/redact.hpp"
#include "core/report/console.hpp"
#include "core/rules/rules.hpp"
#include "engine_api/busy_sampled_engine.hpp"
#include "engine_api/process_engine.hpp"

namespace CLI {
class Option;
class App;
}  // namespace CLI

namespace accel::cli {

/// Documented exit codes (README, docs/cli.md).
enum ExitCode : int {
  kExitHealthy = 0,
  kExitFindings = 1,  ///< some checks failed / findings at warning or above
  kExitUsage = 2,     ///< usage or set-up error
  kExitNothingRecognised = 3,
  kExitInternal = 4,
  kExitInterrupted = 130,  ///< Ctrl-C while measuring (128 + SIGINT, as shells say): partial report written
};

/// What goes to standard output (--format): text tables, the Markdown
/// summary, or JSON Lines as results finish. Named "text", "md", "jsonl".
enum class OutputFormat { text, md, jsonl };
std::string_view to_string(OutputFormat f);
/// Parses a --format name; nullopt for an unknown name.
std::optional<OutputFormat> output_format_from_string(std::string_view name);
/// The --format names, in the order --help lists them.
inline constexpr const char* kOutputFormatNames[] = {"text", "md", "jsonl"};

struct GlobalOptions {
  std::string device = "auto";
  std::string json_path;   ///< --json FILE
  std::string trace_path;  ///< --trace FILE (Chrome/Perfetto trace of the run)
  bool quiet = false;
  bool no_color = false;
  std::string html_path;                     ///< --html FILE (self-contained HTML report)
  OutputFormat format = OutputFormat::text;  ///< --format: what goes to stdout
  bool redact = false;      ///< --redact: no host, user, home path, serial or address in any output
  std::string engine_path;  ///< --engine PATH: the torch engine to run (default: beside accel-doctor)
  int repeat = 1;           ///< --repeat N: N engine runs of each suite, merged (cli/phases.hpp)
  std::string python_path;  ///< --python PATH: that interpreter's accel_doctor package is the engine
  std::vector<std::string> imports;  ///< --import MODULE: imported by the Python engine first (plugins)
  std::string onnxruntime_path;  ///< --onnxruntime PATH: the ONNX Runtime library (`ort`, the default run)
};

/// A usage or set-up error: printed as is, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class App {
 public:
  App(GlobalOptions options, std::vector<std::string> argv);

  const GlobalOptions& options() const { return options_; }
  const KnowledgeBase& kb();
  ConsoleStyle style_stdout() const;
  bool progress_enabled() const;

  /// The environment, collected once (with the device choice resolved):
  /// the platform probes here, the torch build, devices and BLAS asked of
  /// the engine when there is one (else named in not_collected).
  Environment& environment();
  /// The measuring engine (accel-doctor-torch); throws UsageError (exit 2)
  /// saying what was looked for and how to build one when there is none.
  engine::Engine& engine();
  /// The GPU busy sampler for whatever measures on a GPU (the torch engine
  /// through engine(), ONNX Runtime in this process): NVML, amdgpu or PDH
  /// every ACCEL_DOCTOR_GPU_BUSY_MS (default 100 ms); empty when that is 0.
  /// The GPUs to sample are environment().gpus, or `gpus` when given (a
  /// command that collected its own environment without the torch engine).
  engine::GpuBusySamplerFactory gpu_busy_sampler_factory(const std::vector<GpuHardware>* gpus = nullptr);
  /// Where the engine was looked for (found or not); searched once.
  const engine::EngineSearch& engine_search();
  /// Resolves --device against torch's devices; throws UsageError.
  const DeviceChoice& device_choice();

  /// The report under construction (context filled on first use).
  Report& report(const std::string& command);
  /// Writes the report in every form asked for: --json, --html, and on
  /// stdout the Markdown summary (--format md) or the rest of the JSON Lines
  /// stream (--format jsonl). Throws std::runtime_error.
  void write_json_if_requested();
  /// The same for a report not built by this App (`report --from`).
  void write_outputs(const Report& report);
  /// Where --json and --html go from now on (`multi` under a launcher: one
  /// file per rank, core/multi/launch.hpp per_rank_path).
  void set_output_paths(std::string json_path, std::string html_path);

  /// Fills the roofline of `results` against the device ceilings: the
  /// datasheet table, this host's CPU estimate, and any bandwidth measured in
  /// `measured` (bench copy rows of this run).
  void apply_rooflines(std::vector<Result>& results, const std::vector<Result>& measured);
  /// kb/gpus.json, loaded once: null when the kb has none (a line on stderr
  /// says so). A gpus.json that exists but cannot be parsed is a set-up error
  /// (UsageError naming the file and what is wrong); engine() loads it before
  /// anything is measured.
  const GpuPeakTable* peaks();

  /// Prints the text report to stdout (not with --quiet, nor with --format md
  /// or jsonl, which own stdout).
  void out(const std::string& text) const;
  /// Progress/status line on stderr (TTY only, not with --quiet).
  void status(const std::string& text) const;
  void clear_status() const;

  /// Hooks for the engine's RunCallbacks: the progress bar (current item,
  /// estimate of the time left) and, with --format jsonl, one line per result
  /// as it finishes.
  void item_started(const std::string& key, std::size_t index, std::size_t total) const;
  void item_finished(const Result& result) const;

  /// With --redact: what must not appear in any output (this process's user
  /// and host names, the environment's host name, and those of every report
  /// noted); `scrub` removes them and the identifying patterns from a text.
  /// Without --redact `scrub` returns the text unchanged.
  const RedactSecrets& secrets() const;
  void note_secrets(const Report& report);
  std::string scrub(const std::string& text) const;

 private:
  GlobalOptions options_;
  std::vector<std::string> argv_;
  std::optional<KnowledgeBase> kb_;
  std::optional<Environment> env_;
  std::optional<engine::EngineSearch> engine_search_;
  std::unique_ptr<engine::Engine> engine_;  ///< a BusySampledEngine around the ProcessEngine
  bool gpu_busy_period_warned_ = false;     ///< a bad ACCEL_DOCTOR_GPU_BUSY_MS said once
  std::optional<Report> report_;
  std::optional<GpuPeakTable> peaks_;
  bool peaks_loaded_ = false;
  std::unique_ptr<ProgressDisplay> progress_;
  mutable bool jsonl_started_ = false;                 ///< the context line is out
  mutable std::multiset<std::string> jsonl_streamed_;  ///< keys of the result lines streamed so far
  void jsonl_begin() const;
  mutable std::optional<RedactSecrets> secrets_;
};

int cmd_env(App& app);
/// Adds the `env` subcommand to `cli` (cmd_env_ops.cpp).
CLI::App* add_env_command(CLI::App& cli);
struct OpsArgs {
  bool quick = false;
  bool list = false;
  bool no_isolate = false;
  bool no_profile = false;
  std::vector<std::string> filters;
  double check_timeout_s = 120;
};
int cmd_ops(App& app, const OpsArgs& args);
/// Adds the `ops` subcommand with its options to `cli` (cmd_env_ops.cpp); they fill `args`.
CLI::App* add_ops_command(CLI::App& cli, OpsArgs& args);
struct BenchArgs {
  bool quick = false;
  bool list = false;
  bool no_isolate = false;
  bool no_cpu = false;
  std::vector<std::string> filters;
  bool vulkan = false;  ///< --vulkan: the Vulkan compute ceiling (alone, or with the rows --filter selects)
  /// --from FILE with --vulkan: the framework rows (and their device list) of a
  /// saved report to join the ceiling with, instead of measuring them now.
  std::string from;
};
int cmd_bench(App& app, const BenchArgs& args);
/// Adds the `bench` subcommand with its options to `cli` (cmd_bench.cpp); they fill `args`.
CLI::App* add_bench_command(CLI::App& cli, BenchArgs& args);
/// The Vulkan ceiling phase (cmd_vulkan.cpp): its rows joined with the
/// framework rows of the run, printed; `measured` when a device gave a figure.
struct VulkanPhase {
  std::vector<Result> results;
  bool measured = false;
};
struct VulkanPhaseOptions {
  bool quick = false;
  /// The default run: software devices (lavapipe) are listed, not measured;
  /// with no Vulkan GPU the phase says so in one line.
  bool gpus_only = false;
  /// The framework rows to join with, and whose device list joins them
  /// (nullptr: this run's environment); `source` names where they came from.
  std::vector<Result> framework;
  const Environment* framework_env = nullptr;
  std::string source = "this run";
};
VulkanPhase run_vulkan_phase(App& app, const VulkanPhaseOptions& options);
/// `bench --vulkan` without --filter: the ceiling alone; exit 2 when nothing could be measured.
int cmd_bench_vulkan_only(App& app, const BenchArgs& args);
/// Adds a flag `name` (such as "--no-sweep") that turns `target` off: an
/// engine option that defaults to on, bound without a mirror bool (flags.cpp).
CLI::Option* add_off_flag(CLI::App* cmd, const std::string& name, bool& target,
                          const std::string& description);

/// `llm`'s command line: the options bound straight to the engine's
/// LlmOptions (one field per option, docs/architecture.md), plus --list.
struct LlmArgs {
  engine::LlmOptions options;
  bool list = false;
};
int cmd_llm(App& app, const LlmArgs& args);
/// Adds the `llm` subcommand with its options to `cli` (cmd_llm.cpp); they fill `args`.
CLI::App* add_llm_command(CLI::App& cli, LlmArgs& args);
/// `train`'s command line: the options bound straight to the engine's
/// TrainOptions, plus --list.
struct TrainArgs {
  engine::TrainOptions options;
  bool list = false;
};
/// Training steps: MLP and residual CNN, fp32/fp16/bf16, batch sweep.
int cmd_train(App& app, const TrainArgs& args);
/// Adds the `train` subcommand with its options to `cli` (cmd_train.cpp); they fill `args`.
CLI::App* add_train_command(CLI::App& cli, TrainArgs& args);
struct OrtArgs {
  bool quick = false;
  bool list = false;
  bool no_cpu = false;        ///< no CPU-provider twin timing of GPU rows
  bool no_workloads = false;  ///< the op checks only
  bool protobuf_writer =
      false;           ///< build the models with accel-doctor's ONNX writer, not the Model Editor API
  std::string device;  ///< `ort --device` (else the global one)
  std::vector<std::string> filters;
};
/// `accel-doctor ort` (cmd_ort.cpp): the ONNX Runtime op checks and workloads.
int cmd_ort(App& app, const OrtArgs& args);
/// Adds the `ort` subcommand with its options to `cli` (cmd_ort.cpp); they fill `args`.
CLI::App* add_ort_command(CLI::App& cli, OrtArgs& args);
/// The default run's ONNX Runtime phase: measured only on a GPU provider;
/// otherwise one line says why (no runtime, no GPU provider).
std::vector<Result> run_ort_phase(App& app, const std::string& torch_device);
/// The default run (no command): env, quick ops, quick bench, a small llm
/// run, then the findings of the rules engine and a one-line verdict. Each
/// phase is fenced: one that fails is recorded as an error result and the
/// run goes on. Exit code as report_diagnosis().
int cmd_default(App& app);

struct DiagnoseArgs {
  std::string from;   ///< a saved report.json
  bool list = false;  ///< list the rules and what triggers each
};
/// `diagnose --from report.json`: findings and verdict of a saved report.
/// Exit 1 when a finding is at warning or above (or a check failed), 2 when
/// the file cannot be read, 0 otherwise.
int cmd_diagnose(App& app, const DiagnoseArgs& args);
/// Adds the `diagnose` subcommand with its options to `cli` (cmd_diagnose.cpp); they fill `args`.
CLI::App* add_diagnose_command(CLI::App& cli, DiagnoseArgs& args);
/// The rules engine's inputs (kb/arch.json through app.kb(), kb/rules.json).
DiagnoseOptions diagnose_options(App& app);
/// Runs the rules over `report` and stores the findings and the verdict in it.
void add_diagnosis(App& app, Report& report);
/// Runs the rules over `report`, stores the findings and the verdict in it,
/// prints them, and returns the exit code they call for (kExitFindings when
/// needs_attention(), else kExitHealthy). For the default run.
int report_diagnosis(App& app, Report& report);

struct CompareArgs {
  std::string a, b;             ///< the two reports (A: before, B: after)
  bool json = false;            ///< the comparison as JSON on standard output
  double min_change_pct = 5.0;  ///< floor of the noise threshold, in percent
};
/// `compare A.json B.json`: exit 1 when something regressed (slower beyond
/// noise, or newly failing), 2 when a file cannot be read, 0 otherwise.
int cmd_compare(App& app, const CompareArgs& args);
/// Adds the `compare` subcommand with its options to `cli` (cmd_compare.cpp); they fill `args`.
CLI::App* add_compare_command(CLI::App& cli, CompareArgs& args);

struct ReportArgs {
  /// Saved reports; several are merged (the first one's context, all results and findings).
  std::vector<std::string> from;
};
/// Renders saved reports in the forms the global options ask for (--html,
/// --format, --json); text tables on stdout by default.
int cmd_report(App& app, const ReportArgs& args);
/// Adds the `report` subcommand with its options to `cli` (cmd_report.cpp); they fill `args`.
CLI::App* add_report_command(CLI::App& cli, ReportArgs& args);

struct ExplainArgs {
  /// Log to read; empty or "-" reads standard input.
  std::string file;
  /// What is known about the machine (free text).
  std::string os, arch, backend, gpu, versions;
  /// NAME=VALUE of the process that failed (repeatable).
  std::vector<std::string> env;
  /// A saved report.json: the machine context comes from its environment.
  std::string from;
  /// The machine context is this machine's: the front end's platform probes
  /// (OS, GPUs with their archs, drivers, GPU environment variables), no engine.
  bool here = false;
  /// The diagnoses as JSON on standard output.
  bool json = false;
};
/// Recognises causes in a log (kb/errors/*.json) and prints them with their fix.
/// Exit 0 when something was recognised, 3 when nothing was, 2 on a usage error.
int cmd_explain(App& app, const ExplainArgs& args);
/// Adds the `explain` subcommand with its options to `cli` (cmd_explain.cpp); they fill `args`.
CLI::App* add_explain_command(CLI::App& cli, ExplainArgs& args);
/// The machine context `explain --from` takes from a saved report.
MachineContext machine_context_from_report(const Report& report);
/// The machine context `explain --here` takes from the live machine: the
/// platform probes `env` runs (no torch engine is asked). Never throws.
MachineContext machine_context_here(const KnowledgeBase& kb);

}  // namespace accel::cli
