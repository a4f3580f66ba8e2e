// The join of the Vulkan ceiling with the framework (vulkan_join.hpp).
#include "core/vulkan_join.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "core/strings.hpp"

namespace accel::vulkan {

std::string pci_string(unsigned domain, unsigned bus, unsigned device, unsigned function) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

std::string normalize_pci(const std::string& text) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x%c", &domain, &bus, &device, &function, &tail) == 4) {
    if (bus < 256 && device < 32 && function < 8) return pci_string(domain & 0xffffu, bus, device, function);
  }
  return {};
}

bool is_vulkan_key(const std::string& key) { return key.rfind("bench/vulkan/", 0) == 0; }

std::vector<DeviceRef> vulkan_devices_of(const std::vector<Result>& results) {
  std::vector<std::pair<int, DeviceRef>> found;
  for (const auto& r : results) {
    if (!is_vulkan_key(r.key) || !r.evidence.is_object()) continue;
    const auto it = r.evidence.find("vulkan_device");
    if (it == r.evidence.end() || !it->is_object()) continue;
    const json& id = *it;
    const int index = id.value("index", -1);
    if (std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.second.device == r.device; }))
      continue;
    DeviceRef d;
    d.device = r.device;
    d.name = id.value("name", std::string());
    d.type = id.value("type", std::string());
    d.software = id.value("software", false);
    d.pci_address = normalize_pci(id.value("pci_address", std::string()));
    d.device_luid = lower(id.value("device_luid", std::string()));
    d.driver_name = id.value("driver_name", std::string());
    found.emplace_back(index, std::move(d));
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<DeviceRef> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

namespace {

bool names_match(const std::string& a, const std::string& b) {
  return !a.empty() && !b.empty() && (contains_ci(a, b) || contains_ci(b, a));
}

}  // namespace

const DeviceInfo* framework_device_of(const DeviceRef& v, const Environment& env, std::string* joined_by) {
  // By address first: the same name on two cards must not join the wrong one.
  for (const auto& d : env.devices) {
    if (d.type == "cpu" || d.id == "cpu") continue;
    const std::string pci = normalize_pci(d.pci_bus_id);
    if (!v.pci_address.empty() && !pci.empty() && pci == v.pci_address) {
      if (joined_by) *joined_by = "pci_address";
      return &d;
    }
  }
  for (const auto& d : env.devices) {
    if (d.type == "cpu" || d.id == "cpu") continue;
    const std::string pci = normalize_pci(d.pci_bus_id);
    if (!v.pci_address.empty() && !pci.empty()) continue;  // both have addresses, and they differ
    if (names_match(v.name, d.name)) {
      if (joined_by) *joined_by = "name";
      return &d;
    }
  }
  return nullptr;
}

std::string framework_counterpart(const Result& v) {
  const std::string prefix = "bench/vulkan/";
  if (v.key.rfind(prefix, 0) != 0) return {};
  const std::string rest = v.key.substr(prefix.size());
  if (rest.rfind("compute/fma/fp32/", 0) == 0) return "gemm/square/fp32/4096x4096x4096";
  if (rest.rfind("compute/fma/fp16/", 0) == 0) return "gemm/square/fp16/4096x4096x4096";
  if (rest.rfind("compute/dot/int8/", 0) == 0) return "gemm/square/int8/4096x4096x4096";
  if (rest.rfind("memory/copy/", 0) == 0) return "memory/copy/fp32/rotating";
  if (rest.rfind("memory/read/", 0) == 0) return "memory/reduce/fp32/rotating";
  if (rest.rfind("transfer/h2d/", 0) == 0) return "transfer/h2d_pinned/fp32/256MiB";
  if (rest.rfind("transfer/d2h/", 0) == 0) return "transfer/d2h_pinned/fp32/256MiB";
  return {};
}

std::string framework_device_pci(const Environment& env, const std::string& device) {
  for (const auto& d : env.devices) {
    if (d.id == device) return normalize_pci(d.pci_bus_id);
  }
  return {};
}

namespace {

/// "bench/cuda/gemm/..." -> ("cuda", "gemm/..."); false for a Vulkan, CPU or malformed key.
bool split_framework_key(const std::string& k, std::string& type, std::string& rest) {
  if (k.rfind("bench/", 0) != 0) return false;
  const auto slash = k.find('/', 6);
  if (slash == std::string::npos) return false;
  type = k.substr(6, slash - 6);
  rest = k.substr(slash + 1);
  return type != "vulkan" && type != "cpu";
}

double figure_of(const Result& r) {
  if (auto it = r.metrics.find("tflops"); it != r.metrics.end()) return it->second;
  if (auto it = r.metrics.find("tops"); it != r.metrics.end()) return it->second;
  if (auto it = r.metrics.find("gbps"); it != r.metrics.end()) return it->second;
  return 0;
}

}  // namespace

void attach_framework_ratios(std::vector<Result>& vulkan_rows, const std::vector<Result>& framework_rows,
                             const Environment& env, const std::string& source) {
  for (auto& v : vulkan_rows) {
    if (v.status != Status::ok) continue;
    const std::string want = framework_counterpart(v);
    if (want.empty()) continue;
    const auto refs = vulkan_devices_of({v});
    if (refs.empty() || refs[0].software) continue;  // a software device is no ceiling of anything
    std::string joined_by;
    const DeviceInfo* fd = framework_device_of(refs[0], env, &joined_by);
    const double ceiling = figure_of(v);
    if (!fd || ceiling <= 0) continue;
    for (const auto& f : framework_rows) {
      std::string type, rest;
      if (f.status != Status::ok || !split_framework_key(f.key, type, rest) || rest != want) continue;
      const double figure = figure_of(f);
      if (f.device != fd->id || figure <= 0) continue;
      v.metrics["framework_ratio"] = figure / ceiling;
      v.evidence["framework"] = json{{"key", f.key},
                                     {"device", f.device},
                                     {"figure", figure},
                                     {"joined_by", joined_by},
                                     {"source", source}};
      break;
    }
  }
}

}  // namespace accel::vulkan
