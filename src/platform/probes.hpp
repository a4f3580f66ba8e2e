// Torch-free probes of the machine. Every probe returns what it could collect
// and never throws: a value it could not read is left empty and named in the
// struct's `not_collected` with the reason ("libnvidia-ml.so.1 not found: ...",
// "/sys/bus/pci/devices: No such file or directory").
//
// Filesystem roots are injectable so tests run on recorded trees
// (tests/fixtures/sysfs/<machine>/...). Vendor libraries (NVML, libcuda) are
// opened at run time with dlopen; nothing here needs a vendor SDK to build.
//
// OS support: Linux is implemented. Elsewhere the build still succeeds and the
// Linux-only parts (host facts, PCI/KFD scan, loaded-library walk, device
// nodes) report "not implemented on this OS" in `not_collected`; NVML and the
// CUDA driver API are tried under their Windows names (nvml.dll, nvcuda.dll).
// Files: host_*.cpp, pci.cpp, kfd.cpp, gpus.cpp, nvml.cpp, drivers.cpp,
// devnodes_posix.cpp, blas.cpp, loaded_libs_linux.cpp, envvars.cpp, offload.cpp,
// dynlib_{posix,windows}.cpp; detail.hpp holds the pure functions the tests use.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel::platform {

/// Where probes read from. Defaults are the live system.
struct ProbeRoots {
  std::string sys = "/sys";            ///< sysfs (PCI devices, KFD topology, cpufreq, modules)
  std::string proc = "/proc";          ///< cpuinfo, meminfo, sys/kernel/{ostype,osrelease,hostname}
  std::string dev = "/dev";            ///< device nodes (/dev/nvidia*, /dev/kfd, /dev/dri/renderD*, /dev/dxg)
  std::string etc = "/etc";            ///< os-release
  std::string opt_rocm = "/opt/rocm";  ///< ROCm install (.info/version)
  std::string usr_share = "/usr/share";  ///< misc/pci.ids or hwdata/pci.ids (device names)
  bool use_vendor_libraries = true;      ///< dlopen NVML / libcuda (off in fixture tests)

  /// Every root under `base` (`base`/sys, `base`/proc, ...), vendor libraries off:
  /// the form the tests use on a recorded tree.
  static ProbeRoots under(const std::string& base);
};

/// OS (os-release PRETTY_NAME), kernel and hostname (<proc>/sys/kernel, else
/// uname(2)), architecture (uname), CPU model, logical cores ("processor"
/// entries) and physical cores (distinct physical id/core id pairs) from
/// <proc>/cpuinfo, the SIMD/matrix extensions that matter for deep learning
/// (x86: sse4_2 avx avx2 fma f16c avx_vnni avx512f/bw/vl avx512_vnni avx512_bf16
/// avx512_fp16 amx_tile amx_bf16 amx_int8 amx_fp16; arm64: asimd asimdhp asimddp
/// sve sve2 bf16 i8mm sme), memory total/available in bytes (meminfo "kB" = KiB),
/// the highest cpuinfo_max_freq over all CPUs in MHz (sysfs gives kHz) and
/// cpu0's scaling_governor. A VM or container without cpufreq reports both as
/// not collected. Logical cores count the host's CPUs, not a cgroup quota.
HostInfo probe_host(const ProbeRoots& roots = {});

/// This process's resident anonymous memory (heap and other non-file pages:
/// "RssAnon" of /proc/self/status) in bytes; nullopt where the OS does not
/// say (not Linux). File-backed pages (mapped libraries) are left out: the
/// OS can drop and re-read them.
std::optional<std::uint64_t> self_anonymous_rss_bytes();

/// The CPU BLAS loaded in this process (OpenBLAS, MKL, BLIS, FlexiBLAS backend,
/// ATLAS, netlib reference, Accelerate...), recognised first by exported
/// identification functions (openblas_get_config, mkl_get_version_string,
/// bli_info_get_version_str, flexiblas_current_backend, ATL_buildinfo, found
/// with dlsym(RTLD_DEFAULT)), then by the real path of the loaded libblas
/// (dl_iterate_phdr + realpath; Debian/Ubuntu alternatives: .../blas/ is the
/// reference BLAS, .../openblas-*/ OpenBLAS, .../atlas/ ATLAS, .../blis-*/ BLIS).
/// `evidence` says how, including the library `sgemm_` resolves to and the
/// LAPACK beside it. Call after torch is loaded. A BLAS linked statically
/// into torch with hidden symbols cannot be seen: then `name` is empty or
/// "unknown" and the reason is given.
BlasInfo probe_blas();

/// Display-class PCI devices (sysfs class 0x03xxxx), merged with the AMD KFD
/// topology (gfx target, SIMDs, CUs; node matched by location_id = bus << 8 |
/// devfn, see kfd_topology.c) and, when `use_vendor_libraries`, NVIDIA's NVML
/// loaded with dlopen (name, compute capability, memory, SM/memory clocks in
/// MHz, utilisation %, compute processes, power W, temperature C, PCIe
/// generation/width, clock-event reasons; matched by PCI bus id; keys in
/// `vendor_info["nvml"]`). PCIe speeds are as sysfs writes them ("16.0 GT/s
/// PCIe"); an idle link commonly trains down (2.5 GT/s), so compare current
/// with max only under load. Where a board has its own PCIe switch (AMD Navi,
/// Intel Arc) the endpoint's link is internal and the slot's link is in
/// `vendor_info["pci"]["slot_link"]`. Sorted by PCI address. Each device says
/// whether it is integrated and why (`integrated_basis`); BMC and virtual
/// display adapters get a basis but no verdict and `vendor_info["display_only"]`.
/// When a scan itself fails (no sysfs, other OS, no NVML) and `not_collected`
/// is given, the reason is added under "pci" / "kfd" / "nvml", so "no GPU" and
/// "could not look" stay apart.
std::vector<GpuHardware> probe_gpus(const ProbeRoots& roots = {}, NotCollected* not_collected = nullptr);

