// One measured item of the evidence model (core/evidence.hpp): Result, with
// its timing, work, accuracy, roofline, profile and GPU utilisation.
//
// Conventions: times in microseconds (`_us`), rates in their unit
// (`_gbps` = 1e9 bytes/s, `_tflops` = 1e12 FLOP/s), sizes in bytes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence_enums.hpp"
#include "core/json.hpp"

namespace accel {

// ---------------------------------------------------------------- timing

/// One measurement by the engine's timer. `samples_us` are per-call times
/// (each sample is the time of `inner` back-to-back calls divided by `inner`).
struct Timing {
  std::vector<double> samples_us;
  double median_us = 0;
  double iqr_us = 0;
  double min_us = 0;
  double max_us = 0;
  int warmup = 0;  ///< calls before the first sample
  int inner = 1;   ///< calls per sample
  /// "device_events"; "host_clock" (host clock around a stream synchronisation);
  /// "host_clock_scalar_copy" (around a synchronising one-element copy to the
  /// host: a plugin device without stream synchronisation or events)
  std::string method;
  bool noisy = false;             ///< IQR > 10% of the median
  bool budget_exhausted = false;  ///< stopped by the time budget before the spread settled
  /// The fastest per-call time of a warm-up chunk (back-to-back calls for
  /// warmup_ms, host clock around device syncs), 0 = not measured: the
  /// speed before sustained load lowers the clock. A median well above it
  /// means the device throttles under load (a power or thermal limit: the
  /// H200's bf16 GEMM runs at 1980 MHz for ~70 ms, then at ~1500 MHz and
  /// 690 W of its 700 W cap, nvidia-smi, 2026-11-30).
  double burst_us = 0;
};

/// Builds a Timing from raw per-call samples (fills median, IQR, noise flag).
Timing make_timing(std::vector<double> samples_us, int warmup, int inner, std::string method,
                   bool budget_exhausted = false);

// ---------------------------------------------------------------- results

/// Error text reduced to what a user needs, with the knowledge base's verdict.
struct ErrorInfo {
  std::string message;   ///< first line, without the C++ backtrace
  std::string cause_id;  ///< kb/errors id, empty when not recognised
  std::string cause;
  std::string fix;
  std::string reference;  ///< URL or document behind the cause
};

/// Work done by one call of the measured operation.
struct Work {
  double flops = 0;  ///< floating-point operations (a multiply-add counts 2)
  double bytes = 0;  ///< minimum device-memory traffic: inputs read once, outputs written once
};

/// Accuracy against a reference.
struct Accuracy {
  std::string method;    ///< "float64_reference", "statistical", "exact"
  double rel_error = 0;  ///< ||out - ref|| / ||ref|| (Frobenius), or the statistic used
  double tolerance = 0;
  std::string detail;
};

/// Where a figure sits against the hardware (filled by the roofline model).
struct Roofline {
  double intensity_flop_per_byte = 0;
  double peak_tflops = 0;
  std::string peak_source;  ///< "datasheet: ...", "measured", "estimated: formula"
  double bandwidth_gbps = 0;
  std::string bandwidth_source;
  double bound_tflops = 0;  ///< min(peak, intensity * bandwidth)
  double achieved_tflops = 0;
  double achieved_gbps = 0;
  double percent_of_bound = 0;
  bool above_peak = false;  ///< > 105% of the bound: likely a timing error
};

/// Where the work of one check ran, from a profiler capture of one call.
/// `where` is one of:
///   device_kernels  device kernels ran (the op has a device implementation)
///   cpu_fallback    device inputs, no device kernels, data copied to the host and back;
///                   or the backend announced that it ran ops of the check on the CPU
///                   (`fallback_ops`: torch-directml's "... will fall back to run on the CPU")
///   backend_kernels the profiler cannot see this backend's device work, the output
///                   stayed on the device, and the backend, which announces every CPU
///                   fallback, announced none: it ran on the device by its own account
///   no_device_work  no kernels and no copies (views, metadata)
///   profiler_blind  the profiler cannot see device activity on this build
///   host            the target is the CPU
///   unavailable     no profiler in this torch build (reason in `detail`)
/// One op a backend announced it ran on the CPU during a check, and what it
/// cost in the profiled call (the op's own time, its copies included).
struct FallbackOp {
  std::string op;        ///< as the backend names it: "aten::mul.out"
  std::string cause_id;  ///< the kb entry that recognised the announcement (op_cpu_fallback)
  int calls = 0;         ///< outermost calls of the op in the profiled call (0: not profiled)
  double time_us = 0;    ///< their total time in the profiled call
};

struct ProfileEvidence {
  Where where = Where::none;
  std::string detail;
  int kernel_count = 0;
  double kernel_time_us = 0;
  std::vector<std::string> kernels;  ///< longest first, at most 5
  int h2d_count = 0;
  double h2d_bytes = 0;
  int d2h_count = 0;
  double d2h_bytes = 0;
  int d2d_count = 0;
  double memcpy_time_us = 0;
  int memset_count = 0;
  int sync_count = 0;           ///< host waits on the device (stream/device/event syncs)
  double fallback_cost_us = 0;  ///< copy time a CPU fallback adds
  std::map<std::string, std::string> implementation;  ///< role -> library, e.g. gemm -> cuBLASLt
  std::vector<std::string> ops;                       ///< ATen ops seen, first few
  std::vector<FallbackOp> fallback_ops;               ///< ops the backend announced it ran on the CPU
  double call_us = 0;  ///< span of the profiled call's ops (the whole call, for a fallback's share)
};

/// One engine (or counter) of a GPU while an item ran, over the samples of
/// that item's window (core/gpu_busy.hpp).
struct GpuEngineBusy {
  /// NVML: "gpu" (a kernel was running), "memory" (the memory controller
  /// was reading or writing); amdgpu: "gfx" (gpu_busy_percent); PDH: the
  /// engine type of the instance name ("3D", "Compute_0", "Copy", ...).
  std::string engine;
  double median_percent = 0;
  double max_percent = 0;
};

/// One GPU's utilisation sampled by the front end while an item ran.
struct GpuBusyDevice {
  /// The join key to the environment: "pci:0000:19:00.0" (NVML, amdgpu) or
  /// "luid:0x00000000:0x0000d1a3" (PDH, the DXGI adapter's LUID).
  std::string id;
  std::string name;
  /// "NVML nvmlDeviceGetUtilizationRates", "amdgpu gpu_busy_percent",
  /// "PDH \GPU Engine(*)\Utilization Percentage".
  std::string source;
  int samples = 0;
  /// Of the GPU's busy figure per sample: NVML's "gpu", amdgpu's
  /// gpu_busy_percent, PDH's busiest engine (what Task Manager shows).
  double median_percent = 0;
  double max_percent = 0;
  std::vector<GpuEngineBusy> engines;
  /// The busy figure of each sample in order (at most 240, evenly thinned beyond).
  std::vector<double> percent;
};

/// GPU utilisation while an item ran: sampled every `period_ms` from the
/// item's start event to its result event (the whole item, warm-up
/// included), for every GPU the front end can sample.
struct GpuBusy {
  double period_ms = 0;
  double window_ms = 0;
  std::vector<GpuBusyDevice> devices;
  std::string not_measured;  ///< why there is no sample ("" when devices has some)
};

/// One measured item: an operator check, a benchmark, or a workload step.
struct Result {
  std::string key;  ///< stable across machines, e.g. "ops/matmul/gemm/bf16"
  ResultKind kind = ResultKind::none;
  std::string name;
  std::string category;
  std::string dtype;   ///< "fp32", "fp16", "bf16", "fp64", "int64", ...
  std::string shape;   ///< human-readable, e.g. "1024x1024 @ 1024x1024"
  std::string device;  ///< "cuda:0", "cpu"
  Status status = Status::skipped;
  std::string reason;                ///< why skipped/unavailable/off_device/mismatch
  std::optional<Timing> timing;      ///< on `device`
  std::optional<Timing> cpu_timing;  ///< same op on the CPU (when device is not the CPU)
  std::optional<double> speedup;     ///< cpu median / device median
  Work work;
  std::map<std::string, double> metrics;  ///< named figures with units in the name
  std::optional<Accuracy> accuracy;
  std::optional<Roofline> roofline;
  std::optional<ProfileEvidence> profile;
  std::vector<std::string> warnings;
  std::optional<ErrorInfo> error;
  json evidence = json::object();  ///< open-ended evidence (profiler, backend names)
  double wall_ms = 0;              ///< wall time spent on this item, all phases
  /// Where wall_ms went, in ms, by phase (operator checks: "inputs",
  /// "first_call", "reference", "device_timing", "cpu_timing", "profile"):
  /// the cost of the measurement itself, so the run's own speed can be tuned.
  std::map<std::string, double> phase_ms;
  /// GPU utilisation the front end sampled while this item ran (device items only).
  std::optional<GpuBusy> gpu_busy;
};

ACCEL_JSON_DECLARE(Timing)
ACCEL_JSON_DECLARE(ErrorInfo)
ACCEL_JSON_DECLARE(Work)
ACCEL_JSON_DECLARE(Accuracy)
ACCEL_JSON_DECLARE(Roofline)
ACCEL_JSON_DECLARE(FallbackOp)
ACCEL_JSON_DECLARE(ProfileEvidence)
ACCEL_JSON_DECLARE(GpuEngineBusy)
ACCEL_JSON_DECLARE(GpuBusyDevice)
ACCEL_JSON_DECLARE(GpuBusy)
ACCEL_JSON_DECLARE(Result)

}  // namespace accel
