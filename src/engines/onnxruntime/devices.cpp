#include "engines/onnxruntime/devices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "core/strings.hpp"
#include "engines/onnxruntime/session.hpp"
#include "platform/windows_facts.hpp"

namespace accel::ort {

namespace {

std::optional<long long> parse_int(std::string_view text) {
  // The trimmed copy owns its characters: a string_view of trim()'s returned
  // temporary dangled (ASan: stack-use-after-scope in OrtDevices tests).
  const std::string s = trim(text);
  if (s.empty()) return std::nullopt;
  long long v = 0;
  bool neg = false;
  std::size_t i = 0;
  if (s[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i == s.size()) return std::nullopt;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
    if (v > (1ll << 53)) return std::nullopt;
  }
  return neg ? -v : v;
}

bool has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const WindowsAdapter* adapter_of(const OrtEpDevice& d, const WindowsInfo* w) {
  if (!w || !d.windows_adapter) return nullptr;
  for (const auto& a : w->adapters) {
    if (a.dxgi_index == *d.windows_adapter) return &a;
  }
  return nullptr;
}

/// Integrated: the runtime's Discrete=0, else the platform probe's D3D12 UMA answer.
std::optional<bool> integrated(const OrtEpDevice& d, const WindowsInfo* w) {
  if (d.discrete) return !*d.discrete;
  if (const WindowsAdapter* a = adapter_of(d, w); a && a->integrated) return *a->integrated;
  return std::nullopt;
}

std::string describe(const OrtEpDevice& d) {
  std::string s = d.name.empty() ? d.vendor + " " + d.device_id : d.name;
  std::vector<std::string> facts;
  if (d.dxgi_adapter_number) facts.push_back(fmt::format("DXGI adapter {}", *d.dxgi_adapter_number));
  if (d.dxgi_high_performance_index)
    facts.push_back(fmt::format("high-performance order {}", *d.dxgi_high_performance_index));
  if (!d.luid.empty()) facts.push_back("LUID " + d.luid);
  if (!facts.empty()) s += " (" + fmt::format("{}", fmt::join(facts, ", ")) + ")";
  return s;
}

/// GPU EP devices of `ep`, best first: discrete, then DXGI high-performance
/// order, then the most memory.
std::vector<int> ranked_gpus(const std::vector<OrtEpDevice>& devices, const std::string& ep,
                             const WindowsInfo* w) {
  std::vector<int> idx;
  for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
    if (devices[i].ep_name == ep && devices[i].type == "gpu") idx.push_back(i);
  }
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    const auto ia = integrated(devices[a], w).value_or(false);
    const auto ib = integrated(devices[b], w).value_or(false);
    if (ia != ib) return !ia;
    const int ha = devices[a].dxgi_high_performance_index.value_or(1 << 20);
    const int hb = devices[b].dxgi_high_performance_index.value_or(1 << 20);
    if (ha != hb) return ha < hb;
    return devices[a].memory_bytes.value_or(0) > devices[b].memory_bytes.value_or(0);
  });
  return idx;
}

DeviceCandidate cpu_candidate(std::string reason) {
  DeviceCandidate c;
  c.device = "cpu";
  c.ep = "CPUExecutionProvider";
  c.reason = std::move(reason);
  return c;
}

