// GPU utilisation while the engine measures ("watch Task Manager", done for
// the user): sources that read every GPU's busy figure now, and a sampler
// thread that reads them every period and keeps the samples, so the front
// end can summarise the window of each item (core/gpu_busy.hpp). Sources:
//   NVML         nvmlDeviceGetUtilizationRates: percent of the last sample
//                period (1/6 s to 1 s, by GPU) in which a kernel ran ("gpu")
//                and the memory was read or written ("memory"); every NVIDIA GPU
//   amdgpu       <sys>/bus/pci/devices/<address>/gpu_busy_percent (the
//                driver's own average, amdgpu_pm.c); every amdgpu GPU
//   PDH          \GPU Engine(*)\Utilization Percentage (Windows, every
//                vendor): per process and engine, summed per engine, the
//                busiest engine is the GPU's figure, as in Task Manager
// On Windows PDH is used and NVML only when PDH cannot be opened; on Linux
// NVML and amdgpu. Nothing throws: a source that cannot be opened is a line
// in `unavailable`, one that fails to read returns no reading that time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/evidence.hpp"
#include "core/gpu_busy.hpp"
#include "platform/probes.hpp"

namespace accel::platform {

/// Reads every GPU it covers, now. Never throws; a failed read returns
/// fewer (or no) readings.
class GpuBusySource {
 public:
  virtual ~GpuBusySource() = default;
  virtual std::vector<GpuBusyReading> read() = 0;
};

struct GpuBusySources {
  std::vector<std::unique_ptr<GpuBusySource>> sources;
  /// One line per source that could not be opened ("NVML: libnvidia-ml.so.1
  /// not found: ..."), for the "not measured" reason.
  std::vector<std::string> unavailable;
};

/// The sources for this machine: `gpus` are the environment's GPUs (the
/// amdgpu source reads the AMD ones with a `gpu_busy_percent` under
/// `roots.sys`; with `roots.use_vendor_libraries` off, NVML is not opened).
GpuBusySources open_gpu_busy_sources(const std::vector<GpuHardware>& gpus, const ProbeRoots& roots = {});

/// A thread that reads its sources every `period_ms` between start() and
/// stop() and keeps the timestamped samples (milliseconds since construction,
/// steady clock). Thread-safe; the destructor stops it.
class GpuBusySampler {
 public:
  GpuBusySampler(GpuBusySources sources, double period_ms);
  ~GpuBusySampler();
  GpuBusySampler(const GpuBusySampler&) = delete;
  GpuBusySampler& operator=(const GpuBusySampler&) = delete;

  /// Starts sampling (a first sample at once); no-op when running or without sources.
  void start();
  /// Stops and joins the thread; the samples are kept.
  void stop();
  /// Milliseconds since construction on the samples' clock.
  double now_ms() const;
  double period_ms() const { return period_ms_; }
  bool has_sources() const { return !sources_.sources.empty(); }
  /// Why nothing is sampled (the sources that could not be opened), "" when some are.
  std::string why_not() const;
  /// The window's summary (core summarize_gpu_busy over the samples so far).
  GpuBusy summary(double t0_ms, double t1_ms) const;
  /// Drops the samples (between runs).
  void clear();

 private:
  void loop();
  void sample_once();

  GpuBusySources sources_;
  double period_ms_;
  std::chrono::steady_clock::time_point epoch_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_requested_ = false;
  std::thread thread_;
  std::vector<GpuBusySample> samples_;
};

/// The sampling period the front end uses: ACCEL_DOCTOR_GPU_BUSY_MS when it
/// is a number (0 turns sampling off; at least 20), else 100 ms (250 ms on
/// Windows, where PDH's GPU Engine counters cost more to collect). A value
/// that is not a number of milliseconds gives the default and, in `problem`,
/// one line saying so.
double gpu_busy_period_from_environment(std::string* problem = nullptr);

namespace detail {

/// A PDH `GPU Engine` instance name taken apart:
/// "pid_1234_luid_0x00000000_0x0000D1A3_phys_0_eng_3_engtype_Compute_0".
struct PdhGpuEngineInstance {
  std::uint32_t pid = 0;
  std::string luid;     ///< "0x00000000:0x0000d1a3" (format_luid: DXGI's form)
  int phys = 0;         ///< physical adapter (linked adapters)
  int eng = 0;          ///< engine index on that adapter
  std::string engtype;  ///< "3D", "Compute_0", "Copy", "VideoDecode", ... (as written)
};
/// nullopt for anything not of that shape (other counters, "_Total", a
/// number out of range). Hex digits of either case; engine types may
/// contain underscores.
std::optional<PdhGpuEngineInstance> parse_pdh_gpu_engine_instance(std::string_view name);

/// One PDH sample's (instance name, Utilization Percentage) pairs as one
/// reading per adapter LUID (id "luid:<luid>", source PDH): each engine
/// (phys, eng) is the sum over processes, at most 100; each engine type
/// (the engtype, a trailing "_N" kept) the busiest engine of that type; the
/// adapter's busy figure the busiest engine. Unparsable names and
/// non-finite or negative values are skipped. Adapters in first-seen order.
std::vector<GpuBusyReading> aggregate_pdh_gpu_engines(
    const std::vector<std::pair<std::string, double>>& items);

/// amdgpu's gpu_busy_percent ("37\n") as a percent; nullopt when not a number or above 100.
std::optional<double> parse_gpu_busy_percent(std::string_view text);

/// The PDH source (windows/: the live counters through pdh.dll; elsewhere
/// nullptr with `why` "PDH is Windows only").
std::unique_ptr<GpuBusySource> open_pdh_gpu_busy_source(std::string& why);
/// The NVML source (nvml.cpp): every device NVML lists; nullptr with `why` when NVML cannot start.
std::unique_ptr<GpuBusySource> open_nvml_gpu_busy_source(std::string& why);

}  // namespace detail

}  // namespace accel::platform
