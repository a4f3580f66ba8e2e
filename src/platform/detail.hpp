// Internals of the platform probes, shared between their files and exposed
// for the unit tests: file helpers, and the pure parsing / classification
// functions the probes are built from (testable on recorded text, no OS).
// Not a public interface: callers outside src/platform and tests/ use probes.hpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "core/strings.hpp"
#include "platform/probes.hpp"

namespace accel::platform::detail {

/// $COLUMNS when it is a number above 20, else `fallback` (terminal.hpp).
int columns_from_environment(int fallback);

// ---------------------------------------------------------------- OS seams
// Small functions with one implementation per OS (posix/, windows/:
// process_*.cpp), so the portable files include no OS header; the process id
// is platform::process_id() (process.hpp).

/// This process's environment as "NAME=value" entries (environ; Windows:
/// GetEnvironmentStringsW, converted to UTF-8).
std::vector<std::string> process_environment();
/// File names to try for NVIDIA's NVML and the CUDA driver API library.
std::vector<std::string> nvml_library_names();
std::vector<std::string> cuda_driver_library_names();

// ---------------------------------------------------------------- Windows rules
// Pure, portable (tested on Linux too): conventions of Windows itself.

/// The name of an NTSTATUS exception code a crashed process exits with
/// (0xC0000005 -> "ACCESS_VIOLATION", 0xC00000FD -> "STACK_OVERFLOW",
/// 0xC0000409 -> "STACK_BUFFER_OVERRUN", 0xE06D7363 -> "CPP_EXCEPTION");
/// "" when unknown. A static string: safe to use in a crash handler.
const char* windows_exception_name(std::uint32_t code);
/// Whether a process exit code is an exception (a crash) rather than an exit
/// status: a known exception code, or any NTSTATUS of error severity
/// (0xC0000000 and up); no program exits with such codes on purpose.
bool is_windows_exception_code(std::uint32_t code);
/// One argument quoted so CommandLineToArgvW and the C runtime's argv parser
/// give it back unchanged: as is when it has no space, tab, newline or quote
/// (and is not empty), else in quotes with backslashes doubled before a quote
/// and at the end, and quotes escaped.
std::string quote_windows_argument(const std::string& arg);
/// A CreateProcess command line: every argument quoted, joined by spaces.
std::string windows_command_line(const std::vector<std::string>& argv);
/// "Windows 11 23H2 (10.0.22631)" from RtlGetVersion's numbers (build 22000
/// and up of 10.0 is Windows 11; 6.1-6.3 are 7, 8, 8.1) and the registry's DisplayVersion (may be empty).
std::string windows_os_name(unsigned major, unsigned minor, unsigned build,
                            const std::string& display_version);

/// The registers of the x86 CPUID leaves that name the SIMD extensions, and
/// XCR0 (which register states the OS saves: without it AVX/AVX-512/AMX
/// cannot be used even when the CPU has them).
struct X86Cpuid {
  std::uint32_t leaf1_ecx = 0;
  std::uint32_t leaf7_ebx = 0, leaf7_ecx = 0, leaf7_edx = 0;
  std::uint32_t leaf7_1_eax = 0;  ///< leaf 7, sub-leaf 1
  std::uint64_t xcr0 = 0;
};
/// The Linux /proc/cpuinfo names of the extensions simd_flags_of_interest
/// knows, from CPUID bits (Intel SDM vol. 2, CPUID), each only when the OS
/// enables its register state in XCR0.
std::vector<std::string> x86_flags_from_cpuid(const X86Cpuid& r);

// ---------------------------------------------------------------- files

/// Whole text of a small file (sysfs attribute, /proc file, os-release), at
/// most `limit` bytes. nullopt when unreadable; `error` then says why
/// ("/sys/x: No such file or directory").
std::optional<std::string> read_text(const std::string& path, std::string* error = nullptr,
                                     std::size_t limit = 4 << 20);
/// First line of a file, trimmed; nullopt when unreadable or empty.
std::optional<std::string> read_line(const std::string& path, std::string* error = nullptr);
/// Names in a directory, sorted; empty when it cannot be listed (`error` says why).
std::vector<std::string> list_dir(const std::string& path, std::string* error = nullptr);
/// True when `path` exists (without following a final symlink).
bool exists(const std::string& path);
/// Target of a symlink as stored (may be relative); empty when not a link.
std::string read_link(const std::string& path);
/// Canonical absolute path with every symlink resolved; empty on failure.
std::string real_path(const std::string& path);
/// `a` + "/" + `b`, without doubling the separator.
std::string join(const std::string& a, const std::string& b);

/// Lines of `text` without their newlines (views into `text`).
std::vector<std::string_view> lines_of(std::string_view text);
std::vector<std::string> split_ws(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);
/// Parses "0x1002", "4098", "  16\n" (base 0 unless `base` given); nullopt if not a number.
std::optional<std::uint64_t> parse_uint(std::string_view s, int base = 0);

// ---------------------------------------------------------------- host

/// KEY=value lines of os-release(5), values unquoted.
std::map<std::string, std::string> parse_os_release(std::string_view text);

/// What /proc/cpuinfo says, reduced.
struct CpuInfoSummary {
  std::string model;               ///< "model name" (x86) or the best ARM equivalent
  int logical = 0;                 ///< "processor" entries
  std::optional<int> physical;     ///< distinct (physical id, core id) pairs
  std::vector<std::string> flags;  ///< "flags" (x86) or "Features" (ARM) of the first CPU
};
CpuInfoSummary parse_cpuinfo(std::string_view text);

/// The SIMD / matrix flags that matter for deep learning, in a fixed order,
/// out of a CPU flag list (x86 /proc/cpuinfo names; ARM "Features" names).
std::vector<std::string> simd_flags_of_interest(const std::vector<std::string>& flags);

/// A /proc/meminfo field in bytes ("MemTotal:  24683652 kB" -> 24683652*1024).
std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key);

