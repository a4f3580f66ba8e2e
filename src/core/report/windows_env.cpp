#include "core/report/windows_env.hpp"

#include <fmt/format.h>

#include "core/units.hpp"

namespace accel {

namespace {

std::string missing(const NotCollected& nc, const std::string& key) {
  const auto it = nc.find(key);
  return it == nc.end() ? std::string("not collected") : "not collected: " + it->second;
}

std::string yes_no(const std::optional<bool>& v, const NotCollected& nc, const std::string& key,
                   const char* yes = "yes", const char* no = "no") {
  return v ? std::string(*v ? yes : no) : missing(nc, key);
}

std::string files_text(const std::vector<WindowsFile>& files) {
  std::string s;
  for (const auto& f : files) {
    if (!s.empty()) s += "; ";
    s += fmt::format("{} {} ({})", f.path, f.version.empty() ? "(no version)" : f.version, f.where);
  }
  return s;
}

std::string bytes(const std::optional<std::uint64_t>& b) {
  return b ? format_bytes(static_cast<double>(*b)) : std::string("?");
}

/// Appends the rows of one group: add(label, value).
class GroupRows {
 public:
  GroupRows(std::vector<EnvRow>& rows, const char* group) : rows_(rows), group_(group) {}
  void operator()(std::string label, std::string value) const {
    rows_.push_back({group_, std::move(label), std::move(value)});
  }

