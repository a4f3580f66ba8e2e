// Torch-free probes of the machine. Every probe returns what it could collect
// and never throws: a value it could not read is left empty and named in the
// struct's `not_collected` with the reason.
//
// Filesystem roots are injectable so tests run on recorded trees
// (tests/fixtures/sysfs/<machine>/...).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel::platform {

/// Where probes read from. Defaults are the live system.
struct ProbeRoots {
  std::string sys = "/sys";    ///< sysfs (PCI devices, KFD topology, cpufreq)
  std::string proc = "/proc";  ///< cpuinfo, meminfo
  std::string dev = "/dev";    ///< device nodes (/dev/nvidia*, /dev/kfd, /dev/dri)
  std::string etc = "/etc";    ///< os-release
  std::string opt_rocm = "/opt/rocm";
  bool use_vendor_libraries = true;  ///< dlopen NVML / libcuda (off in fixture tests)
};

/// OS, kernel, CPU model, cores, SIMD flags, memory, frequency governor.
HostInfo probe_host(const ProbeRoots& roots = {});

/// The CPU BLAS loaded in this process (OpenBLAS, MKL, BLIS, reference
/// netlib, Accelerate...), recognised from the loaded libraries and their
/// exported symbols. Call after torch is loaded.
BlasInfo probe_blas();

/// Display-class PCI devices (sysfs), merged with the AMD KFD topology and,
/// when `use_vendor_libraries`, NVIDIA's NVML loaded with dlopen.
std::vector<GpuHardware> probe_gpus(const ProbeRoots& roots = {});

/// Driver versions, cuInit's result (libcuda via dlopen), device nodes and
/// whether this user may open them.
DriverInfo probe_drivers(const ProbeRoots& roots = {});

/// The environment variables that change GPU behaviour, with their effect
/// from the knowledge base. `environ` entries are "NAME=value".
std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb, const std::vector<std::string>& environ);
/// Same, over this process's environment.
std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb);

/// gfx target name from a KFD `gfx_target_version` (100302 -> "gfx1032",
/// 90010 -> "gfx90a"). Empty for 0 (a CPU node).
std::string gfx_name_from_target_version(unsigned long version);

/// Offload targets ("gfx1030", "gfx90a:xnack-") named inside a binary's
/// fat binary (e.g. libtorch_hip.so's .hip_fatbin bundles). Empty when the
/// file holds none or cannot be read.
std::vector<std::string> offload_targets_in_file(const std::string& path);

}  // namespace accel::platform

namespace accel::platform {

/// Path of a shared library loaded in this process whose file name contains
/// `name_part` ("libtorch_hip.so"), empty if none.
std::string loaded_library_path(const std::string& name_part);

}  // namespace accel::platform
