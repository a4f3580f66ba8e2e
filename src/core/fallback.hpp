// CPU fallbacks a backend announces while an operator check runs.
//
// torch-directml (and torch's MPS backend, and the test backend of
// tests/python/testdev) run an op they have no kernel for on the CPU and say
// so with a warning: "The operator 'aten::mul.out' is not currently supported
// on the DML backend and will fall back to run on the CPU. This may have
// performance implications." The profiler cannot see such a plugin's device
// work, so these announcements are the proof of where a check ran. The kb
// recognises them (entries with `check_where: cpu_fallback`, the op in the
// `op` capture: op_cpu_fallback in kb/errors/torch.json), the check's
// profiler capture times each op, and the check's profile evidence says
// `where: cpu_fallback` with the ops and their cost (docs/python.md).
// Pure functions over recorded warnings and trace events: tested without a
// plugin (tests/unit/fallback_test.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/profile.hpp"

namespace accel {

/// One op a backend announced it runs on the CPU.
struct AnnouncedFallback {
  std::string op;        ///< "aten::mul.out", as the backend named it
  std::string cause_id;  ///< the kb entry that recognised the warning
};

/// The fallbacks announced in a check's warnings (kb entries whose
/// check_where is cpu_fallback), in order of first mention, each op once.
std::vector<AnnouncedFallback> announced_fallbacks(const std::vector<std::string>& warnings,
                                                   const KnowledgeBase& kb, const MachineContext& context);

/// The name the profiler records for an op: the overload dropped
/// ("aten::mul.out" -> "aten::mul", "aten::zero_" -> "aten::zero_").
std::string profiler_op_name(std::string_view op);

/// Outermost calls and their total time of each op in a capture: a call of
/// the op inside another call of the same op (the CPU kernel the fallback
/// runs, a functional op calling its out= variant: profiler names carry no
/// overload) counts within the outer one. `total_us` is the union over all
/// the ops (a fallback op nested in another counts once).
struct FallbackTimes {
  std::vector<FallbackOp> ops;  ///< parallel to the input, cause_id copied
  double total_us = 0;
  double call_us = 0;  ///< span of all op events of the capture (first start to last end)
};
FallbackTimes time_fallbacks(const std::vector<TraceEvent>& events,
                             const std::vector<AnnouncedFallback>& ops);

/// Marks `p` as a CPU fallback announced by the backend: where =
/// cpu_fallback, fallback_ops with their calls and time, fallback_cost_us
/// (their union), call_us, and a detail naming the ops with their share of
/// the call. `times` null: the call was not profiled; `why_not_timed` says
/// why (the detail then says the cost was not measured).
void mark_announced_fallback(ProfileEvidence& p, const std::vector<AnnouncedFallback>& ops,
                             const FallbackTimes* times, const std::string& why_not_timed);

/// Marks `p` (a profiler-blind capture) as device work by the backend's own
/// account: where = backend_kernels, with a detail naming the device and the
/// plugin that would have announced a fallback.
void mark_backend_kernels(ProfileEvidence& p, const std::string& device, const std::string& plugin);

}  // namespace accel
