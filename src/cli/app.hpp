// Shared state of one accel-doctor invocation: global options, the knowledge
// base, terminal style, and the report being built.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "core/report/console.hpp"

namespace accel::cli {

/// Documented exit codes (README, docs/cli.md).
enum ExitCode : int {
  kExitHealthy = 0,
  kExitFindings = 1,  ///< some checks failed / findings at warning or above
  kExitUsage = 2,     ///< usage or set-up error
  kExitNothingRecognised = 3,
  kExitInternal = 4,
};

struct GlobalOptions {
  std::string device = "auto";
  std::string json_path;  ///< --json FILE
  std::string trace_path; ///< --trace FILE (Chrome/Perfetto trace of the run)
  bool quiet = false;
  bool no_color = false;
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

  /// The environment, collected once (with the device choice resolved).
  Environment& environment();
  /// Resolves --device against torch's devices; throws UsageError.
  const DeviceChoice& device_choice();

  /// The report under construction (context filled on first use).
  Report& report(const std::string& command);
  /// Writes the report if --json was given. Throws std::runtime_error.
  void write_json_if_requested();

  /// Fills the roofline of `results` against the device ceilings: the
  /// datasheet table, this host's CPU estimate, and any bandwidth measured in
  /// `measured` (bench copy rows of this run).
  void apply_rooflines(std::vector<Result>& results, const std::vector<Result>& measured);

  /// Prints to stdout unless --quiet.
  void out(const std::string& text) const;
  /// Progress/status line on stderr (TTY only, not with --quiet).
  void status(const std::string& text) const;
  void clear_status() const;

 private:
  GlobalOptions options_;
  std::vector<std::string> argv_;
  std::optional<KnowledgeBase> kb_;
  std::optional<Environment> env_;
  std::optional<Report> report_;
  std::optional<GpuPeakTable> peaks_;
  bool peaks_loaded_ = false;
};

int cmd_env(App& app);
struct OpsArgs {
  bool quick = false;
  bool list = false;
  bool no_isolate = false;
  bool no_profile = false;
  std::vector<std::string> filters;
  double check_timeout_s = 120;
};
int cmd_ops(App& app, const OpsArgs& args);
struct BenchArgs {
  bool quick = false;
  bool list = false;
  bool no_isolate = false;
  bool no_cpu = false;
  std::vector<std::string> filters;
};
int cmd_bench(App& app, const BenchArgs& args);
struct LlmArgs {
  bool quick = false;
  bool list = false;
  bool no_isolate = false;
  bool no_cpu = false;
  bool no_graphs = false;
  std::string preset;
  std::string weights;
  std::string dtype;
  std::string attention = "auto";
  std::string cpu_preset;
  std::vector<int> batches;
  std::vector<int> prompts;
  std::vector<int> gens;
};
int cmd_llm(App& app, const LlmArgs& args);
/// The default run (no command): env, then quick ops.
int cmd_default(App& app);

struct ExplainArgs {
  /// Log to read; empty or "-" reads standard input.
  std::string file;
  /// What is known about the machine (free text).
  std::string os, arch, backend, gpu, versions;
  /// NAME=VALUE of the process that failed (repeatable).
  std::vector<std::string> env;
  /// A saved report.json: the machine context comes from its environment.
  std::string from;
  /// The diagnoses as JSON on standard output.
  bool json = false;
};
/// Recognises causes in a log (kb/errors.json) and prints them with their fix.
/// Exit 0 when something was recognised, 3 when nothing was, 2 on a usage error.
int cmd_explain(App& app, const ExplainArgs& args);
/// The machine context `explain --from` takes from a saved report.
MachineContext machine_context_from_report(const Report& report);

}  // namespace accel::cli
