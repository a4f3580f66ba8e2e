// GPU utilisation sampled while the engine measures: the samples the
// front end's sampler takes (platform/gpu_busy.hpp reads them from NVML,
// amdgpu's sysfs or Windows' PDH counters) and the pure functions that turn
// the samples of one item's window into the `GpuBusy` recorded with its
// Result (core/evidence.hpp). No OS calls here: tested on recorded values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// One GPU at one sampling instant.
struct GpuBusyReading {
  std::string id;      ///< "pci:0000:19:00.0", "luid:0x00000000:0x0000d1a3" (GpuBusyDevice::id)
  std::string name;    ///< as the source names it (may be empty)
  std::string source;  ///< GpuBusyDevice::source
  /// The GPU's busy figure in percent (0-100): NVML's "gpu", amdgpu's
  /// gpu_busy_percent, PDH's busiest engine.
  double busy_percent = 0;
  std::map<std::string, double> engines_percent;  ///< engine -> percent (GpuEngineBusy::engine)
};

/// Every GPU's reading at one instant, `t_ms` after the sampler started.
struct GpuBusySample {
  double t_ms = 0;
  std::vector<GpuBusyReading> readings;
};

/// At most this many per-sample values are kept in GpuBusyDevice::percent.
inline constexpr std::size_t kGpuBusyKeptSamples = 240;

/// Samples an item needs before rules read its busy figure: with fewer (an
/// item shorter than ~5 sampling periods) the median says little.
inline constexpr int kGpuBusyMinSamples = 5;

/// The GpuBusy of the window [t0_ms, t1_ms] (milliseconds on the sampler's
/// clock): per GPU (by id, in first-seen order) the median and maximum of its
/// busy figure and of each engine over the samples inside the window, and
/// the busy figure of each sample (thinned to kGpuBusyKeptSamples). With no
/// sample in the window `not_measured` says so (the item was shorter than a
/// sampling period). `period_ms` is recorded as given.
GpuBusy summarize_gpu_busy(const std::vector<GpuBusySample>& samples, double t0_ms, double t1_ms,
                           double period_ms);

/// `values` evenly thinned to at most `keep` (first and last kept); unchanged when short enough.
std::vector<double> thin_evenly(const std::vector<double>& values, std::size_t keep);

/// The busiest GPU of an item: the device with the highest median among
/// those with at least `min_samples` samples; nullptr when none has enough.
const GpuBusyDevice* busiest_gpu(const GpuBusy& busy, int min_samples = kGpuBusyMinSamples);

}  // namespace accel
