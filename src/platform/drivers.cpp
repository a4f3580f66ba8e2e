// Driver facts gathered without torch: NVIDIA (NVML, kernel module), the CUDA
// driver API (libcuda opened at run time: cuInit, cuDriverGetVersion), ROCm
// and amdgpu versions, and the GPU device nodes with this user's access.
#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform {

namespace detail {

std::string cuda_result_name(int code) {
  // CUresult values from cuda.h (the driver API; not the runtime's cudaError_t).
  static const std::pair<int, const char*> kNames[] = {
      {0, "CUDA_SUCCESS"},
      {1, "CUDA_ERROR_INVALID_VALUE"},
      {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"},
      {4, "CUDA_ERROR_DEINITIALIZED"},
      {34, "CUDA_ERROR_STUB_LIBRARY"},
      {46, "CUDA_ERROR_DEVICE_UNAVAILABLE"},
      {100, "CUDA_ERROR_NO_DEVICE"},
      {101, "CUDA_ERROR_INVALID_DEVICE"},
      {102, "CUDA_ERROR_DEVICE_NOT_LICENSED"},
      {200, "CUDA_ERROR_INVALID_IMAGE"},
      {201, "CUDA_ERROR_INVALID_CONTEXT"},
      {209, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {214, "CUDA_ERROR_ECC_UNCORRECTABLE"},
      {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
      {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED"},
      {304, "CUDA_ERROR_OPERATING_SYSTEM"},
      {400, "CUDA_ERROR_INVALID_HANDLE"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {719, "CUDA_ERROR_LAUNCH_FAILED"},
      {800, "CUDA_ERROR_NOT_PERMITTED"},
      {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {802, "CUDA_ERROR_SYSTEM_NOT_READY"},
      {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"},
      {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"},
      {805, "CUDA_ERROR_MPS_CONNECTION_FAILED"},
      {999, "CUDA_ERROR_UNKNOWN"},
  };
  for (const auto& [c, name] : kNames) {
    if (c == code) return name;
  }
  return fmt::format("CUDA_ERROR_{}", code);
}

std::string cuda_version_string(int version) {
  // cuda.h: CUDA_VERSION = 1000 * major + 10 * minor (12040 = 12.4, 13000 = 13.0).
  if (version <= 0) return {};
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

namespace {

/// What a failed cuInit usually means on a real machine.
const char* cuinit_hint(int code) {
  switch (code) {
    case 34:
      return "libcuda.so.1 found is the CUDA toolkit's stub, not the driver's: remove .../lib64/stubs from "
             "LD_LIBRARY_PATH";
    case 46:
      return "the GPU is in exclusive-process or prohibited compute mode and taken (nvidia-smi -q -d "
             "COMPUTE)";
    case 100:
      return "the driver sees no GPU: none installed, or hidden from this process (CUDA_VISIBLE_DEVICES, a "
             "container started without --gpus)";
    case 304:
      return "an operating-system call failed, often a /dev/nvidia* node this user cannot open";
    case 802:
      return "the system is not ready: on NVSwitch (HGX) machines, nvidia-fabricmanager is not running";
    case 803:
      return "the user-space driver (libcuda) and the kernel module differ in version: reboot after a driver "
             "update, or align the container's driver libraries with the host";
    case 804:
      return "the forward-compatibility libcuda (cuda-compat) does not support this GPU: remove it from the "
             "library path";
    case 999:
      return "often the nvidia-uvm module is not loaded (/dev/nvidia-uvm missing), or the GPU needs a reset "
             "after suspend";
    default:
      return "";
  }
}

void probe_cuda_driver(DriverInfo& d) {
  const std::vector<std::string> names = cuda_driver_library_names();
  const DynLib lib = DynLib::open(names);
  if (!lib) {
    d.not_collected["cuda_driver_api"] = fmt::format("{} not found: {}", names.front(), lib.error);
    return;
  }
  // cuda.h: CUresult cuInit(unsigned int Flags); CUresult cuDriverGetVersion(int*);
  // CUresult cuGetErrorName(CUresult, const char**); cuGetErrorString likewise.
  using InitFn = int (*)(unsigned int);
  using VersionFn = int (*)(int*);
  using ErrFn = int (*)(int, const char**);
  const auto init = reinterpret_cast<InitFn>(lib.sym("cuInit"));
  const auto version = reinterpret_cast<VersionFn>(lib.sym("cuDriverGetVersion"));
  const auto err_name = reinterpret_cast<ErrFn>(lib.sym("cuGetErrorName"));
  const auto err_string = reinterpret_cast<ErrFn>(lib.sym("cuGetErrorString"));
  if (version) {
    int v = 0;
    if (const int r = version(&v); r == 0 && v > 0) {
      d.cuda_driver_api = cuda_version_string(v);
    } else {
      d.not_collected["cuda_driver_api"] = fmt::format("cuDriverGetVersion failed with {}", r);
    }
  } else {
    d.not_collected["cuda_driver_api"] = "cuDriverGetVersion missing from " + lib.name;
  }
  if (!init) {
    d.cuda_init_error = "cuInit missing from " + lib.name;
    return;
  }
  const int r = init(0);
  if (r == 0) return;
  const char* name = nullptr;
  const char* text = nullptr;
  if (err_name) err_name(r, &name);
  if (err_string) err_string(r, &text);
  std::string msg = fmt::format("cuInit failed: {} {}", r, name ? std::string(name) : cuda_result_name(r));
  if (text) msg += fmt::format(" ({})", text);
  if (const char* hint = cuinit_hint(r); *hint) msg += fmt::format(": {}", hint);
  d.cuda_init_error = msg;
}

/// "580.65.06" out of /proc/driver/nvidia/version's
/// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ...".
std::string nvrm_version(const std::string& text) {
  const auto words = split_ws(text.substr(0, text.find('\n')));
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "Module") return words[i + 1];
  }
  return {};
}

void probe_nvidia(const ProbeRoots& roots, DriverInfo& d) {
  std::string nvml_error = "vendor libraries disabled (use_vendor_libraries = false)";
  if (roots.use_vendor_libraries) {
    nvml_error.clear();
    d.nvidia_driver = nvml_driver_version(&nvml_error);
    if (!d.nvidia_driver.empty()) return;
  }
  // Without NVML: the kernel module says its version.
  if (const auto v = read_line(join(roots.sys, "module/nvidia/version"))) {
    d.nvidia_driver = *v;
    return;
  }
  if (const auto t = read_text(join(roots.proc, "driver/nvidia/version"))) {
    d.nvidia_driver = nvrm_version(*t);
    if (!d.nvidia_driver.empty()) return;
  }
  d.not_collected["nvidia_driver"] = fmt::format("{}; NVIDIA kernel module not loaded (no {})", nvml_error,
                                                 join(roots.sys, "module/nvidia"));
}

void probe_amd(const ProbeRoots& roots, DriverInfo& d) {
  std::string err;
  if (const auto v = read_line(join(roots.opt_rocm, ".info/version"), &err)) {
    d.rocm_version = *v;
  } else {
    // /opt/rocm is usually a link to /opt/rocm-6.4.1.
    const std::string real = real_path(roots.opt_rocm);
    const std::string base = real.substr(real.find_last_of('/') + 1);
    if (starts_with(base, "rocm-") && base.size() > 5) {
      d.rocm_version = base.substr(5);
    } else {
      d.not_collected["rocm_version"] =
          err + " (no system ROCm there; a ROCm build of torch carries its own runtime)";
    }
  }
  // /sys/module/amdgpu/version exists only for the out-of-tree (DKMS) driver.
  if (const auto v = read_line(join(roots.sys, "module/amdgpu/version"))) {
    d.amdgpu_driver = *v;
  } else if (exists(join(roots.sys, "module/amdgpu"))) {
    d.amdgpu_driver = "in-tree (the kernel's own amdgpu; no version file)";
  } else {
    d.not_collected["amdgpu_driver"] =
        "amdgpu kernel module not loaded (no " + join(roots.sys, "module/amdgpu") + ")";
  }
}

}  // namespace

std::string describe_node_access(const NodeAccess& a) {
  const std::string perms = a.owner_group.empty()
                                ? fmt::format("mode {:04o}", a.mode)
                                : fmt::format("group {}, mode {:04o}", a.owner_group, a.mode);
  if (a.readable_writable) return fmt::format("{}: read/write ok ({})", a.path, perms);
  std::string s = fmt::format("{}: NO read/write access for this user ({})", a.path, perms);
  if (!a.owner_group.empty() && a.owner_group != "root" && !a.user_in_group) {
    s += fmt::format(": add the user to group {} (sudo usermod -aG {} $USER) and log in again", a.owner_group,
                     a.owner_group);
  } else if (a.user_in_group) {
    s += ": the user is in the node's group, so the mode itself denies access (check the udev rules)";
  }
  return s;
}

}  // namespace detail

DriverInfo probe_drivers(const ProbeRoots& roots) {
  DriverInfo d;
  try {
    detail::probe_nvidia(roots, d);
    if (roots.use_vendor_libraries) {
      detail::probe_cuda_driver(d);
    } else {
      d.not_collected["cuda_driver_api"] = "vendor libraries disabled (use_vendor_libraries = false)";
    }
    detail::probe_amd(roots, d);
    detail::probe_device_nodes(roots, d);
  } catch (const std::exception& e) {
    d.not_collected["drivers"] = std::string("probe failed: ") + e.what();
  }
  return d;
}

}  // namespace accel::platform
