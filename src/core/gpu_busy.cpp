#include "core/gpu_busy.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/stats.hpp"

namespace accel {

std::vector<double> thin_evenly(const std::vector<double>& values, std::size_t keep) {
  if (values.size() <= keep || keep == 0) return keep == 0 ? std::vector<double>{} : values;
  if (keep == 1) return {values.front()};
  std::vector<double> out;
  out.reserve(keep);
  const double step = static_cast<double>(values.size() - 1) / static_cast<double>(keep - 1);
  for (std::size_t i = 0; i < keep; ++i) {
    const auto at = static_cast<std::size_t>(std::lround(static_cast<double>(i) * step));
    out.push_back(values[std::min(at, values.size() - 1)]);
  }
  return out;
}

namespace {

double clamp_percent(double v) {
  if (!std::isfinite(v)) return 0;
  return std::clamp(v, 0.0, 100.0);
}

struct Accumulator {
  GpuBusyDevice device;
  std::vector<double> busy;
  std::vector<std::string> engine_order;
  std::map<std::string, std::vector<double>> engines;
};

}  // namespace

GpuBusy summarize_gpu_busy(const std::vector<GpuBusySample>& samples, double t0_ms, double t1_ms,
                           double period_ms) {
  GpuBusy out;
  out.period_ms = period_ms;
  out.window_ms = std::max(0.0, t1_ms - t0_ms);
  std::vector<Accumulator> acc;
  int in_window = 0;
  for (const auto& s : samples) {
    if (s.t_ms < t0_ms || s.t_ms > t1_ms) continue;
    ++in_window;
    for (const auto& r : s.readings) {
      auto it =
          std::find_if(acc.begin(), acc.end(), [&r](const Accumulator& a) { return a.device.id == r.id; });
      if (it == acc.end()) {
        acc.emplace_back();
        it = acc.end() - 1;
        it->device.id = r.id;
        it->device.name = r.name;
        it->device.source = r.source;
      }
      it->busy.push_back(clamp_percent(r.busy_percent));
      for (const auto& [engine, v] : r.engines_percent) {
        if (!it->engines.count(engine)) it->engine_order.push_back(engine);
        it->engines[engine].push_back(clamp_percent(v));
      }
    }
  }
  for (auto& a : acc) {
    const Summary s = summarize(a.busy);
    a.device.samples = static_cast<int>(a.busy.size());
    a.device.median_percent = s.median;
    a.device.max_percent = s.max;
    for (const auto& e : a.engine_order) {
      const Summary es = summarize(a.engines[e]);
      a.device.engines.push_back({e, es.median, es.max});
    }
    a.device.percent = thin_evenly(a.busy, kGpuBusyKeptSamples);
    out.devices.push_back(std::move(a.device));
  }
  if (out.devices.empty()) {
    out.not_measured = in_window == 0
                           ? fmt::format("no sample in the item's {:.0f} ms (sampled every {:.0f} ms)",
                                         out.window_ms, period_ms)
                           : "no GPU answered during the item";
  }
  return out;
}

const GpuBusyDevice* busiest_gpu(const GpuBusy& busy, int min_samples) {
  const GpuBusyDevice* best = nullptr;
  for (const auto& d : busy.devices) {
    if (d.samples < min_samples) continue;
    if (!best || d.median_percent > best->median_percent) best = &d;
  }
  return best;
}

}  // namespace accel