/// CPUs in a kernel CPU list ("0-3,8,10-11" -> 7; cpuset(7) list format, as
/// in /proc/self/status Cpus_allowed_list); nullopt when malformed or empty.
std::optional<int> cpu_list_count(std::string_view list);

/// The value after "Key:" in a /proc status-style text, trimmed; "" if absent.
std::string status_field(std::string_view text, std::string_view key);

/// CPUs a cgroup v2 cpu.max line allows ("200000 100000" -> 2.0;
/// "max 100000" -> nullopt: no quota); nullopt when malformed.
std::optional<double> cgroup2_cpu_quota(std::string_view cpu_max);

/// CPUs cgroup v1 allows from cpu.cfs_quota_us and cpu.cfs_period_us
/// ("-1" = no quota -> nullopt).
std::optional<double> cgroup1_cpu_quota(std::string_view quota_us, std::string_view period_us);

/// A cgroup memory limit in bytes (v2 memory.max, v1 memory.limit_in_bytes);
/// nullopt for "max" or a v1 "no limit" value (>= 2^62).
std::optional<std::uint64_t> cgroup_memory_limit(std::string_view text);

/// The cgroup v2 path of this process from /proc/self/cgroup ("0::/a/b" ->
/// "/a/b"), or for v1 the path of the controller named `v1_controller`
/// ("4:cpu,cpuacct:/x" -> "/x" for "cpu"); nullopt when absent.
std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup,
                                       std::string_view v1_controller = "");

// ---------------------------------------------------------------- BLAS

/// A shared object mapped in this process.
struct LoadedLibrary {
  std::string path;       ///< as the loader names it ("/lib/x86_64-linux-gnu/libblas.so.3")
  std::string real_path;  ///< with symlinks resolved (Debian alternatives followed)
};

