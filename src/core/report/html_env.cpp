// The HTML report's environment section.
#include "core/report/html_detail.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/report/digest.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel::html_detail {

namespace {

std::string or_missing(const std::string& value, const NotCollected& nc, const std::string& field) {
  if (!value.empty()) return value;
  const auto it = nc.find(field);
  return it == nc.end() ? "could not collect" : "could not collect (" + it->second + ")";
}

void kv_table(std::string& out, const std::string& title,
              const std::vector<std::pair<std::string, std::string>>& rows) {
  out += "<h3>" + esc(title) + "</h3><table class=\"kv\"><tbody>\n";
  for (const auto& [k, v] : rows) out += "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>\n";
  out += "</tbody></table>\n";
}

void host_table(std::string& out, const HostInfo& h) {
  std::string mem = or_missing("", h.not_collected, "memory_total_bytes");
  if (h.memory_total_bytes) {
    mem = format_bytes(static_cast<double>(*h.memory_total_bytes)) + " total" +
          (h.memory_available_bytes
               ? ", " + format_bytes(static_cast<double>(*h.memory_available_bytes)) + " available"
               : "");
  }
  std::string simd;
  for (const auto& s : h.simd) simd += (simd.empty() ? "" : " ") + s;
  kv_table(
      out, "Host",
      {{"OS", or_missing(h.os, h.not_collected, "os")},
       {"kernel", or_missing(h.kernel, h.not_collected, "kernel")},
       {"CPU", or_missing(h.cpu_model, h.not_collected, "cpu_model")},
       {"cores", h.logical_cores
                     ? fmt::format("{} logical{}", *h.logical_cores,
                                   h.physical_cores ? fmt::format(", {} physical", *h.physical_cores) : "")
                     : or_missing("", h.not_collected, "logical_cores")},
       {"max clock", h.cpu_max_mhz ? fmt::format("{:.0f} MHz", *h.cpu_max_mhz)
                                   : or_missing("", h.not_collected, "cpu_max_mhz")},
       {"SIMD", simd.empty() ? or_missing("", h.not_collected, "simd") : simd},
       {"memory", mem},
       {"CPU governor", or_missing(h.cpu_governor, h.not_collected, "cpu_governor")}});
}

void torch_table(std::string& out, const TorchInfo& t) {
  auto build = [&](const char* key) {
    const auto it = t.build.find(key);
    return it == t.build.end() ? std::string("?") : it->second;
  };
  std::string archs, feats;
  for (const auto& a : t.arch_list) archs += (archs.empty() ? "" : " ") + a;
  for (const auto& [k, v] : t.features) feats += (feats.empty() ? "" : " ") + k + (v ? "+" : "-");
  std::vector<std::pair<std::string, std::string>> torch_rows{
      {"version", t.version + (t.source.empty() ? "" : " (" + t.source + ")")}, {"backend", t.backend}};
  if (!t.cuda_version.empty()) torch_rows.push_back({"CUDA runtime", t.cuda_version});
  if (!t.cudnn_version.empty()) torch_rows.push_back({"cuDNN", t.cudnn_version});
  if (!t.hip_version.empty()) torch_rows.push_back({"HIP runtime", t.hip_version});
  if (!t.miopen_version.empty()) torch_rows.push_back({"MIOpen", t.miopen_version});
  torch_rows.push_back({"arch list", archs.empty() ? or_missing("", t.not_collected, "arch_list") : archs});
  torch_rows.push_back({"BLAS / LAPACK (build)", build("BLAS_INFO") + " / " + build("LAPACK_INFO")});
  if (!t.openmp.empty()) torch_rows.push_back({"OpenMP", t.openmp});
  if (!t.cpu_capability.empty()) torch_rows.push_back({"CPU capability", t.cpu_capability});
  torch_rows.push_back({"threads", fmt::format("intra-op {}, inter-op {}", t.intra_op_threads.value_or(-1),
                                               t.inter_op_threads.value_or(-1))});
  torch_rows.push_back({"features", feats});
  kv_table(out, "Torch", torch_rows);
}

void blas_table(std::string& out, const BlasInfo& b) {
  kv_table(
      out, "CPU BLAS loaded in the process",
      {{"library", or_missing(b.name, b.not_collected, "name") + (b.version.empty() ? "" : " " + b.version)},
       {"path", b.library.empty() ? "-" : b.library},
       {"recognised by", b.evidence.empty() ? "-" : b.evidence}});
}

void drivers_table(std::string& out, const DriverInfo& d) {
  std::vector<std::pair<std::string, std::string>> drv{
      {"NVIDIA driver", or_missing(d.nvidia_driver, d.not_collected, "nvidia_driver")},
      {"CUDA driver API", d.cuda_driver_api.empty()
                              ? or_missing(d.cuda_init_error, d.not_collected, "cuda_driver_api")
                              : d.cuda_driver_api},
      {"ROCm", or_missing(d.rocm_version, d.not_collected, "rocm_version")}};
  if (!d.amdgpu_driver.empty()) drv.push_back({"amdgpu", d.amdgpu_driver});
  for (const auto& n : d.device_nodes) drv.push_back({"device node", n});
  if (d.device_nodes.empty())
    drv.push_back({"device nodes", or_missing("", d.not_collected, "device_nodes")});
  kv_table(out, "Drivers", drv);
}

void devices_table(std::string& out, const std::vector<DeviceInfo>& devices) {
  out += fmt::format("<h3>Accelerators torch sees ({})</h3>\n", devices.size());
  if (devices.empty()) {
    out += "<p class=\"empty\">None.</p>\n";
    return;
  }
  out +=
      "<div class=\"scroll\"><table "
      "class=\"data\"><thead><tr><th>id</th><th>name</th><th>arch</th><th>memory</th>"
      "<th>units</th><th>kind</th><th>arch in the torch build</th><th>PCI</th></tr></thead><tbody>\n";
  for (const auto& dev : devices) {
    out +=
        "<tr>" + cell(dev.id) + cell(dev.name) + cell(dev.arch) +
        num_cell(dev.total_memory_bytes ? format_bytes(static_cast<double>(*dev.total_memory_bytes)) : "-") +
        num_cell(dev.multiprocessors
                     ? fmt::format("{} {}", *dev.multiprocessors, dev.vendor == "amd" ? "CUs" : "SMs")
                     : "-") +
        cell(dev.integrated ? (*dev.integrated ? "integrated" : "discrete") : "-") +
        cell(dev.arch_in_build ? (*dev.arch_in_build ? "yes" : "NO")
                               : or_missing("", dev.not_collected, "arch_in_build")) +
        cell(dev.pci_bus_id) + "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

void gpus_table(std::string& out, const std::vector<GpuHardware>& gpus) {
  out += fmt::format("<h3>GPUs found without torch ({})</h3>\n", gpus.size());
  if (gpus.empty()) {
    out += "<p class=\"empty\">None.</p>\n";
    return;
  }
  out +=
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>PCI</th><th>vendor</th><th>name</th>"
      "<th>driver</th><th>arch</th><th>memory</th><th>PCIe link</th><th>not "
      "collected</th></tr></thead><tbody>\n";
  for (const auto& g : gpus) {
    std::string nc;
    for (const auto& [k, v] : g.not_collected) nc += (nc.empty() ? "" : "; ") + k + ": " + v;
    out += "<tr>" + cell(g.pci_address) + cell(g.vendor + " " + g.device_id) +
           cell(g.name.empty() ? "(unnamed)" : g.name) + cell(g.driver.empty() ? "none" : g.driver) +
           cell(!g.gfx_target.empty()           ? g.gfx_target
                : !g.compute_capability.empty() ? "cc " + g.compute_capability
                                                : "-") +
           num_cell(g.vram_bytes ? format_bytes(static_cast<double>(*g.vram_bytes)) : "-") +
           cell(g.link ? fmt::format("{} x{} (max {} x{})", g.link->current_speed,
                                     g.link->current_width.value_or(0), g.link->max_speed,
                                     g.link->max_width.value_or(0))
                       : "-") +
           cell(nc) + "</tr>\n";
  }
  out += "</tbody></table></div>\n";
}

void env_vars_table(std::string& out, const std::vector<EnvVar>& vars) {
  out += "<h3>Environment variables that change GPU behaviour</h3>\n";
  if (vars.empty()) {
    out += "<p class=\"empty\">None set.</p>\n";
    return;
  }
  out +=
      "<table "
      "class=\"data\"><thead><tr><th>variable</th><th>value</th><th>effect</th></tr></thead><tbody>\n";
  for (const auto& v : vars) {
    out += "<tr><td><code>" + esc(v.name) + "</code></td><td><code>" + esc(v.value) + "</code></td>" +
           cell(v.effect) + "</tr>\n";
  }
  out += "</tbody></table>\n";
}

/// Rows with a group (Windows, ONNX Runtime) as a part / fact / value table.
void grouped_table(std::string& out, const std::string& title, const std::vector<EnvRow>& rows) {
  out += "<h3>" + title +
         "</h3>\n<table class=\"data\"><thead><tr><th>part</th><th>fact</th><th>value</th></tr>"
         "</thead><tbody>\n";
  for (const auto& r : rows) out += "<tr>" + cell(r.group) + cell(r.label) + cell(r.value) + "</tr>\n";
  out += "</tbody></table>\n";
}

void gpu_indices_table(std::string& out, const Report& report) {
  const auto indices = gpu_index_rows(report.context.environment, report.results);
  if (indices.empty()) return;
  out +=
      "<h3>GPU indices</h3>\n<table class=\"data\"><thead><tr><th>adapter</th><th>indices</th></tr>"
      "</thead><tbody>\n";
  for (const auto& r : indices) out += "<tr>" + cell(r.label) + cell(r.value) + "</tr>\n";
  out += "</tbody></table>\n";
}

}  // namespace

void environment_section(std::string& out, const Report& report) {
  const Environment& env = report.context.environment;
  out += "<section id=\"environment\"><h2>Environment</h2>\n<div class=\"env-grid\"><div>\n";
  host_table(out, env.host);
  torch_table(out, env.torch);
  blas_table(out, env.blas);
  out += "</div><div>\n";
  drivers_table(out, env.driver);
  if (env.selection) {
    kv_table(out, "Device selection",
             {{"requested", env.selection->requested},
              {"measured", env.selection->chosen},
              {"why", env.selection->reason}});
  }
  out += "</div></div>\n";
  devices_table(out, env.devices);
  gpus_table(out, env.gpus);
  env_vars_table(out, env.env_vars);
  if (env.windows) grouped_table(out, "Windows", windows_env_rows(*env.windows));
  gpu_indices_table(out, report);
  if (env.onnxruntime) grouped_table(out, "ONNX Runtime", onnxruntime_env_rows(*env.onnxruntime));
  if (!env.torch.config.empty()) {
    open_details(out, "Torch build configuration (at::show_config)");
    out += "<pre class=\"config\">" + esc(env.torch.config) + "</pre></details>\n";
  }
  out += "</section>\n";
}

}  // namespace accel::html_detail