std::vector<DeviceCandidate> dml_candidates(const DeviceRequest& r, const std::vector<OrtEpDevice>& devices,
                                            const WindowsInfo* w) {
  std::vector<DeviceCandidate> out;
  const std::string zero = device_zero_warning(devices, w);
  if (r.index) {
    DeviceCandidate c;
    c.device = fmt::format("dml:{}", *r.index);
    c.ep = "DmlExecutionProvider";
    c.device_id = *r.index;
    c.is_gpu = true;
    c.reason = fmt::format("asked for DirectML device_id {}", *r.index);
    for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
      const auto& d = devices[i];
      if (d.ep_name == c.ep && d.dxgi_adapter_number == *r.index) {
        c.ep_device_index = i;
        c.reason += ": " + describe(d);
        if (integrated(d, w).value_or(false) && !ranked_gpus(devices, c.ep, w).empty() &&
            !integrated(devices[ranked_gpus(devices, c.ep, w).front()], w).value_or(false)) {
          c.warnings.push_back(fmt::format("dml:{} is the integrated GPU {}; the discrete GPU is {}",
                                           *r.index, describe(d),
                                           describe(devices[ranked_gpus(devices, c.ep, w).front()])));
        }
      }
    }
    if (*r.index == 0 && !zero.empty() && c.warnings.empty()) c.warnings.push_back(zero);
    out.push_back(c);
    return out;
  }
  for (int i : ranked_gpus(devices, "DmlExecutionProvider", w)) {
    const auto& d = devices[i];
    DeviceCandidate c;
    c.ep = "DmlExecutionProvider";
    c.device_id = d.dxgi_adapter_number.value_or(0);
    c.device = fmt::format("dml:{}", c.device_id);
    c.ep_device_index = i;
    c.is_gpu = true;
    const bool igpu = integrated(d, w).value_or(false);
    c.reason =
        fmt::format("{} GPU{}: {}", igpu ? "the integrated" : "the discrete",
                    igpu && out.empty() ? " (no discrete GPU has a DirectML device)" : "", describe(d));
    if (!zero.empty()) c.warnings.push_back(zero);
    out.push_back(c);
  }
  if (!out.empty() || !w) {
    if (out.empty()) {
      DeviceCandidate c;
      c.device = "dml:0";
      c.ep = "DmlExecutionProvider";
      c.is_gpu = true;
      c.reason = "DirectML's default device_id 0 (no EP device list and no DXGI adapter list to choose from)";
      out.push_back(c);
    }
    return out;
  }
  // No EP devices (ONNX Runtime < 1.22): the platform's DXGI adapters.
  std::vector<const WindowsAdapter*> adapters;
  for (const auto& a : w->adapters) {
    if (!a.software) adapters.push_back(&a);
  }
  std::stable_sort(adapters.begin(), adapters.end(), [](const WindowsAdapter* a, const WindowsAdapter* b) {
    const bool ia = a->integrated.value_or(false), ib = b->integrated.value_or(false);
    if (ia != ib) return !ia;
    return a->high_performance_index.value_or(1 << 20) < b->high_performance_index.value_or(1 << 20);
  });
  for (const WindowsAdapter* a : adapters) {
    DeviceCandidate c;
    c.ep = "DmlExecutionProvider";
    c.device_id = a->dxgi_index;
    c.device = fmt::format("dml:{}", a->dxgi_index);
    c.is_gpu = true;
    c.reason = fmt::format("{} GPU by DXGI: {} (DXGI adapter {}, LUID {})",
                           a->integrated.value_or(false) ? "the integrated" : "the discrete", a->name,
                           a->dxgi_index, a->luid);
    out.push_back(c);
  }
  return out;
}

DeviceCandidate simple_gpu(const std::string& kind, const std::string& ep, int id,
                           const std::vector<OrtEpDevice>& devices, std::string reason) {
  DeviceCandidate c;
  c.ep = ep;
  c.device_id = id;
  c.device = kind == "webgpu" ? "webgpu" : fmt::format("{}:{}", kind, id);
  c.is_gpu = true;
  c.reason = std::move(reason);
  int seen = 0;
  for (int i = 0; i < static_cast<int>(devices.size()); ++i) {
    if (devices[i].ep_name == ep && devices[i].type == "gpu" && seen++ == id) {
      c.ep_device_index = i;
      c.reason += ": " + describe(devices[i]);
    }
  }
  return c;
}

}  // namespace

std::optional<DeviceRequest> parse_device_request(std::string_view text) {
  const std::string t = lower(trim(text));
  DeviceRequest r;
  std::string_view kind = t;
  std::optional<int> index;
  if (const auto colon = t.find(':'); colon != std::string::npos) {
    kind = std::string_view(t).substr(0, colon);
    const auto n = parse_int(std::string_view(t).substr(colon + 1));
    if (!n || *n < 0 || *n > 64) return std::nullopt;
    index = static_cast<int>(*n);
  }
  if (kind == "auto" && !index) {
    r.kind = DeviceRequest::Kind::automatic;
  } else if (kind == "cpu" && !index) {
    r.kind = DeviceRequest::Kind::cpu;
  } else if (kind == "gpu" && !index) {
    r.kind = DeviceRequest::Kind::gpu;
  } else if (kind == "dml" || kind == "directml") {
    r.kind = DeviceRequest::Kind::dml;
  } else if (kind == "cuda") {
    r.kind = DeviceRequest::Kind::cuda;
  } else if (kind == "webgpu" && !index) {
    r.kind = DeviceRequest::Kind::webgpu;
  } else {
    return std::nullopt;
  }
  r.index = index;
  return r;
}

