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
  /// The device's plugin announces every op it runs on the CPU
  /// (DeviceInfo::announces_cpu_fallback: torch-directml, the test backend),
  /// so a check without an announcement ran on the device; its module name.
  bool announces_cpu_fallback = false;
  std::string plugin;
};

/// "ops/<category>/<name>/<dtype>"
std::string check_key(const CheckDef& def, at::ScalarType dtype);

/// Runs one check in this process. Never throws; a crash or hang is the
/// caller's business (run it in a worker). The first call and the profiled
/// call run with warn-always on (WarnAlwaysGuard), so a backend that
/// announces its CPU fallbacks once per process announces them in every
/// check; the announcements the kb recognises (core/fallback.hpp) make the
/// check's profile.where cpu_fallback, with each op's time in the profiled call.
Result run_check(const CheckDef& def, at::ScalarType dtype, const RunContext& ctx);

}  // namespace accel::engine
