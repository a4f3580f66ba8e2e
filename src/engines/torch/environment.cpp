#include "engines/torch/environment.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <fmt/format.h>

#include "core/machine_context.hpp"
#include "core/torch_config.hpp"
#include "engines/torch/backend/backend.hpp"
#include "engines/torch/host.hpp"
#include "engines/torch/torch_util.hpp"
#include "platform/probes.hpp"

#ifndef ACCEL_TORCH_SOURCE
#define ACCEL_TORCH_SOURCE "unknown"
#endif

namespace accel::engine {

TorchInfo collect_torch_info() {
  TorchInfo t;
  t.version = TORCH_VERSION;
  t.source = ACCEL_TORCH_SOURCE;
  t.host = engine_host();
  if (const auto* b = accelerator_backend()) {
    t.backend = b->name();
  } else {
    t.backend = "cpu";
  }
#if defined(_GLIBCXX_USE_CXX11_ABI)
  t.cxx11_abi = _GLIBCXX_USE_CXX11_ABI != 0;
#else
  t.not_collected["cxx11_abi"] = "not a libstdc++ build";
#endif
  try {
    t.config = at::show_config();
    const ParsedTorchConfig parsed = parse_torch_config(t.config);
    t.build = parsed.build;
    t.cuda_version = parsed.cuda_runtime;
    t.cudnn_version = parsed.cudnn;
    t.hip_version = parsed.hip_runtime;
    t.miopen_version = parsed.miopen;
    t.openmp = parsed.openmp;
    t.cpu_capability = parsed.cpu_capability;
    t.arch_list = parsed.arch_list;
  } catch (const std::exception& e) {
    t.not_collected["config"] = exception_message(e);
  }
  if (t.backend == "rocm" && t.arch_list.empty()) {
    // ROCm builds do not print their targets; read them from the fat binary.
    const std::string lib = platform::loaded_library_path("libtorch_hip.so");
    if (!lib.empty()) t.arch_list = platform::offload_targets_in_file(lib);
    if (t.arch_list.empty()) t.not_collected["arch_list"] = "no offload targets found in libtorch_hip.so";
  }
  if (t.backend == "cpu") t.not_collected["arch_list"] = "CPU-only build: no GPU code in it";
  t.intra_op_threads = at::get_num_threads();
  t.inter_op_threads = at::get_num_interop_threads();
  t.features["cuda"] = at::hasCUDA();
  t.features["hip"] = at::hasHIP();
  t.features["mps"] = at::hasMPS();
  t.features["mkl"] = at::hasMKL();
  t.features["mkldnn"] = at::hasMKLDNN();
  t.features["lapack"] = at::hasLAPACK();
#if ACCEL_TORCH_AT_LEAST(2, 0)
  t.features["sdpa"] = true;
#else
  t.features["sdpa"] = false;
#endif
  const auto kineto = t.build.find("USE_KINETO");
  if (kineto != t.build.end()) t.features["kineto"] = kineto->second == "ON" || kineto->second == "1";
  return t;
}

namespace {
/// Devices of the generic device types a plugin or torch's own XPU support
/// registers at run time (a DeviceGuardImpl for the type): XPU (torch >= 2.4
/// or Intel's extension) and PrivateUse1 (torch-directml, any out-of-tree
/// backend). The count comes from the device guard; the names and the rest
/// from the Python host's description (host.hpp), else a placeholder.
void add_generic_devices(std::vector<DeviceInfo>& out) {
  const auto* own = accelerator_backend();
  for (const c10::DeviceType type : {c10::DeviceType::XPU, c10::DeviceType::PrivateUse1}) {
    if (own && own->device_type() == type) continue;
    int n = 0;
    try {
      if (!c10::impl::hasDeviceGuardImpl(type)) continue;
      n = c10::impl::getDeviceGuardImpl(type)->deviceCount();
    } catch (const std::exception&) {
      continue;  // a plugin whose guard cannot count: no devices to offer
    }
    for (int i = 0; i < n; ++i) {
      const c10::Device dev(type, static_cast<c10::DeviceIndex>(i));
      const std::string id = device_string(dev);
      if (const DeviceInfo* described = plugin_device(id)) {
        out.push_back(*described);
        continue;
      }
      DeviceInfo d;
      d.id = id;
      d.index = i;
      d.type = type == c10::DeviceType::XPU ? "xpu" : "privateuseone";
      d.backend = d.type;
      d.name = fmt::format("{} device {}", d.type, i);
      d.not_collected["name"] =
          "the backend's Python module describes its devices; this engine has none (use the Python engine: "
          "--python PATH)";
      out.push_back(std::move(d));
    }
  }
}
}  // namespace

std::vector<DeviceInfo> list_torch_devices(const TorchInfo& torch) {
  std::vector<DeviceInfo> out;
  if (const auto* b = accelerator_backend()) {
    const int n = b->device_count();
    for (int i = 0; i < n; ++i) {
      DeviceInfo d = b->describe(i);
      std::string how;
      d.arch_in_build = arch_in_build(torch.arch_list, d.arch, &how);
      if (!d.arch_in_build) d.not_collected["arch_in_build"] = how;
      out.push_back(std::move(d));
    }
  }
  add_generic_devices(out);
  if (at::hasMPS()) {
    DeviceInfo d;
    d.id = "mps:0";
    d.type = "mps";
    d.vendor = "apple";
    d.name = "Apple GPU (MPS)";
    d.integrated = true;
    out.push_back(d);
  }
  return out;
}

EngineEnvironment collect_engine_environment() {
  EngineEnvironment e;
  e.torch = collect_torch_info();
  e.blas = platform::probe_blas();
  name_static_blas(e.blas, e.torch.build);
  e.devices = list_torch_devices(e.torch);
  return e;
}

}  // namespace accel::engine