std::string luid_from_metadata(std::string_view value) {
  const std::string v = trim(value);
  if (v.empty()) return {};
  if (v.find(':') != std::string::npos) return lower(v);
  unsigned long long x = 0;
  char* end = nullptr;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    x = std::strtoull(v.c_str() + 2, &end, 16);
  } else {
    x = std::strtoull(v.c_str(), &end, 10);
  }
  if (!end || *end != '\0') return {};
  return platform::detail::format_luid(static_cast<std::int32_t>(x >> 32),
                                       static_cast<std::uint32_t>(x & 0xffffffffu));
}

std::optional<std::uint64_t> video_memory_bytes(std::string_view value) {
  const std::string v = trim(value);
  std::size_t i = 0;
  std::uint64_t n = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') n = n * 10 + static_cast<std::uint64_t>(v[i++] - '0');
  if (i == 0) return std::nullopt;
  const std::string unit = lower(trim(std::string_view(v).substr(i)));
  if (unit == "mb" || unit == "mib") return n << 20;
  if (unit == "gb" || unit == "gib") return n << 30;
  if (unit == "kb" || unit == "kib") return n << 10;
  if (unit.empty() || unit == "b") return n;
  return std::nullopt;
}

void fill_from_metadata(OrtEpDevice& d) {
  auto get = [&](const char* k) -> const std::string* {
    const auto it = d.metadata.find(k);
    return it == d.metadata.end() ? nullptr : &it->second;
  };
  if (const auto* s = get("Description")) d.name = *s;
  if (const auto* s = get("LUID")) d.luid = luid_from_metadata(*s);
  if (const auto* s = get("Discrete")) {
    if (*s == "1") d.discrete = true;
    if (*s == "0") d.discrete = false;
  }
  if (const auto* s = get("DxgiAdapterNumber"))
    if (const auto n = parse_int(*s)) d.dxgi_adapter_number = static_cast<int>(*n);
  if (const auto* s = get("DxgiHighPerformanceIndex"))
    if (const auto n = parse_int(*s)) d.dxgi_high_performance_index = static_cast<int>(*n);
  if (const auto* s = get("DxgiVideoMemory")) d.memory_bytes = video_memory_bytes(*s);
}

void join_windows_adapters(std::vector<OrtEpDevice>& devices, const WindowsInfo* windows) {
  if (!windows) return;
  for (auto& d : devices) {
    if (d.luid.empty()) continue;
    for (const auto& a : windows->adapters) {
      if (!a.luid.empty() && lower(a.luid) == d.luid) d.windows_adapter = a.dxgi_index;
    }
  }
}

std::string device_zero_warning(const std::vector<OrtEpDevice>& devices, const WindowsInfo* windows) {
  // The adapter behind device_id 0, and the best discrete one, from either list.
  std::string zero_name, discrete_name;
  std::optional<int> discrete_index;
  bool zero_integrated = false;
  for (const auto& d : devices) {
    if (d.type != "gpu" || !d.dxgi_adapter_number) continue;
    const bool igpu = integrated(d, windows).value_or(false);
    if (*d.dxgi_adapter_number == 0 && igpu) {
      zero_integrated = true;
      zero_name = d.name;
    }
    if (!igpu && integrated(d, windows).has_value() && !discrete_index) {
      discrete_index = d.dxgi_adapter_number;
      discrete_name = d.name;
    }
  }
  if (windows && zero_name.empty()) {
    for (const auto& a : windows->adapters) {
      if (a.software) continue;
      if (a.dxgi_index == 0 && a.integrated.value_or(false)) {
        zero_integrated = true;
        zero_name = a.name;
      }
      if (a.integrated.has_value() && !*a.integrated && !discrete_index) {
        discrete_index = a.dxgi_index;
        discrete_name = a.name;
      }
    }
  }
  if (!zero_integrated || !discrete_index) return {};
  return fmt::format(
      "DirectML device_id 0 (DXGI adapter 0, the default of most scripts) is the integrated GPU {}; the "
      "discrete GPU {} is device_id {}",
      zero_name, discrete_name, *discrete_index);
}