 private:
  std::vector<EnvRow>& rows_;
  const char* group_;
};

/// One DXGI adapter on one line.
std::string adapter_text(const WindowsAdapter& a) {
  std::string v = fmt::format("{} [{} {}]", a.name.empty() ? "(unnamed)" : a.name, a.vendor_id, a.device_id);
  v += "  DXGI " + std::to_string(a.dxgi_index);
  v += a.high_performance_index ? fmt::format(", high-performance {}", *a.high_performance_index)
                                : std::string(", high-performance ?");
  v += "  LUID " + a.luid;
  v += fmt::format("  dedicated {}, shared {}", bytes(a.dedicated_video_memory_bytes),
                   bytes(a.shared_system_memory_bytes));
  if (a.software) v += "  SOFTWARE";
  v += a.integrated ? (*a.integrated ? "  integrated" : "  discrete") : "  integrated: unknown";
  if (!a.integrated_basis.empty()) v += " (" + a.integrated_basis + ")";
  v += "  driver " +
       (a.driver_version.empty() ? missing(a.not_collected, "driver_version") : a.driver_version);
  v += "  " +
       (a.wddm_version.empty()
            ? "WDDM: " + missing(a.not_collected, a.not_collected.count("dxcore") ? "dxcore" : "wddm_version")
            : a.wddm_version);
  if (a.hardware == false) v += "  not a hardware adapter (DXCore)";
  return v;
}

void adapter_rows(const GroupRows& add, const WindowsInfo& w) {
  const auto& nc = w.not_collected;
  if (w.adapters.empty()) add("adapters", nc.count("adapters") ? missing(nc, "adapters") : "none");
  for (const auto& a : w.adapters) add(fmt::format("adapter {}", a.dxgi_index), adapter_text(a));
  if (nc.count("adapters") && !w.adapters.empty()) add("adapters", missing(nc, "adapters"));
  if (nc.count("high_performance_order"))
    add("high-performance order", missing(nc, "high_performance_order"));
  add("HW GPU scheduling", yes_no(w.hardware_gpu_scheduling, nc, "hardware_gpu_scheduling", "on", "off"));
  add("TDR delay", w.tdr_delay_s ? fmt::format("{} s ({})", *w.tdr_delay_s, w.tdr_delay_source)
                                 : missing(nc, "tdr_delay_s"));
  if (w.python_gpu_preference.empty()) {
    add("python GPU preference",
        nc.count("python_gpu_preference") ? missing(nc, "python_gpu_preference") : "none set");
  }
  for (const auto& [path, pref] : w.python_gpu_preference) add("GPU preference", path + ": " + pref);
}

void os_and_power_rows(const GroupRows& add, const WindowsInfo& w) {
  const auto& nc = w.not_collected;
  add("build", w.os_build ? std::to_string(*w.os_build) : missing(nc, "os_build"));
  add("power scheme", w.power_scheme.empty() ? missing(nc, "power_scheme")
                                             : w.power_scheme + " (" + w.power_scheme_guid + ")");
  add("power mode", w.power_mode.empty() ? missing(nc, "power_mode") : w.power_mode);
  std::string src = w.power_source.empty() ? missing(nc, "power_source") : w.power_source;
  if (w.battery_percent) src += fmt::format(", battery {}%", *w.battery_percent);
  if (w.battery_saver) src += *w.battery_saver ? ", battery saver ON" : ", battery saver off";
  add("power source", src);
  add("efficiency mode (EcoQoS)", yes_no(w.process_ecoqos, nc, "process_ecoqos"));
  for (const auto& p : w.python_processes) {
    add(fmt::format("python pid {} EcoQoS", p.pid),
        p.path + ": " + (p.ecoqos ? (*p.ecoqos ? "ON (efficiency mode)" : "off") : "not known: " + p.why));
  }
  if (w.python_processes.empty())
    add("running python EcoQoS",
        nc.count("python_processes") ? missing(nc, "python_processes") : "no python process running");
  add("remote session", yes_no(w.remote_session, nc, "remote_session"));
}

void amd_stack_rows(const GroupRows& add, const WindowsInfo& w) {
  add("HIP_PATH", w.hip_path.empty() ? "not set" : w.hip_path);
  add("HIP runtime",
      w.hip_runtime.empty() ? "no amdhip64_6.dll / amdhip64_7.dll found" : files_text(w.hip_runtime));
  add("HIP in a torch wheel", w.torch_hip_runtime.empty()
                                  ? "none (no torch\\lib\\amdhip64*.dll in the site-packages looked at)"
                                  : files_text(w.torch_hip_runtime));
  add("Adrenalin", w.adrenalin_version.empty()
                       ? missing(w.not_collected, "adrenalin_version")
                       : w.adrenalin_version + " (" + w.adrenalin_version_source + ")");
  if (!w.hsa_override_gfx_version.empty())
    add("HSA_OVERRIDE_GFX_VERSION", w.hsa_override_gfx_version + " (no effect on Windows)");
}

void runtime_rows(const GroupRows& add, const WindowsInfo& w) {
  add("VC++ / OpenMP", w.vc_runtime.empty() ? "none found" : files_text(w.vc_runtime));
  if (!w.runtimes_missing.empty()) {
    std::string m;
    for (const auto& r : w.runtimes_missing) m += (m.empty() ? "" : ", ") + r;
    add("not found", m);
  }
  add("DirectML.dll", w.directml.empty() ? "none found" : files_text(w.directml));
  add("onnxruntime.dll",
      w.onnxruntime.empty() ? "none on PATH or in site-packages" : files_text(w.onnxruntime));
  for (const auto& p : w.onnxruntime_directml_ep) add("DirectML provider in", p);
  if (w.not_collected.count("file_versions")) add("file versions", missing(w.not_collected, "file_versions"));
}

void python_rows(const GroupRows& add, const WindowsInfo& w) {
  const auto& nc = w.not_collected;
  if (w.pythons.empty()) add("interpreters", missing(nc, "pythons"));
  for (const auto& p : w.pythons) {
    std::string v = p.found_by;
    if (!p.site_packages.empty()) v += "; site-packages " + p.site_packages.front();
    if (!p.torch_version.empty()) {
      v += "; torch " + p.torch_version;
      if (!p.torch_hip_version.empty()) v += " (HIP " + p.torch_hip_version + ")";
      if (!p.torch_cuda_version.empty()) v += " (CUDA " + p.torch_cuda_version + ")";
    }
    for (const auto& [k, why] : p.not_collected) v += "; " + k + ": " + why;
    add(p.path, v);
  }
  if (nc.count("pythons") && !w.pythons.empty()) add("interpreters", missing(nc, "pythons"));
}

}  // namespace

std::vector<EnvRow> windows_env_rows(const WindowsInfo& w) {
  std::vector<EnvRow> rows;
  adapter_rows(GroupRows(rows, "Adapters (DXGI)"), w);
  os_and_power_rows(GroupRows(rows, "OS and power"), w);
  GroupRows(rows, "Security")("Smart App Control", w.smart_app_control.empty()
                                                       ? missing(w.not_collected, "smart_app_control")
                                                       : w.smart_app_control);
  amd_stack_rows(GroupRows(rows, "AMD stack"), w);
  runtime_rows(GroupRows(rows, "Runtimes"), w);
  python_rows(GroupRows(rows, "Python"), w);
  return rows;
}

}  // namespace accel
