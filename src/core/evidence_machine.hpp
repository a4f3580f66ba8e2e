// What the probes (src/platform/) and the engine found about the machine,
// the parts of the evidence model's Environment (core/evidence.hpp): host,
// CPU BLAS, torch and its engine host, torch's devices, the GPUs found
// without torch, drivers, environment variables, the device choice.
//
// A field a probe could not collect is left empty and its name is added to
// `not_collected` with the reason, so every report says why a value is missing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace accel {

/// Why a field is missing: field name -> reason.
using NotCollected = std::map<std::string, std::string>;

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

}  // namespace accel
