// GPU utilisation rules: what the front end's sampler saw while the device
// workloads ran (Result::gpu_busy, engine_api/busy_sampled_engine.hpp).
//
// Threshold: kGpuBusyLowPercent 20 (core/report/gpu_busy_rows.hpp). A
// device workload (an LLM prefill or decode, a training step) that keeps
// the GPU busy under a fifth of its time mostly waits on the host; the
// seed guides' advice is to watch Task Manager for exactly this. Items with
// fewer than kGpuBusyMinSamples samples (core/gpu_busy.hpp) are not judged,
// nor the LLM correctness item, batch sweeps (they probe until memory runs
// out), the per-step .item() cost rows (they synchronise on purpose), and
// rows with the profiler's own device-idle figure (the exact measurement).
#include <algorithm>

#include <fmt/format.h>

#include "core/gpu_busy.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr const char* kRefProfiler = "https://pytorch.org/tutorials/recipes/recipes/tuning_guide.html";

bool judged(const Result& r) {
  if (r.kind != ResultKind::llm && r.kind != ResultKind::train) return false;
  if (r.status != Status::ok || !r.gpu_busy || r.device.empty() || r.device == "cpu") return false;
  if (r.kind == ResultKind::llm && r.name == "correctness") return false;
  if (r.evidence.contains("curve") || r.metrics.count("item_cost_us")) return false;
  // A row whose profiler measured the device's busy time over the timed steps
  // (device_idle_fraction: llm decode on CUDA/ROCm) has the exact figure, and
  // rules_perf's launch-bound rule judges it; the sampled figure covers the
  // whole item with its warm-up and capture (on the H200, 2026-12-02: a graph
  // decode 87% busy by the profiler sampled at a median 3%).
  if (r.metrics.count("device_idle_fraction")) return false;
  return true;
}

void rule_gpu_busy_low(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> low, shown;
  int sampled = 0;
  double lowest = 100;
  for (const auto& r : c.report.results) {
    if (!judged(r)) continue;
    const GpuBusyDevice* d = busiest_gpu(*r.gpu_busy);
    if (!d) continue;
    ++sampled;
    if (d->median_percent >= kGpuBusyLowPercent) continue;
    low.push_back(r.key);
    lowest = std::min(lowest, d->median_percent);
    shown.push_back(fmt::format("{}: {} median {:.0f}% (max {:.0f}%, {} samples every {:.0f} ms, {})", r.key,
                                d->name.empty() ? d->id : d->name, d->median_percent, d->max_percent,
                                d->samples, r.gpu_busy->period_ms, d->source));
  }
  if (low.empty()) return;
  const bool most = 2 * low.size() >= static_cast<std::size_t>(sampled);
  out.push_back(make_finding(
      "gpu_busy.low", most ? Severity::warning : Severity::info, most ? 50 : 20,
      fmt::format(
          "The GPU was busy under {:.0f}% of the time in {} of {} device workloads (lowest median {:.0f}%)",
          kGpuBusyLowPercent, low.size(), sampled, lowest),
      list_some(shown, 4),
      "While a device workload runs the GPU should be busy most of the time. Under a fifth means it mostly "
      "waited: on the host (Python and the launch cost of many small kernels, data loading and "
      "host-to-device "
      "copies), on synchronisations (.item(), printing a loss every step), or on operations that fell back "
      "to "
      "the CPU. Faster GPU settings change nothing until that wait is gone. (The figure covers the whole "
      "item, its warm-up included, as sampled by accel-doctor: "
      "NVML, amdgpu's gpu_busy_percent or Windows' GPU Engine counters.)",
      "Look at what the host does between kernels: profile a step (torch.profiler, or accel-doctor's --trace "
      "FILE). Then: larger batches, fused operations (torch.compile) or CUDA/HIP graphs against launch "
      "overhead; DataLoader(num_workers>0, pin_memory=True) and non_blocking copies for input; no per-step "
      ".item() or print; `accel-doctor ops` to find operators that fall back to the CPU.",
      kRefProfiler));
}

}  // namespace

std::vector<RuleEntry> gpu_busy_rules() {
  return {
      {"gpu_busy.low",
       "an LLM or training workload on a GPU with the GPU busy under 20% (median, >= 5 samples)",
       rule_gpu_busy_low},
  };
}

}  // namespace accel::rules
