#pragma once

#include "core/kb.hpp"
#include "core/profile.hpp"
#include "engines/torch/checks/check.hpp"
#include "engines/torch/timer.hpp"

namespace accel::engine {

struct RunContext {
  c10::Device device = c10::kCPU;
  bool quick = false;
  TimerOptions timer = TimerOptions::quick();  ///< used when not quick
  const KnowledgeBase* kb = nullptr;           ///< for error causes (may be null)
  MachineContext machine;
  bool profile = true;         ///< capture one call under the profiler
  std::string profiler_blind;  ///< non-empty: the self-check saw no device kernels
  const ImplementationTable* implementations = nullptr;
  std::string trace_dir;  ///< keep each check's Chrome trace here
};

/// "ops/<category>/<name>/<dtype>"
std::string check_key(const CheckDef& def, at::ScalarType dtype);

/// Runs one check in this process. Never throws; a crash or hang is the
/// caller's business (run it in a worker).
Result run_check(const CheckDef& def, at::ScalarType dtype, const RunContext& ctx);

}  // namespace accel::engine