std::vector<DeviceCandidate> device_candidates(const DeviceRequest& r,
                                               const std::vector<std::string>& providers,
                                               const std::vector<OrtEpDevice>& devices, const WindowsInfo* w,
                                               std::string* error) {
  using K = DeviceRequest::Kind;
  std::vector<DeviceCandidate> out;
  const std::string listed = fmt::format("{}", fmt::join(providers, ", "));
  auto missing = [&](const char* ep) {
    if (error)
      *error = fmt::format("this ONNX Runtime has no {}; it has: {}", ep, listed.empty() ? "none" : listed);
  };
  if (r.kind == K::cpu) return {cpu_candidate("asked for (--device cpu)")};
  if (r.kind == K::dml) {
    if (!has(providers, "DmlExecutionProvider")) {
      missing("DmlExecutionProvider");
      return {};
    }
    return dml_candidates(r, devices, w);
  }
  if (r.kind == K::cuda) {
    if (!has(providers, "CUDAExecutionProvider")) {
      missing("CUDAExecutionProvider");
      return {};
    }
    const int id = r.index.value_or(0);
    return {simple_gpu("cuda", "CUDAExecutionProvider", id, devices,
                       r.index ? fmt::format("asked for CUDA device {}", id) : "CUDA device 0")};
  }
  if (r.kind == K::webgpu) {
    if (!has(providers, "WebGpuExecutionProvider")) {
      missing("WebGpuExecutionProvider");
      return {};
    }
    return {simple_gpu("webgpu", "WebGpuExecutionProvider", 0, devices, "asked for WebGPU")};
  }
  // gpu / auto: DirectML (Windows), then CUDA; WebGPU only when asked for
  // (it may sit on a software Vulkan or D3D device).
  if (has(providers, "DmlExecutionProvider")) {
    auto dml = dml_candidates(DeviceRequest{K::dml, std::nullopt}, devices, w);
    out.insert(out.end(), dml.begin(), dml.end());
  }
  if (has(providers, "CUDAExecutionProvider")) {
    out.push_back(simple_gpu("cuda", "CUDAExecutionProvider", 0, devices, "the CUDA provider, device 0"));
  }
  if (r.kind == K::gpu) {
    if (out.empty() && error) {
      *error = fmt::format("this ONNX Runtime has no GPU execution provider (DirectML, CUDA); it has: {}",
                           listed.empty() ? "none" : listed);
    }
    return out;
  }
  out.push_back(cpu_candidate(out.empty() ? "no GPU execution provider in this ONNX Runtime"
                                          : "no GPU provider could create a session"));
  return out;
}

EpDeviceList list_ep_devices(const Env& env) {
  EpDeviceList out;
  const Runtime& rt = env.runtime();
  const abi::Api& a = rt.api();
  if (!a.GetEpDevices || !a.EpDevice_Device || !a.GetKeyValuePairs) {
    out.why_not =
        fmt::format("ONNX Runtime {} has no EP device list (GetEpDevices: 1.22 and later)", rt.version());
    return out;
  }
  const abi::OrtEpDevice* const* list = nullptr;
  std::size_t n = 0;
  if (abi::OrtStatus* st = a.GetEpDevices(env.get(), &list, &n)) {
    out.why_not = std::string("GetEpDevices failed: ") + (a.GetErrorMessage(st) ? a.GetErrorMessage(st) : "");
    a.ReleaseStatus(st);
    return out;
  }
  auto pairs = [&](const abi::OrtKeyValuePairs* kv) {
    std::map<std::string, std::string> m;
    if (!kv) return m;
    const char* const* keys = nullptr;
    const char* const* values = nullptr;
    std::size_t count = 0;
    a.GetKeyValuePairs(kv, &keys, &values, &count);
    for (std::size_t i = 0; i < count; ++i) {
      if (keys[i]) m[keys[i]] = values[i] ? values[i] : "";
    }
    return m;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const abi::OrtEpDevice* e = list[i];
    OrtEpDevice d;
    d.ep_name = a.EpDevice_EpName(e) ? a.EpDevice_EpName(e) : "";
    d.ep_vendor = a.EpDevice_EpVendor(e) ? a.EpDevice_EpVendor(e) : "";
    d.ep_metadata = pairs(a.EpDevice_EpMetadata(e));
    const abi::OrtHardwareDevice* hw = a.EpDevice_Device(e);
    if (hw) {
      const auto type = a.HardwareDevice_Type(hw);
      d.type = type == abi::OrtHardwareDeviceType_GPU   ? "gpu"
               : type == abi::OrtHardwareDeviceType_NPU ? "npu"
                                                        : "cpu";
      d.vendor = a.HardwareDevice_Vendor(hw) ? a.HardwareDevice_Vendor(hw) : "";
      d.vendor_id = fmt::format("0x{:04x}", a.HardwareDevice_VendorId(hw));
      d.device_id = fmt::format("0x{:04x}", a.HardwareDevice_DeviceId(hw));
      d.metadata = pairs(a.HardwareDevice_Metadata(hw));
    }
    fill_from_metadata(d);
    out.devices.push_back(std::move(d));
    out.handles.push_back(e);
  }
  return out;
}

}  // namespace accel::ort