/// What the BLAS identification functions exported in this process say.
/// Each field is empty / unset when the symbol is absent.
struct BlasSymbols {
  std::optional<std::string> openblas_config;    ///< openblas_get_config()
  std::optional<int> openblas_threads;           ///< openblas_get_num_threads()
  std::optional<std::string> mkl_version;        ///< mkl_get_version_string()
  std::optional<std::string> blis_version;       ///< bli_info_get_version_str()
  std::optional<std::string> flexiblas_backend;  ///< flexiblas_current_backend()
  bool atlas = false;                            ///< ATL_buildinfo exported
  std::string sgemm_provider;  ///< file of the object that the global `sgemm_` resolves to (dladdr)
};

/// Names the loaded BLAS from the libraries and the exported symbols.
/// Order: identification symbols (MKL, OpenBLAS, BLIS, FlexiBLAS, ATLAS), then the
/// real path of a loaded BLAS library (Debian/Ubuntu alternatives directories:
/// `blas/` = netlib reference, `openblas-*`, `atlas/`, `blis-*`; Accelerate).
/// A bare libblas.so with none of the identification symbols is named "reference"
/// with a stated basis. Nothing found: `name` empty and `not_collected["name"]` says so.
BlasInfo classify_blas(const std::vector<LoadedLibrary>& libs, const BlasSymbols& syms);

/// Every shared object mapped in this process (dl_iterate_phdr on Linux).
/// Empty with `error` set on a system where this is not implemented.
std::vector<LoadedLibrary> loaded_libraries(std::string* error = nullptr);

// ---------------------------------------------------------------- dynamic libraries

/// A library opened at run time (dlopen / LoadLibrary). Never closed: vendor
/// libraries (NVML, libcuda) keep state and threads that outlive a close.
struct DynLib {
  void* handle = nullptr;
  std::string error;  ///< why it could not be opened (dlerror text)
  std::string name;   ///< the name that opened
  /// Opens the first of `names` that loads; on failure `handle` stays null and
  /// `error` holds every attempt's reason.
  static DynLib open(const std::vector<std::string>& names);
  /// Address of an exported symbol, null when absent.
  void* sym(const char* symbol) const;
  explicit operator bool() const { return handle != nullptr; }
};

/// A symbol anywhere in the global scope of this process (dlsym(RTLD_DEFAULT)); null if none.
void* global_symbol(const char* symbol);
/// Path of the object that holds `address` (dladdr), empty if unknown.
std::string object_of_address(const void* address);

// ---------------------------------------------------------------- PCI / KFD

/// A PCI address "dddd:bb:dd.f" as numbers.
struct PciAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  std::string str() const;  ///< "0000:03:00.0"
  /// KFD `location_id`: bus << 8 | devfn, devfn = device << 3 | function
  /// (drivers/gpu/drm/amd/amdkfd/kfd_topology.c, pci_dev_id()).
  unsigned location_id() const { return bus << 8 | device << 3 | function; }
};
/// Parses "0000:03:00.0" and NVML's "00000000:19:00.0" (8-digit domain); case-insensitive.
std::optional<PciAddress> parse_pci_address(std::string_view s);

/// "amd", "nvidia", "intel", "aspeed", ..., or "other" for a PCI vendor id.
std::string vendor_name(unsigned vendor_id);

/// One node of the KFD topology (<sys>/class/kfd/kfd/topology/nodes/N/properties).
struct KfdNode {
  int id = 0;
  std::map<std::string, std::uint64_t> props;  ///< numeric properties, decimal in sysfs
  std::uint64_t get(const std::string& key, std::uint64_t fallback = 0) const;
  bool is_gpu() const { return get("simd_count") > 0; }
  bool is_cpu() const { return get("cpu_cores_count") > 0; }
  std::string gfx() const;  ///< gfx_name_from_target_version(gfx_target_version)
};
/// "key value" lines of a KFD properties file (numbers only).
std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view text);
/// Every node; empty with `error` set when the topology is absent.
std::vector<KfdNode> read_kfd_nodes(const std::string& sys_root, std::string* error = nullptr);

