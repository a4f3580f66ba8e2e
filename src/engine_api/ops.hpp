// Operator checks: the public, torch-free face of the engine's `ops` run.
//
// Each check runs its op on the target device, verifies the result against a
// CPU float64 reference (or statistics for random ops), times it on the
// device and on the CPU, and records warnings and errors with their cause.
// By default the checks run in a worker process (the engine started again
// as `<engine> __worker`) that streams each result as it finishes; a
// crash or a check past its time limit becomes a `crashed` or `hung` result
// and a new worker continues with the rest.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/machine_context.hpp"
#include "engine_api/isolation.hpp"

namespace accel::engine {

/// One row of the catalog expanded for one dtype (what `ops --list` prints).
struct CheckInfo {
  std::string key;  ///< "ops/<category>/<name>/<dtype>"
  std::string name;
  std::string category;
  std::string dtype;
  std::string shape;
  double flops = 0;
  std::string flops_formula;
  std::string bytes_formula;
  std::string verify;  ///< "reference", "exact", "statistical", "none"
};

struct OpsOptions {
  std::string device = "cpu";        ///< resolved device, e.g. "cuda:0"
  bool quick = false;                ///< fewer repeats
  std::vector<std::string> filters;  ///< select by category, name, dtype or key part
  bool isolate = true;               ///< run in a worker process
  double check_timeout_s = 120;      ///< per check, then `hung`
  bool include_test_checks = false;  ///< the selftest category (tests only)
  MachineContext machine;            ///< for error causes and fixes
  bool profile = true;               ///< profiler evidence per check
  std::string trace_path;            ///< write the merged Chrome trace here (--trace)
  /// A worker past this much anonymous memory hands the remaining checks to
  /// a fresh one (IsolationOptions::retire_anon_bytes); 0 = never.
  double worker_retire_anon_bytes = 768.0 * 1024 * 1024;
  std::size_t worker_retire_min_items = 8;  ///< checks a worker runs before it may retire
};

/// Progress callbacks: on_start before each check, on_result when it is final.
using OpsCallbacks = RunCallbacks;

/// True when `filters` selects a check (empty filters select all).
bool filters_match(const std::vector<std::string>& filters, const CheckInfo& check);

// The JSON forms the engine protocol carries: every field by its name;
// missing fields keep their defaults, unknown ones are ignored.
ACCEL_JSON_DECLARE(CheckInfo)
ACCEL_JSON_DECLARE(OpsOptions)

}  // namespace accel::engine
