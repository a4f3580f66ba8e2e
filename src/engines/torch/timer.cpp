#include "engines/torch/timer.hpp"

#include <c10/core/Event.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/stats.hpp"

namespace accel::engine {

namespace {
using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

/// Per-call time in µs of `inner` back-to-back calls.
double sample_host(const c10::Device& device, const std::function<void()>& fn, int inner) {
  synchronize(device);
  const auto t0 = Clock::now();
  for (int i = 0; i < inner; ++i) fn();
  synchronize(device);
  return us_since(t0) / inner;
}

/// Timing::method: device events, or the host clock around a stream
/// synchronisation or a synchronising scalar copy (sync_method()).
std::string timing_method(const c10::Device& device, bool events) {
  if (events) return "device_events";
  return sync_method(device) == SyncMethod::scalar_copy ? "host_clock_scalar_copy" : "host_clock";
}

#if ACCEL_TORCH_AT_LEAST(2, 5)
double sample_events(const c10::Device& device, const std::function<void()>& fn, int inner) {
  const auto* impl = c10::impl::getDeviceGuardImpl(device.type());
  const c10::Stream stream = impl->getStream(device);
  c10::Event start(device.type(), c10::EventFlag::BACKEND_DEFAULT);
  c10::Event end(device.type(), c10::EventFlag::BACKEND_DEFAULT);
  start.record(stream);
  for (int i = 0; i < inner; ++i) fn();
  end.record(stream);
  end.synchronize();
  return start.elapsedTime(end) * 1000.0 / inner;  // elapsedTime is in ms
}
#endif
}  // namespace

std::vector<double> time_each(const c10::Device& device, int n, const std::function<void(int)>& fn,
                              bool use_events) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(std::max(n, 0)));
  const bool events = use_events && has_timing_events(device);
  for (int i = 0; i < n; ++i) {
    auto once = [&] { fn(i); };
#if ACCEL_TORCH_AT_LEAST(2, 5)
    if (events) {
      out.push_back(sample_events(device, once, 1));
      continue;
    }
#endif
    (void)events;
    out.push_back(sample_host(device, once, 1));
  }
  return out;
}

TimerOptions TimerOptions::quick() {
  TimerOptions o;
  o.min_samples = 3;
  o.max_samples = 15;
  o.budget_ms = 60;
  o.target_rel_iqr = 0.05;
  o.warmup_ms = 3;
  o.max_warmup_ms = 3;
  return o;
}

TimerOptions TimerOptions::bench() {
  TimerOptions o;
  o.min_samples = 7;
  o.max_samples = 100;
  o.budget_ms = 1500;
  o.target_rel_iqr = 0.02;
  o.min_sample_us = 2000;
  o.warmup_ms = 50;
  o.max_warmup_ms = 1000;
  return o;
}

TimerOptions TimerOptions::bench_quick() {
  TimerOptions o = bench();
  o.min_samples = 5;
  o.max_samples = 30;
  o.budget_ms = 300;
  o.min_sample_us = 1000;
  o.warmup_ms = 20;
  o.max_warmup_ms = 500;
  return o;
}

Timing time_op(const c10::Device& device, const std::function<void()>& fn, const TimerOptions& options) {
  bool events = options.use_events && has_timing_events(device);
  auto sample = [&](int inner) {
#if ACCEL_TORCH_AT_LEAST(2, 5)
    if (events) return sample_events(device, fn, inner);
#endif
    return sample_host(device, fn, inner);
  };

  // 1. cold call, then calibration.
  fn();
  synchronize(device);
  const double single_us = std::max(sample(1), 0.01);
  const int inner =
      std::clamp(static_cast<int>(std::ceil(options.min_sample_us / single_us)), 1, options.max_inner);

  // 2. warm-up: at least warmup_ms, then chunks of ~warmup_ms while the
  //    per-call time still improves by more than 2% (clock ramp-up), at most
  //    max_warmup_ms.
  const int chunk_calls =
      std::clamp(static_cast<int>(options.warmup_ms * 1000.0 / single_us), 1, options.max_inner);
  int warmup_calls = 0;
  double warmup_elapsed_ms = 0;
  double previous_per_call = 0;
  double fastest_chunk = 0;
  while (true) {
    synchronize(device);
    const auto c0 = Clock::now();
    for (int i = 0; i < chunk_calls; ++i) fn();
    synchronize(device);
    const double chunk_us = us_since(c0);
    warmup_calls += chunk_calls;
    warmup_elapsed_ms += chunk_us / 1000.0;
    const double per_call = chunk_us / chunk_calls;
    fastest_chunk = fastest_chunk > 0 ? std::min(fastest_chunk, per_call) : per_call;
    const bool improving = previous_per_call > 0 ? per_call < 0.98 * previous_per_call : true;
    previous_per_call = per_call;
    if (!improving || warmup_elapsed_ms >= std::max(options.max_warmup_ms, options.warmup_ms)) break;
  }

  // 3. samples until the spread settles or the budget is spent.
  std::vector<double> samples;
  bool exhausted = false;
  const auto t0 = Clock::now();
  while (true) {
    samples.push_back(sample(inner));
    const auto n = static_cast<int>(samples.size());
    const double elapsed_ms = us_since(t0) / 1000.0;
    if (n >= options.min_samples) {
      const Summary s = summarize(samples);
      if (relative_iqr(s) <= options.target_rel_iqr) break;
      if (n >= options.max_samples) {
        exhausted = true;
        break;
      }
    }
    if (elapsed_ms > options.budget_ms && n >= std::min(options.min_samples, 3)) {
      exhausted = relative_iqr(summarize(samples)) > options.target_rel_iqr;
      break;
    }
  }
  Timing t =
      make_timing(std::move(samples), 1 + warmup_calls, inner, timing_method(device, events), exhausted);
  t.burst_us = fastest_chunk;
  return t;
}

}  // namespace accel::engine
