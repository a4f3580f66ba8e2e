#include "core/adapter_join.hpp"

#include <cctype>

#include <fmt/format.h>

#include "core/strings.hpp"
#include "core/vulkan_join.hpp"

namespace accel {

namespace {

bool names_match(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  return contains_ci(a, b) || contains_ci(b, a);
}

bool is_directml_device(const DeviceInfo& d) {
  return d.type == "privateuseone" || d.type == "dml" || d.id.rfind("privateuseone:", 0) == 0 ||
         d.id.rfind("dml:", 0) == 0;
}

std::vector<AdapterIndices> base_list(const Environment& env) {
  std::vector<AdapterIndices> out;
  if (env.windows) {
    for (const auto& w : env.windows->adapters) {
      AdapterIndices a;
      a.name = w.name;
      a.luid = w.luid;
      a.integrated = w.integrated;
      a.software = w.software;
      if (w.dxgi_index >= 0) a.dxgi_index = w.dxgi_index;
      a.high_performance_index = w.high_performance_index;
      out.push_back(std::move(a));
    }
    return out;
  }
  for (const auto& g : env.gpus) {
    if (g.vendor_info.contains("display_only")) continue;  // a BMC or a virtual display: no compute device
    AdapterIndices a;
    a.name = g.name.empty() ? g.vendor + " " + g.device_id : g.name;
    a.pci_address = vulkan::normalize_pci(g.pci_address);
    a.integrated = g.integrated;
    out.push_back(std::move(a));
  }
  return out;
}

void join_torch(std::vector<AdapterIndices>& adapters, const Environment& env) {
  std::vector<bool> taken_by_name(adapters.size(), false);
  for (const auto& d : env.devices) {
    if (d.type == "cpu" || d.id == "cpu") continue;
    AdapterIndices* hit = nullptr;
    std::string how;
    // A LUID set by the DirectML join (core/directml_join.hpp: name, memory,
    // then order) is the surest key; without one, torch-directml's index is
    // taken as the DXGI order.
    if (!d.luid.empty()) {
      for (auto& a : adapters) {
        if (a.luid == d.luid) hit = &a;
      }
      how = "LUID (" + (d.adapter_join.empty() ? std::string("joined") : d.adapter_join) + ")";
    }
    if (!hit && is_directml_device(d)) {
      for (auto& a : adapters) {
        if (a.dxgi_index && *a.dxgi_index == d.index) hit = &a;
      }
      how = "index = DXGI order (torch-directml)";
    }
    const std::string pci = vulkan::normalize_pci(d.pci_bus_id);
    if (!hit && !pci.empty()) {
      for (auto& a : adapters) {
        if (a.pci_address == pci) hit = &a;
      }
      how = "PCI address";
    }
    if (!hit) {
      for (std::size_t i = 0; i < adapters.size(); ++i) {
        if (!taken_by_name[i] && !adapters[i].software && names_match(adapters[i].name, d.name)) {
          hit = &adapters[i];
          taken_by_name[i] = true;
          break;
        }
      }
      how = "name";
    }
    if (!hit) continue;
    hit->torch.push_back(d.id);
    hit->joined_by.push_back(fmt::format("torch {} by {}", d.id, how));
    // HIP numbers the AMD GPUs it sees; a ROCm torch's cuda:N is HIP device N.
    if (env.torch.backend == "rocm" && d.vendor == "amd" && (d.type == "cuda" || d.type == "hip")) {
      hit->hip_index = d.index;
      hit->joined_by.push_back(fmt::format("HIP {} = torch {} (a ROCm build)", d.index, d.id));
    }
  }
}

void join_vulkan(std::vector<AdapterIndices>& adapters, const std::vector<Result>& results) {
  for (const auto& v : vulkan::vulkan_devices_of(results)) {
    if (!v.is_gpu()) continue;
    const auto colon = v.device.find(':');
    if (colon == std::string::npos) continue;
    int index = -1;
    try {
      index = std::stoi(v.device.substr(colon + 1));
    } catch (const std::exception&) {
      continue;
    }
    const std::string luid = luid_from_vulkan_hex(v.device_luid);
    AdapterIndices* hit = nullptr;
    std::string how;
    for (auto& a : adapters) {
      if (!luid.empty() && a.luid == luid) hit = &a, how = "LUID";
    }
    if (!hit && !v.pci_address.empty()) {
      for (auto& a : adapters) {
        if (a.pci_address == v.pci_address) hit = &a, how = "PCI address";
      }
    }
    if (!hit) {
      for (auto& a : adapters) {
        if (!hit && !a.software && !a.vulkan_index && names_match(a.name, v.name)) hit = &a, how = "name";
      }
    }
    if (!hit) continue;
    hit->vulkan_index = index;
    hit->joined_by.push_back(fmt::format("{} by {}", v.device, how));
  }
}

// ONNX Runtime's EP devices (environment.onnxruntime, GetEpDevices): by LUID
// (Windows), else a GPU EP device by its DXGI adapter number; the index is the
// EP device's position in the runtime's list.
void join_onnxruntime(std::vector<AdapterIndices>& adapters, const Environment& env) {
  if (!env.onnxruntime) return;
  const auto& eps = env.onnxruntime->ep_devices;
  for (std::size_t i = 0; i < eps.size(); ++i) {
    const OrtEpDevice& e = eps[i];
    if (e.type == "cpu") continue;
    AdapterIndices* hit = nullptr;
    std::string how;
    for (auto& a : adapters) {
      if (!e.luid.empty() && a.luid == e.luid) hit = &a, how = "LUID";
    }
    if (!hit && e.dxgi_adapter_number) {
      for (auto& a : adapters) {
        if (a.dxgi_index && *a.dxgi_index == *e.dxgi_adapter_number) hit = &a, how = "DXGI adapter number";
      }
    }
    if (!hit || hit->onnxruntime_index) continue;
    hit->onnxruntime_index = static_cast<int>(i);
    hit->joined_by.push_back(fmt::format("ONNX Runtime EP device {} ({}) by {}", i, e.ep_name, how));
  }
}

}  // namespace

std::string luid_from_vulkan_hex(const std::string& hex16) {
  if (hex16.size() != 16) return "";
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(hex16[2 * i + k])));
      if (c >= '0' && c <= '9') {
        v = v * 16 + static_cast<unsigned>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v = v * 16 + static_cast<unsigned>(c - 'a' + 10);
      } else {
        return "";
      }
    }
    b[i] = static_cast<unsigned char>(v);
  }
  const auto word = [&b](int at) {
    return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
           static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
  };
  return fmt::format("0x{:08x}:0x{:08x}", word(4), word(0));
}

std::vector<AdapterIndices> join_adapter_indices(const Environment& env, const std::vector<Result>& results) {
  auto adapters = base_list(env);
  join_torch(adapters, env);
  join_vulkan(adapters, results);
  join_onnxruntime(adapters, env);
  return adapters;
}

std::string indices_text(const AdapterIndices& a) {
  std::vector<std::string> parts;
  if (a.dxgi_index) parts.push_back(fmt::format("DXGI {}", *a.dxgi_index));
  if (a.high_performance_index)
    parts.push_back(fmt::format("high-performance {}", *a.high_performance_index));
  for (const auto& t : a.torch) parts.push_back("torch " + t);
  if (a.onnxruntime_index) parts.push_back(fmt::format("ONNX Runtime {}", *a.onnxruntime_index));
  if (a.vulkan_index) parts.push_back(fmt::format("Vulkan {}", *a.vulkan_index));
  if (a.hip_index) parts.push_back(fmt::format("HIP {}", *a.hip_index));
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "-" : s;
}

}  // namespace accel
