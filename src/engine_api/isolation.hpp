// Runs the items of a suite (operator checks, benchmarks, workloads) in a
// worker process: the engine started again as `<engine> __worker` (an
// engine hosted by Python: `<python> -m accel_doctor.worker`), fed
// a job on stdin, streaming one JSON event per line on stdout. A worker that
// dies makes its current item `crashed`; one that passes the item's time
// limit is killed and the item is `hung`; a new worker continues with the
// rest, so nothing measured before is lost. Torch-free.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel::engine {

/// What the runner needs to know of an item before it runs.
struct ItemInfo {
  std::string key;
  ResultKind kind = ResultKind::none;
  std::string name;
  std::string category;
  std::string dtype;
  std::string shape;
};

ACCEL_JSON_DECLARE(ItemInfo)

/// The result of one item as a suite starts it: key, kind and, when the item
/// exists (`info` not null), its name, category, dtype and shape; otherwise
/// status `skipped` with `missing_reason` (a key this worker does not know).
Result start_result(const std::string& key, ResultKind kind, const ItemInfo* info,
                    const std::string& missing_reason);

struct RunCallbacks {
  std::function<void(const ItemInfo& item, std::size_t index, std::size_t total)> on_start;
  std::function<void(const Result& result)> on_result;
};

struct IsolationOptions {
  std::string suite;          ///< "ops", "bench", ...
  json job = json::object();  ///< suite options, passed to the worker as is
  std::string device;         ///< for results of items that never ran
  double item_timeout_s = 120;
  const KnowledgeBase* kb = nullptr;  ///< explains a crashed worker's stderr
  MachineContext machine;
  /// A worker whose anonymous resident memory passes this many bytes after
  /// an item hands the remaining items to a fresh worker (0: never). Bounds
  /// memory that grows outside our control with every library and kernel a
  /// run touches (cuDNN, cuBLASLt, cuFFT plans, runtime-compiled kernels,
  /// lazily loaded CUDA modules): 2 GB of heap over a full `ops` run on the
  /// H200, while 128 elementwise/reduction checks with a profiler session
  /// each stayed at ~190 MiB (2026-11-30). Linux only (elsewhere the worker
  /// cannot read its own figure and never retires).
  double retire_anon_bytes = 0;
  std::size_t retire_min_items = 8;  ///< items a worker runs before it may retire
  /// The argv that starts a worker; empty: worker_command() (the process-wide
  /// setting). Tests name a fake worker here.
  std::vector<std::string> worker_command;
};

/// The argv that starts a worker of this engine: what set_worker_command()
/// set, else `[<this executable>, "__worker"]` (the native engine, which is
/// its own worker). Empty when neither is known (this program cannot find
/// its own path).
std::vector<std::string> worker_command();

/// Sets the worker command for the whole process. An engine hosted inside a
/// Python interpreter (python/accel_doctor) is not an executable of its own:
/// its workers are `[sys.executable, "-m", "accel_doctor.worker"]`. An empty
/// argv restores the default.
void set_worker_command(std::vector<std::string> argv);

/// Runs `items` in worker processes. Throws platform::SubprocessError when
/// no worker can be started at all (the caller may run in-process instead).
std::vector<Result> run_isolated(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                                 const RunCallbacks& callbacks);

/// A result for an item that did not produce its own (crashed, hung, ...),
/// with the worker's last stderr lines explained by the kb when possible.
Result failed_result(const ItemInfo& item, const std::string& device, Status status,
                     const std::string& headline, const std::string& stderr_tail, const KnowledgeBase* kb,
                     const MachineContext& machine);

}  // namespace accel::engine
