// The evidence model: plain data that the engine and the probes produce, that
// `--json` writes, and that rules, reporters, `compare` and `diagnose --from`
// read back. No torch here. The JSON schema is documented in docs/report-schema.md;
// bump kSchemaVersion on any incompatible change.
//
// Conventions: sizes in bytes (`_bytes`), times in microseconds (`_us`),
// rates in their unit (`_gbps` = 1e9 bytes/s, `_tflops` = 1e12 FLOP/s).
// A field a probe could not collect is left empty and its name is added to
// `not_collected` with the reason, so every report says why a value is missing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/topology.hpp"

namespace accel {

inline constexpr int kSchemaVersion = 1;

/// Why a field is missing: field name -> reason.
using NotCollected = std::map<std::string, std::string>;

// ---------------------------------------------------------------- status

/// Outcome of one check. See docs/report-schema.md for the exact meanings.
enum class Status {
  ok,           ///< ran on the target device, result right
  error,        ///< threw; `error` holds the message, cause and fix
  off_device,   ///< output not on the target device
  mismatch,     ///< wrong against the CPU float64 reference (or statistics)
  unavailable,  ///< op or dtype not in this torch build
  crashed,      ///< the worker process died during the check
  hung,         ///< the check passed its time limit
  skipped,      ///< not run; `reason` says why
};

std::string_view to_string(Status s);
/// Parses a status name; returns nullopt for an unknown name.
std::optional<Status> status_from_string(std::string_view name);
/// True for the statuses that make `ops` exit with 1.
bool is_failure(Status s);

// ---------------------------------------------------------------- closed sets

/// What produced a Result (`Result::kind`). Written by name ("check", ...);
/// `none` is the empty name of a result that no suite has claimed yet.
enum class ResultKind {
  none,   ///< ""
  check,  ///< an operator check (ops, vulkan, ort)
  bench,  ///< a benchmark (bench, the default run's GEMM/bandwidth items)
  llm,    ///< an LLM inference step
  train,  ///< a training step
  multi,  ///< a multi-GPU/communication item
  phase,  ///< a phase row of the default run
};
std::string_view to_string(ResultKind k);
/// Parses a result kind name ("" is `none`); nullopt for an unknown name.
std::optional<ResultKind> result_kind_from_string(std::string_view name);

/// How much a Finding matters. Written by name; `none` is the empty name of a
/// finding built without one (shown as "note").
enum class Severity {
  none,      ///< ""
  critical,  ///< the run is wrong or the device does not do the work
  warning,   ///< slower than it should be, or a risk
  info,      ///< advice; never changes the exit code
};
std::string_view to_string(Severity s);
/// Parses a severity name ("" is `none`); nullopt for an unknown name.
std::optional<Severity> severity_from_string(std::string_view name);

/// Where the work of one check ran (`ProfileEvidence::where`); the meanings
/// are documented at ProfileEvidence. Written by name; `none` is "".
enum class Where {
  none,             ///< "": not profiled
  device_kernels,   ///< "device_kernels"
  cpu_fallback,     ///< "cpu_fallback"
  backend_kernels,  ///< "backend_kernels"
  no_device_work,   ///< "no_device_work"
  profiler_blind,   ///< "profiler_blind"
  host,             ///< "host"
  unavailable,      ///< "unavailable"
};
std::string_view to_string(Where w);
/// Parses a `where` name ("" is `none`); nullopt for an unknown name.
std::optional<Where> where_from_string(std::string_view name);

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

// ---------------------------------------------------------------- environment

struct HostInfo {
  std::string os;      ///< "Debian GNU/Linux 12 (bookworm)"
  std::string kernel;  ///< uname -sr
  std::string hostname;
  std::string arch;  ///< "x86_64"
  std::string cpu_model;
  std::optional<int> logical_cores;
  std::optional<int> physical_cores;
  std::optional<double> cpu_max_mhz;
  /// Where cpu_max_mhz comes from: "cpufreq cpuinfo_max_freq", or, where
  /// there is no cpufreq (virtual machines, containers), the highest
  /// "cpu MHz" of /proc/cpuinfo: a current clock, so peaks estimated from it
  /// may be under the real maximum.
  std::string cpu_clock_source;
  std::vector<std::string> simd;  ///< "avx2", "avx512f", "amx_tile", ...
  std::optional<std::uint64_t> memory_total_bytes;
  std::optional<std::uint64_t> memory_available_bytes;
  std::string cpu_governor;  ///< cpufreq scaling governor / power plan
  /// CPUs this process may run on (its affinity mask: /proc/self/status
  /// Cpus_allowed_list, e.g. from taskset, numactl, a container's cpuset).
  std::optional<int> affinity_cpus;
  std::string affinity_list;  ///< the mask as the kernel writes it, "0-3,8"
  /// CPUs' worth of time the cgroup CPU quota allows per period (cgroup v2
  /// cpu.max, v1 cfs_quota_us / cfs_period_us): `docker run --cpus 2` = 2.0.
  std::optional<double> cpu_quota_cpus;
  /// The cgroup memory limit in bytes (v2 memory.max, v1 limit_in_bytes).
  std::optional<std::uint64_t> memory_limit_bytes;
  NotCollected not_collected;
};

struct BlasInfo {
  std::string name;     ///< "openblas", "mkl", "blis", "reference", "accelerate", "unknown"
  std::string library;  ///< path of the loaded library
  std::string version;
  std::string evidence;  ///< how it was recognised
  NotCollected not_collected;
};

/// A Python module the Python-hosted engine imported before measuring
/// (`--import MODULE`, or `torch_directml` for `--device dml`): plugins that
/// register devices (PrivateUse1 backends, Intel's XPU extension).
struct PluginModule {
  std::string module;   ///< "torch_directml"
  std::string version;  ///< its __version__, when it has one
  std::string error;    ///< why the import failed (empty: imported)
};

/// Which program hosted the torch engine that measured.
enum class EngineHostKind {
  native,  ///< the accel-doctor-torch executable, linked to a libtorch at build time
  python,  ///< the accel_doctor Python package's extension module, inside the user's interpreter
};

struct EngineHost {
  EngineHostKind kind = EngineHostKind::native;
  std::string python_executable;     ///< sys.executable (kind python)
  std::string python_version;        ///< "3.11.2"
  std::string torch_python_version;  ///< torch.__version__ as Python sees it ("2.11.0+cu130")
  std::vector<PluginModule> plugins;
  /// The engine command line the front end ran, and where it looked first
  /// (filled by the front end: "no accel-doctor-torch beside accel-doctor").
  std::vector<std::string> command;
  std::vector<std::string> not_found;
};

struct TorchInfo {
  std::string version;  ///< "2.11.0"
  std::string source;   ///< how the build found it (Python torch, system libtorch)
  std::string backend;  ///< "cuda", "rocm", "cpu" (what the build links)
  std::optional<bool> cxx11_abi;
  std::string config;                        ///< at::show_config() verbatim
  std::map<std::string, std::string> build;  ///< parsed show_config: BLAS_INFO, USE_CUDA, ...
  std::string cuda_version;                  ///< runtime the build targets
  std::string hip_version;
  std::string cudnn_version;
  std::string miopen_version;
  std::string openmp;
  std::string cpu_capability;          ///< "AVX2", "AVX512"
  std::vector<std::string> arch_list;  ///< "sm_90", "gfx1030", ...
  std::optional<int> intra_op_threads;
  std::optional<int> inter_op_threads;
  std::map<std::string, bool> features;  ///< "sdpa", "kineto", "flash_attention", ...
  EngineHost host;                       ///< the engine program (native or Python) that measured
  NotCollected not_collected;
};

/// An accelerator as torch sees it.
struct DeviceInfo {
  std::string id;  ///< "cuda:0"
  int index = 0;
  std::string type;  ///< "cuda", "hip" (reported as cuda by torch), "mps", "xpu", "privateuseone", "cpu"
  std::string name;
  std::string vendor;  ///< "nvidia", "amd", "intel", "apple"
  std::string arch;    ///< "sm_90", "gfx1032"
  std::optional<std::uint64_t> total_memory_bytes;
  std::optional<int> multiprocessors;
  std::optional<bool> integrated;
  std::optional<bool> arch_in_build;
  std::string pci_bus_id;
  /// The backend driving it when it is not the torch build's own (a plugin
  /// or torch's generic XPU/PrivateUse1 device types): "dml" (torch-directml),
  /// "xpu", "testdev" (tests/python/testdev); "" for the build's own.
  std::string backend;
  std::string plugin;  ///< the Python module that registered it ("torch_directml"); "" for none
  /// The plugin announces every op it runs on the CPU with a warning
  /// (torch-directml does), so a check without one ran on the device.
  std::optional<bool> announces_cpu_fallback;
  /// The Windows adapter (environment.windows.adapters) this device was joined
  /// to (DirectML devices, core/directml_join.hpp), and how.
  std::string luid;
  std::optional<int> dxgi_index;
  std::string adapter_join;
  NotCollected not_collected;
};

struct PcieLink {
  std::string current_speed;  ///< as sysfs writes it, "16.0 GT/s PCIe"
  std::string max_speed;
  std::optional<int> current_width;
  std::optional<int> max_width;
};

/// A display-class PCI device found without torch (sysfs, KFD, NVML).
struct GpuHardware {
  std::string pci_address;  ///< "0000:03:00.0"
  std::string vendor_id;    ///< "0x1002"
  std::string device_id;
  std::string vendor;  ///< "amd", "nvidia", "intel", other
  std::string name;    ///< from NVML, the KFD, or pci.ids when present
  std::string driver;  ///< kernel driver bound: "amdgpu", "nvidia", "i915", ""
  std::optional<bool> integrated;
  std::string integrated_basis;  ///< why we think so
  std::optional<bool> boot_vga;
  std::optional<PcieLink> link;
  std::optional<std::uint64_t> vram_bytes;
  std::string gfx_target;             ///< "gfx1032" (AMD, from the KFD topology)
  std::string compute_capability;     ///< "9.0" (NVIDIA, from NVML / driver API)
  json vendor_info = json::object();  ///< NVML or amdgpu details: clocks, utilisation, processes
  NotCollected not_collected;
};

/// Driver and runtime facts gathered without torch.
struct DriverInfo {
  std::string nvidia_driver;              ///< NVML driver version
  std::string cuda_driver_api;            ///< cuDriverGetVersion, "13.0"
  std::string cuda_init_error;            ///< cuInit's error, when it failed
  std::string rocm_version;               ///< /opt/rocm/.info/version
  std::string amdgpu_driver;              ///< /sys/module/amdgpu/version
  std::vector<std::string> device_nodes;  ///< /dev/nvidia*, /dev/kfd with access result
  NotCollected not_collected;
};

struct EnvVar {
  std::string name;
  std::string value;
  std::string effect;  ///< what it does, from kb/env_vars.json
};

struct DeviceChoice {
  std::string requested;  ///< "auto", "cpu", "cuda:1"
  std::string chosen;     ///< "cuda:0"
  std::string reason;
};

/// A DLL (or other file) found on disk, with the version from its version
/// resource (GetFileVersionInfoW, VS_FIXEDFILEINFO's file version).
struct WindowsFile {
  std::string name;     ///< "DirectML.dll"
  std::string path;     ///< full path where it was found
  std::string where;    ///< "System32", "PATH", "HIP_PATH\bin", "site-packages"
  std::string version;  ///< "1.15.2.0"; empty when the file has no version resource
};

/// One adapter as DXGI enumerates it (IDXGIFactory1::EnumAdapters1,
/// IDXGIAdapter1::GetDesc1, IDXGIAdapter::CheckInterfaceSupport).
struct WindowsAdapter {
  /// EnumAdapters1 order: what DirectML's and ONNX Runtime's `device_id`
  /// and torch-directml's device index mean. 0 drives the primary display.
  int dxgi_index = -1;
  /// IDXGIFactory6::EnumAdapterByGpuPreference(HIGH_PERFORMANCE) order;
  /// absent before Windows 10 1803 or when the call failed.
  std::optional<int> high_performance_index;
  std::string name;       ///< DXGI_ADAPTER_DESC1::Description
  std::string vendor_id;  ///< "0x1002"
  std::string device_id;  ///< "0x73ef"
  std::string vendor;     ///< "amd", "nvidia", "intel", "microsoft", other
  /// "0x00000000:0x0000d1a3" (HighPart:LowPart): the key that joins this
  /// adapter to the lists of torch, ONNX Runtime, Vulkan (deviceLUID) and HIP.
  std::string luid;
  std::optional<std::uint64_t> dedicated_video_memory_bytes;
  std::optional<std::uint64_t> dedicated_system_memory_bytes;
  std::optional<std::uint64_t> shared_system_memory_bytes;
  bool software = false;       ///< DXGI_ADAPTER_FLAG_SOFTWARE (Microsoft Basic Render Driver, WARP)
  std::string driver_version;  ///< user-mode driver version, "31.0.24027.1012"
  std::optional<bool> integrated;
  /// How `integrated` was decided: DXCore IsIntegrated, else D3D12's UMA, else a heuristic named as such.
  std::string integrated_basis;
  std::optional<bool> hardware;  ///< DXCore IsHardware (false: a software or remote adapter)
  /// The kernel-mode driver model, DXCore KmdModelVersion as "WDDM 3.1" ("" when DXCore did not answer).
  std::string wddm_version;
  NotCollected not_collected;
};

/// A Python interpreter found on the machine and what its site-packages hold.
struct WindowsPython {
  std::string path;                        ///< "C:\Users\me\venv\Scripts\python.exe"
  std::string found_by;                    ///< "--python", "engine", "PATH", "registry (PEP 514)"
  std::vector<std::string> site_packages;  ///< the folders that exist
  std::string torch_version;               ///< torch/version.py __version__ ("2.6.0+rocm6.2.4")
  std::string torch_hip_version;   ///< torch/version.py hip ("6.2.41134-65d174c3e"), "" for other builds
  std::string torch_cuda_version;  ///< torch/version.py cuda
  NotCollected not_collected;
};

/// A running process of interest (python*.exe) and whether it runs in
/// efficiency mode (EcoQoS: ProcessPowerThrottling with EXECUTION_SPEED set).
struct WindowsProcessQos {
  std::uint32_t pid = 0;
  std::string path;
  std::optional<bool> ecoqos;
  std::string why;  ///< why ecoqos is unknown (access denied, ...)
};

/// Windows-only facts (environment.windows): what the seed guides have users
/// read by hand in dxdiag, Task Manager, the power dialogs, the registry and
/// the security settings. Absent from reports made on other systems.
struct WindowsInfo {
  std::optional<int> os_build;  ///< RtlGetVersion dwBuildNumber, 22631
  std::vector<WindowsAdapter> adapters;
  /// Hardware-accelerated GPU scheduling (HKLM\...\GraphicsDrivers HwSchMode: 2 on, 1 off).
  std::optional<bool> hardware_gpu_scheduling;
  /// TDR delay in seconds (GraphicsDrivers TdrDelay; Windows' default is 2 when the value is absent).
  std::optional<int> tdr_delay_s;
  std::string tdr_delay_source;  ///< "registry TdrDelay" or "Windows default (no TdrDelay value)"
  /// Per-app GPU preferences (HKCU\Software\Microsoft\DirectX\UserGpuPreferences)
  /// of python executables: path -> "high performance", "power saving", "let Windows decide".
  std::map<std::string, std::string> python_gpu_preference;
  std::string power_scheme;       ///< "Balanced" (PowerGetActiveScheme + name)
  std::string power_scheme_guid;  ///< "381b4222-f694-41f0-9685-ff5bb260df2e"
  std::string power_mode;         ///< Windows 10/11 power mode overlay: "best performance", ...
  std::string power_source;       ///< "ac", "battery", "unknown" (GetSystemPowerStatus)
  std::optional<int> battery_percent;
  std::optional<bool> battery_saver;  ///< SYSTEM_POWER_STATUS::SystemStatusFlag
  /// This process runs with EcoQoS (efficiency mode): ProcessPowerThrottling
  /// with EXECUTION_SPEED throttled.
  std::optional<bool> process_ecoqos;
  std::optional<bool> remote_session;  ///< GetSystemMetrics(SM_REMOTESESSION)
  /// Smart App Control: "off", "on", "evaluation" (HKLM\SYSTEM\CurrentControlSet\Control\CI\Policy
  /// VerifiedAndReputablePolicyState 0/1/2), or "unknown value N".
  std::string smart_app_control;
  std::string hip_path;                  ///< %HIP_PATH%
  std::vector<WindowsFile> hip_runtime;  ///< amdhip64_6.dll / amdhip64_7.dll found
  std::string hsa_override_gfx_version;  ///< %HSA_OVERRIDE_GFX_VERSION% (has no effect on Windows)
  std::vector<WindowsFile> vc_runtime;   ///< msvcp140.dll, vcruntime140.dll, vcruntime140_1.dll, libomp140
  std::vector<WindowsFile> directml;     ///< DirectML.dll copies: System32, PATH, site-packages
  std::vector<WindowsFile> onnxruntime;  ///< onnxruntime.dll copies on PATH and in site-packages
  /// The onnxruntime.dll copies (paths) built with the DirectML execution
  /// provider: the file names DirectML.dll (its delay-load import).
  std::vector<std::string> onnxruntime_directml_ep;
  std::vector<WindowsPython> pythons;  ///< interpreters looked at (--python, the engine's, PATH, PEP 514)
  std::vector<WindowsFile>
      torch_hip_runtime;  ///< torch\lib\amdhip64*.dll inside a site-packages (where: its folder)
  std::vector<WindowsProcessQos> python_processes;  ///< running python*.exe and their EcoQoS
  /// AMD Software: Adrenalin Edition version ("24.12.1"): HKLM\SOFTWARE\AMD\CN RadeonSoftwareVersion,
  /// else the display class key of an AMD adapter.
  std::string adrenalin_version;
  std::string adrenalin_version_source;
  /// Runtime DLLs searched for and not found in System32 or on PATH ("msvcp140.dll").
  std::vector<std::string> runtimes_missing;
  NotCollected not_collected;
};

/// An execution-provider device as ONNX Runtime lists it (OrtApi::GetEpDevices,
/// ONNX Runtime >= 1.22; on Windows the hardware metadata comes from DXGI and
/// DXCore: Description, LUID, Discrete, DxgiAdapterNumber,
/// DxgiHighPerformanceIndex, DxgiVideoMemory).
struct OrtEpDevice {
  std::string ep_name;           ///< "DmlExecutionProvider", "CPUExecutionProvider"
  std::string ep_vendor;         ///< "Microsoft"
  std::string type;              ///< "cpu", "gpu", "npu" (OrtHardwareDeviceType)
  std::string vendor;            ///< the hardware vendor as the runtime names it ("AMD", "Intel")
  std::string vendor_id;         ///< "0x1002"
  std::string device_id;         ///< "0x73ef"
  std::string name;              ///< metadata Description
  std::string luid;              ///< "0xHHHHHHHH:0xLLLLLLLL" from metadata LUID (Windows), "" when absent
  std::optional<bool> discrete;  ///< metadata Discrete (DXCore IsIntegrated)
  std::optional<int> dxgi_adapter_number;          ///< EnumAdapters1 order: what DML's device_id means
  std::optional<int> dxgi_high_performance_index;  ///< EnumAdapterByGpuPreference(HIGH_PERFORMANCE) order
  std::optional<std::uint64_t> memory_bytes;       ///< DxgiVideoMemory ("8176 MB")
  std::optional<int> windows_adapter;  ///< environment.windows.adapters[].dxgi_index of the same LUID
  std::map<std::string, std::string> metadata;     ///< every hardware metadata entry as given
  std::map<std::string, std::string> ep_metadata;  ///< the EP's own metadata (version, library_path)
};

/// The ONNX Runtime the `ort` engine found and what it offers (absent when
/// the engine did not run).
struct OnnxRuntimeInfo {
  std::string library;   ///< the file that loaded
  std::string found_by;  ///< "--onnxruntime", "library path", "Python package (/usr/bin/python3)"
  std::string version;   ///< GetVersionString: "1.30.0"
  int api_version = 0;   ///< the OrtApi version in use (negotiated down to what both know)
  std::string build_info;
  /// How check models reach the runtime: "model_editor" (OrtModelEditorApi,
  /// >= 1.22) or "protobuf" (accel-doctor's ONNX writer).
  std::string model_path;
  std::vector<std::string> providers;  ///< GetAvailableProviders (built in; not all may load)
  std::vector<OrtEpDevice> ep_devices;
  std::string python;                        ///< the interpreter asked for its packages
  std::vector<std::string> python_packages;  ///< every onnxruntime* distribution it has: "onnxruntime 1.19.2"
  std::string directml_library;              ///< DirectML.dll loaded from beside the runtime (Windows)
  std::string device;                        ///< what the run measured: "cpu", "dml:1", "cuda:0"
  std::string device_reason;                 ///< why that device
  std::vector<std::string> warnings;   ///< device-choice warnings (device_id 0 is the integrated GPU, ...)
  std::vector<std::string> not_found;  ///< places looked at that gave no runtime, with why
  NotCollected not_collected;
};

struct Environment {
  HostInfo host;
  TorchInfo torch;
  BlasInfo blas;
  DriverInfo driver;
  std::vector<DeviceInfo> devices;
  std::vector<GpuHardware> gpus;
  std::vector<EnvVar> env_vars;
  std::optional<DeviceChoice> selection;
  std::optional<WindowsInfo> windows;  ///< only in reports made on Windows
  /// Links between GPUs, NUMA, IOMMU/ACS, /dev/shm (core/topology.hpp): only
  /// with two or more GPUs, or from `accel-doctor multi`.
  std::optional<Topology> topology;
  std::optional<OnnxRuntimeInfo> onnxruntime;  ///< only when the ONNX Runtime engine ran
};

// ---------------------------------------------------------------- report

struct Finding {
  std::string id;
  Severity severity = Severity::none;
  std::string title;
  std::string evidence;
  std::string why;
  std::string fix;
  std::string reference;
  double impact = 0;  ///< expected impact used to rank (higher first)
};

struct ToolInfo {
  std::string version;
  std::string commit;
};

struct Context {
  ToolInfo tool;
  std::string started_at;  ///< RFC 3339
  std::string finished_at;
  std::vector<std::string> argv;
  std::string command;  ///< "ops", "env", "doctor", ...
  Environment environment;
};

struct Report {
  int schema_version = kSchemaVersion;
  Context context;
  std::vector<Result> results;
  std::vector<Finding> findings;
  std::string verdict;
};

/// Current tool version and git commit (compiled in).
ToolInfo tool_info();
/// Now as RFC 3339 UTC, e.g. "2026-11-29T21:12:17Z".
std::string now_rfc3339();

// JSON (de)serialisation. Readers accept missing fields (defaults) and ignore
// unknown ones. Status is written by name and an unknown name is an error.
void to_json(json& j, const Status& v);
void from_json(const json& j, Status& v);
// The other closed sets likewise: a name that is not a string is nlohmann's
// type_error, an unknown name a ReportError naming the set and the value.
void to_json(json& j, const ResultKind& v);
void from_json(const json& j, ResultKind& v);
void to_json(json& j, const Severity& v);
void from_json(const json& j, Severity& v);
void to_json(json& j, const Where& v);
void from_json(const json& j, Where& v);

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
ACCEL_JSON_DECLARE(HostInfo)
ACCEL_JSON_DECLARE(BlasInfo)
NLOHMANN_JSON_SERIALIZE_ENUM(EngineHostKind,
                             {{EngineHostKind::native, "native"}, {EngineHostKind::python, "python"}})
ACCEL_JSON_DECLARE(PluginModule)
ACCEL_JSON_DECLARE(EngineHost)
ACCEL_JSON_DECLARE(TorchInfo)
ACCEL_JSON_DECLARE(DeviceInfo)
ACCEL_JSON_DECLARE(PcieLink)
ACCEL_JSON_DECLARE(GpuHardware)
ACCEL_JSON_DECLARE(DriverInfo)
ACCEL_JSON_DECLARE(EnvVar)
ACCEL_JSON_DECLARE(DeviceChoice)
ACCEL_JSON_DECLARE(WindowsFile)
ACCEL_JSON_DECLARE(WindowsAdapter)
ACCEL_JSON_DECLARE(WindowsPython)
ACCEL_JSON_DECLARE(WindowsProcessQos)
ACCEL_JSON_DECLARE(WindowsInfo)
ACCEL_JSON_DECLARE(OrtEpDevice)
ACCEL_JSON_DECLARE(OnnxRuntimeInfo)
ACCEL_JSON_DECLARE(Environment)
ACCEL_JSON_DECLARE(Finding)
ACCEL_JSON_DECLARE(ToolInfo)
ACCEL_JSON_DECLARE(Context)
ACCEL_JSON_DECLARE(Report)

/// Thrown by report readers on malformed or unsupported input.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Brings a parsed report document of an older schema_version up to
/// kSchemaVersion, one version step at a time (v1 -> v2 -> ...), so readers
/// only ever see the current shape. Version 1 is the only one so far: the
/// identity. A future v2 adds its `case 1:` step here (e.g. a renamed field
/// moved to its new name). Throws ReportError for a version no release wrote.
json upgrade_report_json(json doc, const std::string& origin);

/// Parses a report document; throws ReportError with a clear message for
/// invalid JSON, a missing schema_version, or a newer schema than this tool reads.
Report parse_report(const std::string& text, const std::string& origin);
/// Reads and parses a report file (ReportError when unreadable or malformed).
Report read_report_file(const std::string& path);

}  // namespace accel
