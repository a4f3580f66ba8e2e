// DirectML devices joined to the Windows adapters (directml_join.hpp).
#include "core/directml_join.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/strings.hpp"

namespace accel {

namespace {
std::string key(const std::string& name) { return lower(trim(name)); }

std::string ordinal(std::size_t n) {
  const char* suffix = n % 10 == 1 && n % 100 != 11   ? "st"
                       : n % 10 == 2 && n % 100 != 12 ? "nd"
                       : n % 10 == 3 && n % 100 != 13 ? "rd"
                                                      : "th";
  return fmt::format("{}{}", n, suffix);
}

bool memory_matches(std::uint64_t a, std::uint64_t b) {
  const double hi = static_cast<double>(std::max(a, b));
  return hi > 0 && std::fabs(static_cast<double>(a) - static_cast<double>(b)) <= 0.05 * hi;
}

void take(DeviceInfo& d, const WindowsAdapter& a, std::string how) {
  d.luid = a.luid;
  d.dxgi_index = a.dxgi_index;
  if (a.dxgi_index >= 0 && a.dxgi_index != d.index) {
    how += fmt::format("; note: {} is DXGI adapter {}, not {}", d.id, a.dxgi_index, d.index);
  }
  d.adapter_join = std::move(how);
  if (!d.total_memory_bytes && a.dedicated_video_memory_bytes)
    d.total_memory_bytes = a.dedicated_video_memory_bytes;
  if (!d.integrated && a.integrated) d.integrated = a.integrated;
  if (d.vendor.empty()) d.vendor = a.vendor;
}
}  // namespace

void join_windows_adapters(std::vector<DeviceInfo>& devices, const std::vector<WindowsAdapter>& adapters) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    DeviceInfo& d = devices[i];
    if (d.backend != "dml") continue;
    std::vector<const WindowsAdapter*> named;
    for (const auto& a : adapters) {
      if (!a.software && !d.name.empty() && key(a.name) == key(d.name)) named.push_back(&a);
    }
    std::size_t k = 0;
    for (std::size_t j = 0; j < i; ++j) {
      if (devices[j].backend == "dml" && key(devices[j].name) == key(d.name)) ++k;
    }
    if (named.empty()) {
      std::vector<std::string> names;
      for (const auto& a : adapters) names.push_back(fmt::format("{} '{}'", a.dxgi_index, a.name));
      d.not_collected["adapter"] =
          adapters.empty()
              ? "no Windows adapter list (environment.windows.adapters)"
              : fmt::format("no hardware adapter named '{}' (adapters: {})", d.name, fmt::join(names, ", "));
      continue;
    }
    if (named.size() == 1) {
      take(d, *named.front(), "name");
      continue;
    }
    if (d.total_memory_bytes) {
      std::vector<const WindowsAdapter*> by_memory;
      for (const auto* a : named) {
        if (a->dedicated_video_memory_bytes &&
            memory_matches(*a->dedicated_video_memory_bytes, *d.total_memory_bytes))
          by_memory.push_back(a);
      }
      if (by_memory.size() == 1) {
        take(d, *by_memory.front(), "name and memory");
        continue;
      }
    }
    if (k < named.size()) {
      take(d, *named[k],
           fmt::format("name, then order: the {} of {} adapters named '{}' in DXGI order", ordinal(k + 1),
                       named.size(), d.name));
    } else {
      d.not_collected["adapter"] = fmt::format(
          "{} torch-directml devices are named '{}' but only {} adapters", k + 1, d.name, named.size());
    }
  }
}

}  // namespace accel
