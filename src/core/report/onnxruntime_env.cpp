#include "core/report/onnxruntime_env.hpp"

#include <fmt/format.h>

namespace accel {

namespace {
std::string or_reason(const std::string& value, const OnnxRuntimeInfo& o, const char* field) {
  if (!value.empty()) return value;
  const auto it = o.not_collected.find(field);
  return it == o.not_collected.end() ? "none" : "not collected: " + it->second;
}
}  // namespace

std::vector<EnvRow> onnxruntime_env_rows(const OnnxRuntimeInfo& o) {
  std::vector<EnvRow> rows;
  const char* rt = "Runtime";
  rows.push_back({rt, "version",
                  fmt::format("{} (OrtApi {})", o.version.empty() ? "not found" : o.version, o.api_version)});
  rows.push_back({rt, "library", o.library.empty() ? "none" : o.library + " [" + o.found_by + "]"});
  rows.push_back({rt, "models built with",
                  o.model_path == "model_editor" ? "the Model Editor API"
                  : o.model_path.empty()         ? "-"
                                                 : "accel-doctor's ONNX writer"});
  rows.push_back(
      {rt, "providers", o.providers.empty() ? "none" : fmt::format("{}", fmt::join(o.providers, ", "))});
  if (!o.python.empty() || !o.python_packages.empty()) {
    rows.push_back(
        {rt, "Python packages",
         fmt::format("{}: {}", o.python.empty() ? "python" : o.python,
                     o.python_packages.empty() ? "no onnxruntime package"
                                               : fmt::format("{}", fmt::join(o.python_packages, ", ")))});
  }
  if (!o.directml_library.empty() || o.not_collected.count("directml_library"))
    rows.push_back({rt, "DirectML.dll", or_reason(o.directml_library, o, "directml_library")});
  for (const auto& d : o.ep_devices) {
    std::vector<std::string> facts;
    facts.push_back(d.type);
    if (d.discrete) facts.push_back(*d.discrete ? "discrete" : "integrated");
    if (d.dxgi_adapter_number) facts.push_back(fmt::format("DXGI {}", *d.dxgi_adapter_number));
    if (d.dxgi_high_performance_index)
      facts.push_back(fmt::format("high-performance {}", *d.dxgi_high_performance_index));
    if (!d.luid.empty()) facts.push_back("LUID " + d.luid);
    if (d.memory_bytes) facts.push_back(fmt::format("{} MiB", *d.memory_bytes >> 20));
    rows.push_back({"EP devices", d.ep_name,
                    fmt::format("{} ({})", d.name.empty() ? d.vendor + " " + d.device_id : d.name,
                                fmt::join(facts, ", "))});
  }
  if (o.ep_devices.empty()) rows.push_back({"EP devices", "list", or_reason("", o, "ep_devices")});
  if (!o.device.empty()) rows.push_back({"Measured", o.device, o.device_reason});
  for (const auto& w : o.warnings) rows.push_back({"Measured", "warning", w});
  return rows;
}

}  // namespace accel