/// The multi-GPU topology (core/topology.hpp) of the compute GPUs among
/// `gpus` (probe_gpus' list; integrated and display-only devices are left
/// out): NUMA node, IOMMU group and the PCIe bridges above each GPU with their
/// ACS state (sysfs `config`, extended space: root only, else named in the
/// bridge's `error`); for each pair the link (NVML common ancestor, P2P
/// status and NVLinks when `use_vendor_libraries`; the KFD io_links; else
/// the sysfs bridges and NUMA nodes) and its one-direction bound; the IOMMU
/// mode (/sys/class/iommu, the groups' type, /proc/cmdline); /dev/shm's size
/// (statvfs on the live system, the mount table on a recorded tree); whether
/// this process runs in a container. Never throws.
Topology probe_topology(const ProbeRoots& roots, const std::vector<GpuHardware>& gpus);

/// Driver versions: NVIDIA from NVML's nvmlSystemGetDriverVersion, else the
/// kernel module (<sys>/module/nvidia/version, <proc>/driver/nvidia/version);
/// the CUDA driver API from libcuda (cuDriverGetVersion as "13.0", and cuInit(0)'s
/// failure as "cuInit failed: 100 CUDA_ERROR_NO_DEVICE (...): <likely cause>");
/// ROCm from <opt_rocm>/.info/version or the rocm-X.Y.Z directory name; amdgpu
/// from <sys>/module/amdgpu/version (DKMS) or "in-tree"; and every GPU device
/// node with whether this user may open it read/write (access(2)), naming the
/// group to join when not.
DriverInfo probe_drivers(const ProbeRoots& roots = {});

/// The environment variables that change GPU behaviour, with their effect
/// from the knowledge base (kb/env_vars.json: exact names, and prefixes ending
/// in '*'). `environment` entries are "NAME=value"; the first definition of a
/// name wins (as getenv), names the kb does not know are left out, and an empty
/// value is kept (an empty CUDA_VISIBLE_DEVICES hides every GPU). Sorted by name.
std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb, const std::vector<std::string>& environment);
/// Same, over this process's environment.
std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb);
/// This process's environment as "NAME=value" entries (the launcher's
/// variables of a multi run are read from it: core/multi/launch.hpp).
std::vector<std::string> environment_entries();
/// The compute GPUs among `gpus`: discrete, not a BMC's or a hypervisor's
/// display adapter (what probe_topology pairs).
std::vector<GpuHardware> compute_gpus(const std::vector<GpuHardware>& gpus);

/// What the caller already knows for probe_windows.
struct WindowsProbeOptions {
  /// Python interpreters the caller knows of, and how ("--python", "engine");
  /// PATH and the PEP 514 registry entries are searched as well.
  std::vector<std::pair<std::string, std::string>> pythons;
};

/// Windows facts (environment.windows): DXGI adapters in EnumAdapters1 and
/// high-performance order with LUID, memory, driver version, integrated or
/// not (DXCore IsIntegrated, else D3D12 UMA, else a named heuristic), DXCore's
/// IsHardware and WDDM version; hardware GPU scheduling, TDR delay and
/// python's per-app GPU preference (registry); power scheme, power mode,
/// AC/battery/battery saver, this process's and running python processes'
/// EcoQoS, a remote session; Smart App Control; HIP_PATH, amdhip64 DLLs, the
/// VC++/OpenMP runtimes, DirectML.dll and onnxruntime.dll copies (PATH and
/// site-packages) with file versions and which ONNX Runtime has the DirectML
/// provider; Python interpreters with their torch build and the HIP runtime
/// a torch wheel carries; the Adrenalin version. nullopt on other systems.
/// Never throws: what could not be read is in its `not_collected`.
/// Implemented in windows/windows_info_windows.cpp (posix/: nullopt).
std::optional<WindowsInfo> probe_windows(const WindowsProbeOptions& options = {});

/// gfx target name from a KFD `gfx_target_version` (major * 10000 + minor * 100
/// + stepping, minor and stepping printed as one hex digit each, as LLVM names
/// targets): 100302 -> "gfx1032", 90010 -> "gfx90a", 110001 -> "gfx1101".
/// Empty for 0 (a CPU node).
std::string gfx_name_from_target_version(unsigned long version);

/// Offload targets ("gfx1030", "gfx90a:xnack-") named in the clang offload
/// bundles inside a binary (e.g. libtorch_hip.so's .hip_fatbin), sorted and
/// unique. Empty when the file holds none, cannot be read, or holds only
/// compressed bundles (clang --offload-compress, "CCOB"), whose ids are not read.
std::vector<std::string> offload_targets_in_file(const std::string& path);

/// This machine's host name (gethostname(2); Windows: the DNS host name),
/// empty when the OS does not say. For redaction, not for the report.
std::string this_host_name();

/// Path (symlinks resolved) of a shared library loaded in this process whose
/// file name contains `name_part` ("libtorch_hip.so"), empty if none or on an
/// OS where the loaded libraries cannot be listed.
std::string loaded_library_path(const std::string& name_part);

}  // namespace accel::platform
