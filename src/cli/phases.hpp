// The measuring phases shared by the commands and the default run: each runs
// one engine suite with the progress/JSON Lines hooks and the rooflines
// applied, and returns its results (printing is left to the caller).
#pragma once

#include <functional>
#include <vector>

#include "cli/app.hpp"
#include "engine_api/bench.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/ops.hpp"

namespace accel::cli {

/// The engine callbacks of every measuring command: the progress bar
/// (current item, time left) and, with --format jsonl, a line per result.
engine::RunCallbacks progress_callbacks(const App& app);
/// Adds `results` to the report, writes the outputs asked for, and returns
/// kExitFindings when a result failed (error, mismatch, crashed, ...), else
/// kExitHealthy; on a failure it first says why on standard output (each
/// failed result, or one line when the command listed its problems).
int finish_command(App& app, Report& report, const std::vector<Result>& results,
                   bool problems_listed = false);

/// Runs a suite `--repeat` times (once without it), each run its own engine
/// process, and merges the runs' results (core/repeat.hpp). With repeats the
/// results are not passed to the callbacks one by one (the merged ones are
/// written at the end), only the progress of each run.
std::vector<Result> run_repeated(App& app,
                                 const std::function<std::vector<Result>(const engine::RunCallbacks&)>& once);
/// The ops options of `args` for the chosen device.
engine::OpsOptions ops_options(App& app, const OpsArgs& args);
/// Runs the operator checks. With `measure_bandwidth` the device copy
/// bandwidth is measured afterwards (bench row, appended to the report) and
/// the checks' rooflines drawn against it; without, the caller applies them.
std::vector<Result> run_ops_phase(App& app, const engine::OpsOptions& o, bool measure_bandwidth = true);
/// Runs the benchmarks, rooflines against their own measured bandwidth.
std::vector<Result> run_bench_phase(App& app, const engine::BenchOptions& o);
/// Runs the LLM items, rooflines against the bandwidth the suite measured.
std::vector<Result> run_llm_phase(App& app, const engine::LlmOptions& o);

}  // namespace accel::cli
