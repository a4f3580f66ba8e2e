// The terminal form of the `env` report (render_environment).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/report/console_detail.hpp"

#include "core/report/gpu_busy_rows.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel {

using console_detail::bold;
using console_detail::dim;
using console_detail::line;
using console_detail::opt_or_missing;
using console_detail::or_missing;
using console_detail::wrap_lines;

namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void host_section(std::string& out, const HostInfo& h, const ConsoleStyle& style) {
  out += bold("Host", style) + "\n";
  line(out, "OS", or_missing(h.os, h.not_collected, "os"));
  line(out, "kernel", or_missing(h.kernel, h.not_collected, "kernel"));
  line(out, "CPU", or_missing(h.cpu_model, h.not_collected, "cpu_model"));
  line(out, "cores",
       opt_or_missing<int>(h.logical_cores, h.not_collected, "logical_cores", [&](const int& n) {
         return fmt::format("{} logical{}", n,
                            h.physical_cores ? fmt::format(", {} physical", *h.physical_cores) : "");
       }));
  {
    // What this process may use: affinity mask and cgroup limits.
    std::vector<std::string> limits;
    if (h.affinity_cpus)
      limits.push_back(fmt::format("affinity {} ({} CPUs)", h.affinity_list, *h.affinity_cpus));
    if (h.cpu_quota_cpus) limits.push_back(fmt::format("cgroup CPU quota {:.2g} CPUs", *h.cpu_quota_cpus));
    if (h.memory_limit_bytes)
      limits.push_back("cgroup memory limit " + format_bytes(static_cast<double>(*h.memory_limit_bytes)));
    if (!limits.empty()) line(out, "process limits", fmt::format("{}", fmt::join(limits, ", ")));
  }
  line(out, "max clock",
       h.cpu_max_mhz ? fmt::format("{:.0f} MHz{}", *h.cpu_max_mhz,
                                   h.cpu_clock_source.empty() ? "" : " (" + h.cpu_clock_source + ")")
                     : or_missing("", h.not_collected, "cpu_max_mhz"));
  line(out, "SIMD",
       h.simd.empty() ? or_missing("", h.not_collected, "simd") : fmt::format("{}", fmt::join(h.simd, " ")));
  line(out, "memory",
       opt_or_missing<std::uint64_t>(
           h.memory_total_bytes, h.not_collected, "memory_total_bytes", [&](const std::uint64_t& b) {
             std::string s = format_bytes(static_cast<double>(b)) + " total";
             if (h.memory_available_bytes)
               s += ", " + format_bytes(static_cast<double>(*h.memory_available_bytes)) + " available";
             return s;
           }));
  if (!h.cpu_governor.empty()) line(out, "CPU governor", h.cpu_governor);
}

/// Why no engine answered ("engine" or "engine_environment" in torch's
/// not_collected); null when one did.
const std::pair<const std::string, std::string>* no_engine_note(const TorchInfo& t) {
  auto it = t.not_collected.find("engine");
  if (it == t.not_collected.end()) it = t.not_collected.find("engine_environment");
  return it == t.not_collected.end() ? nullptr : &*it;
}

