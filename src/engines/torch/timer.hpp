// The one timer: every figure accel-doctor prints is measured here.
//
// Method (after torch.utils.benchmark and google/benchmark):
//  1. one cold call (lazy initialisation, kernel selection), then a timed call
//     to calibrate `inner`, the calls per sample, so that a sample lasts at
//     least `min_sample_us` (launch and sync overhead amortised);
//  2. warm-up for at least `warmup_ms`, then on in chunks until the per-call
//     time stops improving by more than 2% (a GPU ramping its clock up from
//     idle takes a few hundred ms: measured on the H200, where a 50 ms
//     warm-up left the bf16 8192^3 GEMM 12% slow, docs/validation/), at most
//     `max_warmup_ms`;
//  3. samples until the IQR is under `target_rel_iqr` of the median (after
//     `min_samples`), or `max_samples`, or the `budget_ms` is spent.
// On devices with timing events (CUDA/HIP/XPU, torch >= 2.5) a sample is the
// time between two events on the current stream; elsewhere the host clock is
// read after a device synchronisation on both sides (a stream
// synchronisation, or on plugin devices without one a synchronising scalar
// copy: Timing::method "host_clock_scalar_copy", torch_util.hpp).
#pragma once

#include <functional>

#include "core/evidence.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

struct TimerOptions {
  int min_samples = 5;
  int max_samples = 60;
  double budget_ms = 250;
  double target_rel_iqr = 0.02;
  double min_sample_us = 300;
  double warmup_ms = 10;
  double max_warmup_ms = 10;  ///< the adaptive warm-up stops here at the latest
  int max_inner = 1 << 14;
  bool use_events = true;  ///< use device events where available

  /// Fewer samples and a smaller budget (`--quick`).
  static TimerOptions quick();
  /// Benchmarks: longer budget, tighter spread target.
  static TimerOptions bench();
  /// Benchmarks with `--quick`.
  static TimerOptions bench_quick();
};

/// Times each of `n` calls of `fn(i)` on its own (device events, or a host
/// clock with a synchronisation on both sides): per-call µs, for latency
/// distributions of sequential steps (decode tokens). Same clocks as time_op.
std::vector<double> time_each(const c10::Device& device, int n, const std::function<void(int)>& fn,
                              bool use_events = true);

/// Times `fn` on `device`. `fn` must queue the whole operation (it may return
/// before the device finishes). Throws whatever `fn` throws.
Timing time_op(const c10::Device& device, const std::function<void()>& fn, const TimerOptions& options = {});

}  // namespace accel::engine
