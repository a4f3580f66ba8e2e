// The worker side of isolation (engine_api/isolation.hpp), shared by every
// engine: a suite prepared once per worker process, then run item by item,
// each result streamed as an event line (engine_api/worker_protocol.hpp).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine_api/isolation.hpp"

namespace accel::engine {

/// A suite as the worker runs it: prepared once per worker, then item by item.
class WorkerSuite {
 public:
  virtual ~WorkerSuite() = default;
  /// Initialises the device and anything shared by the items; the returned
  /// JSON goes into the worker's "ready" event.
  virtual json prepare() = 0;
  /// Runs one item; must not throw for a failing item (return its Result).
  virtual Result run(const std::string& key) = 0;
};

/// Builds the suite a job names (job["suite"]); throws for an unknown one.
using SuiteFactory = std::function<std::unique_ptr<WorkerSuite>(const std::string& suite, const json& job)>;

/// Entry point of an engine's hidden `__worker` command: reads the job on
/// stdin, streams events on stdout. Returns the exit code (2: bad job,
/// 3: the device could not be prepared).
int worker_main(const SuiteFactory& make_suite);

/// Runs `items` through the suite: in worker processes when `isolate`
/// (falling back to this process, with a note on stderr, when no worker can
/// start), else in this process.
std::vector<Result> run_suite(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                              bool isolate, const RunCallbacks& callbacks, const SuiteFactory& make_suite);

}  // namespace accel::engine