/// The torch build the engine runs: one line saying why when no engine
/// answered, not a page of empty fields.
void torch_section(std::string& out, const TorchInfo& t, const ConsoleStyle& style) {
  out += bold("Torch", style) + "\n";
  const auto* no_engine = no_engine_note(t);
  if (t.version.empty() && no_engine) {
    line(out, no_engine->first == "engine" ? "not asked" : "unknown", first_line(no_engine->second));
    return;
  }
  line(out, "version", t.version + (t.source.empty() ? "" : "  (" + t.source + ")"));
  if (t.host.kind == EngineHostKind::python) {
    line(out, "engine",
         fmt::format("the Python package in {} (Python {}, torch {})", t.host.python_executable,
                     t.host.python_version, t.host.torch_python_version));
    for (const auto& p : t.host.plugins) {
      line(out, "plugin",
           p.error.empty() ? p.module + (p.version.empty() ? "" : " " + p.version)
                           : p.module + ": not imported: " + p.error);
    }
  }
  line(out, "backend", t.backend);
  if (!t.cuda_version.empty()) line(out, "CUDA runtime", t.cuda_version);
  if (!t.cudnn_version.empty()) line(out, "cuDNN", t.cudnn_version);
  if (!t.hip_version.empty()) line(out, "HIP runtime", t.hip_version);
  if (!t.miopen_version.empty()) line(out, "MIOpen", t.miopen_version);
  line(out, "arch list",
       t.arch_list.empty() ? or_missing("", t.not_collected, "arch_list")
                           : fmt::format("{}", fmt::join(t.arch_list, " ")));
  auto build = [&](const char* key) {
    const auto it = t.build.find(key);
    return it == t.build.end() ? std::string("?") : it->second;
  };
  line(out, "BLAS / LAPACK (build)", fmt::format("{} / {}", build("BLAS_INFO"), build("LAPACK_INFO")));
  if (!t.openmp.empty()) line(out, "OpenMP", t.openmp);
  if (!t.cpu_capability.empty()) line(out, "CPU capability", t.cpu_capability);
  line(out, "C++11 ABI",
       t.cxx11_abi ? (*t.cxx11_abi ? "yes" : "no") : or_missing("", t.not_collected, "cxx11_abi"));
  line(out, "threads",
       fmt::format("intra-op {}, inter-op {}", t.intra_op_threads.value_or(-1),
                   t.inter_op_threads.value_or(-1)));
  std::vector<std::string> feats;
  for (const auto& [k, v] : t.features) feats.push_back(k + (v ? "+" : "-"));
  line(out, "features", fmt::format("{}", fmt::join(feats, " ")));
}

void blas_and_drivers_sections(std::string& out, const BlasInfo& b, const DriverInfo& d,
                               const ConsoleStyle& style) {
  out += bold("CPU BLAS loaded with torch", style) + "\n";
  line(out, "library",
       or_missing(b.name, b.not_collected, "name") + (b.version.empty() ? "" : " " + b.version));
  if (!b.library.empty()) line(out, "path", b.library);
  if (!b.evidence.empty()) line(out, "recognised by", b.evidence);

  out += bold("Drivers", style) + "\n";
  line(out, "NVIDIA driver", or_missing(d.nvidia_driver, d.not_collected, "nvidia_driver"));
  line(out, "CUDA driver API",
       d.cuda_driver_api.empty() ? or_missing(d.cuda_init_error, d.not_collected, "cuda_driver_api")
                                 : d.cuda_driver_api);
  line(out, "ROCm", or_missing(d.rocm_version, d.not_collected, "rocm_version"));
  if (!d.amdgpu_driver.empty()) line(out, "amdgpu", d.amdgpu_driver);
  for (const auto& n : d.device_nodes) line(out, "device node", n);
}

/// One accelerator torch sees, on one line.
std::string device_line(const DeviceInfo& dev) {
  std::string s = fmt::format("{}  {}  {}", dev.id, dev.name, dev.arch);
  if (dev.total_memory_bytes) s += "  " + format_bytes(static_cast<double>(*dev.total_memory_bytes));
  if (dev.multiprocessors)
    s += fmt::format("  {} {}", *dev.multiprocessors, dev.vendor == "amd" ? "CUs" : "SMs");
  if (dev.integrated) s += *dev.integrated ? "  integrated" : "  discrete";
  if (!dev.plugin.empty() || !dev.backend.empty()) {
    // A plugin's device: who drives it, and the Windows adapter it is.
    s += "  " + (dev.plugin.empty() ? "backend " + dev.backend : "plugin " + dev.plugin);
    if (!dev.luid.empty()) {
      s += fmt::format("  DXGI adapter {} (LUID {}, by {})", dev.dxgi_index.value_or(-1), dev.luid,
                       dev.adapter_join);
    } else if (const auto it = dev.not_collected.find("adapter"); it != dev.not_collected.end()) {
      s += "  adapter: " + it->second;
    }
  } else if (dev.arch_in_build) {
    s += *dev.arch_in_build ? "  arch in build" : "  ARCH NOT IN BUILD";
  } else {
    s += "  arch in build: " + or_missing("", dev.not_collected, "arch_in_build");
  }
  return s;
}

