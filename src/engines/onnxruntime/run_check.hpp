// Runs one op check on the chosen provider and makes its Result:
//   1. a profiled session on the target provider: the first call's output,
//      then the profile's node placement (profile_parse.hpp);
//   2. with session.disable_cpu_ep_fallback=1 (not for the CPU itself):
//      whether the whole graph can run without the CPU, the hard yes/no;
//   3. the reference: the same row built in fp64 (else fp32) on the CPU
//      provider with graph optimisations off, from the same values;
//   4. timing on a fresh, unprofiled session (warm-up, repeats, median,
//      IQR: core/stats.hpp through make_timing), and the CPU twin.
// Statuses: ok; ok with profile.where = "cpu_fallback" (nodes on the CPU,
// their time and the copies as the fallback's cost); unavailable (the
// provider has no kernel for the op or dtype); error (kb cause and fix);
// mismatch (wrong against the reference).
#pragma once

#include <string>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/machine_context.hpp"
#include "engines/onnxruntime/checks/check.hpp"
#include "engines/onnxruntime/devices.hpp"
#include "engines/onnxruntime/session.hpp"

namespace accel::ort {

struct TimerBudget {
  double warmup_ms = 50;
  int min_samples = 10;
  int max_samples = 50;
  double budget_ms = 1000;
  double sample_target_us = 200;  ///< calls per sample grow until a sample lasts this long (at most 64)
};
TimerBudget timer_budget(bool quick);

/// Host clock around `call` (Run returns when the outputs are in host
/// memory, so no device sync is needed): warm-up, samples until the spread
/// settles (relative IQR under 10% after min_samples) or the budget is
/// spent. method "host_clock_run".
Timing time_calls(const std::function<void()>& call, const TimerBudget& budget);

/// Relative Frobenius error ||out - ref|| / ||ref|| (the absolute norm when
/// ||ref|| is 0); NaN when either holds a NaN or the sizes differ.
double relative_error(const std::vector<double>& out, const std::vector<double>& ref);
/// The fraction of equal elements (1 for two empty vectors; 0 when the sizes differ).
double equal_fraction(const std::vector<double>& out, const std::vector<double>& ref);
/// The tolerance of a row in `dtype`: fp32 2e-3, fp16 5e-3 (the torch
/// engine's, docs/methodology.md), or for an fp16 sum of products of length
/// K the accumulation model's (core/accumulation.hpp); times tolerance_scale.
double check_tolerance(DType dtype, std::int64_t accumulation_length, double tolerance_scale);
/// True when a session error means "no kernel for this op/dtype on this
/// provider" (status unavailable) rather than a failure.
bool is_missing_kernel(const std::string& message);

struct RunOptions {
  bool quick = false;
  bool force_writer = false;   ///< build models with our protobuf writer even where the Model Editor exists
  bool cpu_twin = true;        ///< also time the check on the CPU provider when the target is not the CPU
  std::string scratch_dir;     ///< where profile files are written (and removed)
  bool keep_profiles = false;  ///< ACCEL_DOCTOR_ORT_KEEP_PROFILES=1: keep them (evidence.profile_file)
  const KnowledgeBase* kb = nullptr;
  MachineContext machine;
};

/// The device a run measures: a candidate and its EP device handle (if any).
struct Target {
  DeviceCandidate candidate;
  const abi::OrtEpDevice* ep_device = nullptr;
  ProviderChoice provider() const;
};

class CheckRunner {
 public:
  CheckRunner(const Env& env, Target target, RunOptions options);
  /// Never throws: every failure is the result's status.
  Result run(const CheckDef& def, DType dtype) const;
  const Target& target() const { return target_; }
  const RunOptions& options() const { return options_; }
  /// A Result for a key that failed before running, classified by the kb.
  Result failed(Result r, const std::string& message) const;

 private:
  const Env& env_;
  Target target_;
  RunOptions options_;
};

}  // namespace accel::ort