/// gfx targets that only AMD APUs (integrated GPUs) carry: gfx801, gfx902,
/// gfx909, gfx90c, gfx1013, gfx1033, gfx1035, gfx1036, gfx1037, gfx1103,
/// gfx1150, gfx1151, gfx1152 (LLVM AMDGPUUsage, "Processors" table).
bool is_apu_only_gfx_target(std::string_view gfx);
/// PCI device ids of AMD APU graphics (Raven, Renoir, Cezanne, Rembrandt, Raphael,
/// Mendocino, Phoenix, Strix...), from the amdgpu driver's PCI id table.
bool is_known_amd_apu_device(unsigned device_id);

/// Sysfs PCI display-class devices (class 0x03xxxx), without KFD or NVML.
/// Sorted by address. `error` set when <sys>/bus/pci/devices cannot be listed.
std::vector<GpuHardware> scan_pci_display_devices(const ProbeRoots& roots, std::string* error = nullptr);
/// Adds the KFD view (gfx target, SIMDs, APU flag) to AMD devices, matched by
/// location_id (and domain when the KFD gives it).
void merge_kfd(std::vector<GpuHardware>& gpus, const std::vector<KfdNode>& nodes);
/// Sets `integrated` and `integrated_basis` from what is known (vendor, address,
/// KFD, id tables, VRAM); leaves them unset with a reason when no rule applies.
void classify_integrated(GpuHardware& g, const std::vector<KfdNode>& nodes);

/// Device / subsystem names from a pci.ids file (the database lspci reads);
/// empty when absent.
std::string pci_ids_name(const std::string& pci_ids_text, unsigned vendor, unsigned device);

// ---------------------------------------------------------------- NVIDIA

/// Adds NVML's view (name, compute capability, memory, clocks, utilisation,
/// processes, power, PCIe, throttle reasons) to NVIDIA devices matched by bus id;
/// a device NVML sees but sysfs did not is added. NVML failures go into
/// `not_collected` (`nvml`) of every NVIDIA device, or into `errors`.
void merge_nvml(std::vector<GpuHardware>& gpus, NotCollected& errors);
/// NVML's driver version ("580.65.06"); empty with `error` set on failure.
std::string nvml_driver_version(std::string* error);
/// Names of the bits set in an NVML clocks-throttle-reasons mask (nvml.h,
/// nvmlClocksThrottleReason*), "gpu_idle", "sw_power_cap", ...
std::vector<std::string> decode_throttle_reasons(std::uint64_t mask);
/// Name of a CUresult (cuda.h), "CUDA_ERROR_NO_DEVICE"; "CUDA_ERROR_<n>" when unknown.
std::string cuda_result_name(int code);
/// cuDriverGetVersion's integer as "13.0" (1000*major + 10*minor, cuda.h).
std::string cuda_version_string(int version);

// ---------------------------------------------------------------- device nodes

/// How a device node looks to this user: "/dev/kfd: read/write ok" or the
/// reason it cannot be opened with a fix (group membership).
struct NodeAccess {
  std::string path;
  bool readable_writable = false;
  std::string owner_group;  ///< group of the node ("render", "video")
  unsigned mode = 0;        ///< permission bits
  bool user_in_group = false;
};
/// One line for DriverInfo::device_nodes from a node's access facts.
std::string describe_node_access(const NodeAccess& a);
/// Fills `d.device_nodes` with every GPU node under `roots.dev` (nvidiactl,
/// nvidia-uvm, nvidiaN, kfd, dri/renderD*, dxg) and this user's access to it;
/// `not_collected["device_nodes"]` when there is none.
void probe_device_nodes(const ProbeRoots& roots, DriverInfo& d);

}  // namespace accel::platform::detail