void devices_section(std::string& out, const Environment& env, const ConsoleStyle& style) {
  out += bold(fmt::format("Accelerators torch sees ({})", env.devices.size()), style) + "\n";
  if (env.devices.empty()) out += no_engine_note(env.torch) ? "  not asked (see Torch above)\n" : "  none\n";
  for (const auto& dev : env.devices) out += "  " + device_line(dev) + "\n";
}

void gpus_section(std::string& out, const std::vector<GpuHardware>& gpus, const ConsoleStyle& style) {
  out += bold(fmt::format("GPUs found without torch ({})", gpus.size()), style) + "\n";
  if (gpus.empty()) out += "  none\n";
  for (const auto& g : gpus) {
    std::string s = fmt::format("{}  {} {}  {}", g.pci_address, g.vendor, g.device_id,
                                g.name.empty() ? "(unnamed)" : g.name);
    if (!g.gfx_target.empty()) s += "  " + g.gfx_target;
    if (!g.compute_capability.empty()) s += "  cc " + g.compute_capability;
    if (g.integrated) s += *g.integrated ? "  integrated" : "  discrete";
    s += "  driver " + (g.driver.empty() ? std::string("none") : g.driver);
    if (g.vram_bytes) s += "  " + format_bytes(static_cast<double>(*g.vram_bytes));
    if (g.link) {
      s += fmt::format("  PCIe {} x{} (max {} x{})", g.link->current_speed, g.link->current_width.value_or(0),
                       g.link->max_speed, g.link->max_width.value_or(0));
    }
    out += "  " + s + "\n";
    for (const auto& [k, v] : g.not_collected)
      out += dim(fmt::format("      {}: could not collect ({})", k, v), style) + "\n";
  }
}

void env_vars_section(std::string& out, const std::vector<EnvVar>& vars, const ConsoleStyle& style) {
  out += bold("Environment variables that change GPU behaviour", style) + "\n";
  if (vars.empty()) out += "  none set\n";
  for (const auto& v : vars) {
    out += fmt::format("  {}={}\n", v.name, v.value);
    if (!v.effect.empty()) out += dim("      " + v.effect, style) + "\n";
  }
}

/// Rows with a group, under one heading per group ("Windows: power").
template <typename Rows>
void grouped_rows(std::string& out, const std::string& prefix, const Rows& rows, const ConsoleStyle& style) {
  std::string group;
  for (const auto& r : rows) {
    if (r.group != group) out += bold(prefix + (group = r.group), style) + "\n";
    line(out, r.label, r.value);
  }
}

/// The parts only some machines have: Windows, GPU indices, ONNX Runtime,
/// the device choice.
void optional_sections(std::string& out, const Environment& env, const ConsoleStyle& style) {
  if (env.windows) grouped_rows(out, "Windows: ", windows_env_rows(*env.windows), style);
  const auto indices = gpu_index_rows(env, {});
  if (!indices.empty()) out += bold("GPU indices (each adapter in every list that numbers it)", style) + "\n";
  for (const auto& r : indices) line(out, r.label, r.value);
  if (env.onnxruntime) grouped_rows(out, "ONNX Runtime: ", onnxruntime_env_rows(*env.onnxruntime), style);
  if (env.selection) {
    out += bold("Device selection", style) + "\n";
    line(out, "measuring", env.selection->chosen);
    line(out, "why", env.selection->reason);
  }
}

}  // namespace

std::string render_environment(const Environment& env, const ConsoleStyle& style) {
  std::string out;
  host_section(out, env.host, style);
  torch_section(out, env.torch, style);
  blas_and_drivers_sections(out, env.blas, env.driver, style);
  devices_section(out, env, style);
  gpus_section(out, env.gpus, style);
  env_vars_section(out, env.env_vars, style);
  optional_sections(out, env, style);
  return wrap_lines(out, style.width);
}

}  // namespace accel
