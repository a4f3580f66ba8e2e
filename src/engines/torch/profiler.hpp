// Captures one call under the libtorch profiler (Kineto, CPU + device
// activities) and returns neutral events (core/profile.hpp). Engine-internal.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/profile.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

struct Capture {
  std::vector<TraceEvent> events;
  std::string unavailable;  ///< non-empty when no capture was possible, with the reason
  std::string trace_json;   ///< the Chrome trace text when the build can write one (Kineto)
};

/// Runs `fn` once (then synchronises the device) under the profiler.
/// Never throws: a profiler failure is reported in `unavailable`; an
/// exception from `fn` propagates after the profiler is stopped.
Capture profile_call(const c10::Device& device, const std::function<void()>& fn, bool keep_trace = false);

/// Self-check: does the profiler see device kernels for a known device op
/// (a 256x256 matrix product)? Empty string when it does, else why not.
std::string profiler_self_check(const c10::Device& device);

}  // namespace accel::engine
