#include "engines/torch/profiler.hpp"

#include <torch/csrc/autograd/profiler_kineto.h>

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "core/files.hpp"
#include "platform/process.hpp"

namespace accel::engine {

namespace {
namespace tp = torch::profiler::impl;
namespace ta = torch::autograd::profiler;

double duration_us(const ta::KinetoEvent& e) {
#if ACCEL_TORCH_AT_LEAST(2, 1)
  return static_cast<double>(e.durationNs()) / 1000.0;
#else
  return static_cast<double>(e.durationUs());
#endif
}

double start_us(const ta::KinetoEvent& e) {
#if ACCEL_TORCH_AT_LEAST(2, 1)
  return static_cast<double>(e.startNs()) / 1000.0;
#else
  return static_cast<double>(e.startUs());
#endif
}

/// Events from the in-memory list, for builds that cannot write a trace.
/// activityType() is libkineto's ActivityType; its first values have been
/// stable since torch 1.8: CPU_OP=0, USER_ANNOTATION=1, GPU_MEMCPY=3, GPU_MEMSET=4,
/// CONCURRENT_KERNEL=5, CUDA_RUNTIME=7, CUDA_DRIVER=8.
std::vector<TraceEvent> events_from_list(const ta::ProfilerResult& result) {
  std::vector<TraceEvent> out;
  for (const auto& e : result.events()) {
    TraceEvent t;
    t.name = e.name();
    t.dur_us = duration_us(e);
    t.ts_us = start_us(e);
    switch (e.activityType()) {
      case 0:
        t.kind = TraceEvent::Kind::op;
        break;
      case 1:
        t.kind = TraceEvent::Kind::annotation;
        break;
      case 3:
        t.kind = TraceEvent::Kind::memcpy;
        t.copy = copy_direction(t.name);
        t.bytes = static_cast<double>(e.nBytes());
        break;
      case 4:
        t.kind = TraceEvent::Kind::memset;
        break;
      case 5:
        t.kind = TraceEvent::Kind::kernel;
        break;
      case 7:
      case 8:
        t.kind = is_sync_call(t.name) ? TraceEvent::Kind::sync : TraceEvent::Kind::runtime;
        break;
      default:
        continue;
    }
    if (t.kind != TraceEvent::Kind::op && t.kind != TraceEvent::Kind::annotation) t.device = e.deviceIndex();
    t.correlation = static_cast<int64_t>(e.correlationId());
    out.push_back(std::move(t));
  }
  return out;
}

std::string temp_trace_path() {
  static int counter = 0;
  return (std::filesystem::temp_directory_path() /
          fmt::format("accel-doctor-trace-{}-{}.json", platform::process_id(), counter++))
      .string();
}
}  // namespace

Capture profile_call(const c10::Device& device, const std::function<void()>& fn, bool keep_trace) {
  Capture cap;
  tp::ProfilerConfig cfg(tp::ProfilerState::KINETO, false, false, false, false, false);
  std::set<tp::ActivityType> activities{tp::ActivityType::CPU};
  if (device.is_cuda()) activities.insert(tp::ActivityType::CUDA);  // CUDA and ROCm (HIP) alike
  try {
    ta::prepareProfiler(cfg, activities);
    ta::enableProfiler(cfg, activities);
  } catch (const std::exception& e) {
    cap.unavailable = "the profiler could not start: " + exception_message(e);
    return cap;
  }
  std::unique_ptr<ta::ProfilerResult> result;
  try {
    fn();
    synchronize(device);
  } catch (...) {
    try {
      ta::disableProfiler();
    } catch (...) {
    }
    throw;
  }
  try {
    result = ta::disableProfiler();
  } catch (const std::exception& e) {
    cap.unavailable = "the profiler failed to stop: " + exception_message(e);
    return cap;
  }
  if (!result) {
    cap.unavailable = "the profiler returned no result";
    return cap;
  }
  // Prefer the Chrome trace Kineto writes: it carries copy sizes and the
  // same categories as traces recorded elsewhere.
  const std::string path = temp_trace_path();
  bool saved = false;
  try {
    result->save(path);
    saved = true;
  } catch (const std::exception&) {
    // torch without Kineto cannot write a trace; use the event list below.
  }
  if (saved) {
    const std::string text = read_file(path).value_or(std::string());
    std::remove(path.c_str());
    try {
      cap.events = parse_chrome_trace(text);
      if (keep_trace) cap.trace_json = text;
      return cap;
    } catch (const std::exception&) {
      // fall through to the in-memory list
    }
  }
  cap.events = events_from_list(*result);
  return cap;
}

std::string profiler_self_check(const c10::Device& device) {
  if (device.is_cpu()) return {};
  try {
    const auto a = at::randn({256, 256}, at::TensorOptions().device(device));
    (void)at::matmul(a, a);  // warm: handle creation stays out of the capture
    synchronize(device);
    const Capture cap = profile_call(device, [&] { (void)at::matmul(a, a); });
    if (!cap.unavailable.empty()) return cap.unavailable;
    for (const auto& e : cap.events) {
      if (e.kind == TraceEvent::Kind::kernel) return {};
    }
    return "a 256x256 matrix product on " + device.str() +
           " showed no device kernels in the profiler (no CUPTI/roctracer activity in this build)";
  } catch (const std::exception& e) {
    return "the profiler self-check failed: " + exception_message(e);
  }
}

}  // namespace accel::engine
