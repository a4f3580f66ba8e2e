// Pure functions behind the Windows probes (windows_facts.hpp): portable, so
// the unit tests run them on Linux as well as under Wine.
#include "platform/windows_facts.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "core/strings.hpp"
#include "platform/detail.hpp"

namespace accel::platform::detail {

std::string format_luid(std::int32_t high_part, std::uint32_t low_part) {
  return fmt::format("0x{:08x}:0x{:08x}", static_cast<std::uint32_t>(high_part), low_part);
}

std::string umd_version_string(std::uint64_t packed) {
  return fmt::format("{}.{}.{}.{}", (packed >> 48) & 0xFFFF, (packed >> 32) & 0xFFFF, (packed >> 16) & 0xFFFF,
                     packed & 0xFFFF);
}

std::string file_version_string(std::uint32_t version_ms, std::uint32_t version_ls) {
  return fmt::format("{}.{}.{}.{}", version_ms >> 16, version_ms & 0xFFFF, version_ls >> 16,
                     version_ls & 0xFFFF);
}

std::string pci_vendor_name(std::uint32_t vendor_id) {
  // The one table of PCI vendor ids (vendor_name, pci.cpp), narrowed to the
  // vendors of DXGI adapters.
  static const std::set<std::string> kAdapterVendors = {"amd", "nvidia", "intel", "microsoft", "qualcomm"};
  std::string name = vendor_id > 0xffff ? std::string() : vendor_name(static_cast<unsigned>(vendor_id));
  return kAdapterVendors.count(name) ? name : std::string();
}

AdapterIntegration adapter_integration(std::optional<bool> dxcore_integrated, std::optional<bool> d3d12_uma,
                                       bool software, std::uint32_t vendor_id,
                                       std::uint64_t dedicated_video_memory_bytes) {
  if (software) return {std::nullopt, "software adapter (DXGI_ADAPTER_FLAG_SOFTWARE): no GPU"};
  if (dxcore_integrated) {
    return {*dxcore_integrated,
            *dxcore_integrated ? "DXCore IsIntegrated: integrated" : "DXCore IsIntegrated: not integrated"};
  }
  if (d3d12_uma) {
    return {*d3d12_uma, *d3d12_uma ? "D3D12 architecture: UMA (shares system memory)"
                                   : "D3D12 architecture: not UMA (own memory)"};
  }
  constexpr std::uint64_t MiB = 1024ull * 1024;
  const std::string mem = fmt::format("{} MiB", dedicated_video_memory_bytes / MiB);
  if (dedicated_video_memory_bytes < 512 * MiB)
    return {true, "heuristic: DXGI dedicated video memory " + mem + " < 512 MiB (no D3D12 answer)"};
  if (vendor_id == 0x8086 && dedicated_video_memory_bytes < 2048 * MiB)
    return {true, "heuristic: Intel with DXGI dedicated video memory " + mem + " < 2 GiB (no D3D12 answer)"};
  return {false, "heuristic: DXGI dedicated video memory " + mem + " (no D3D12 answer)"};
}

std::string power_scheme_name(const std::string& guid) {
  const std::string g = lower(guid);
  // powercfg /list on a clean install; GUID_MAX_POWER_SAVINGS, GUID_MIN_POWER_SAVINGS,
  // GUID_TYPICAL_POWER_SAVINGS in winnt.h; Ultimate Performance from powercfg -duplicatescheme.
  if (g == "381b4222-f694-41f0-9685-ff5bb260df2e") return "Balanced";
  if (g == "8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c") return "High performance";
  if (g == "a1841308-3541-4fab-bc81-f71556f20b4a") return "Power saver";
  if (g == "e9a42b02-d5df-448d-aa00-03f14749eb61") return "Ultimate Performance";
  return "";
}

bool is_power_saver_scheme(const std::string& guid) {
  return lower(guid) == "a1841308-3541-4fab-bc81-f71556f20b4a";
}

std::string power_mode_name(const std::string& overlay_guid) {
  const std::string g = lower(overlay_guid);
  // The overlay schemes of the Windows 10/11 power slider (Power mode).
  if (g == "961cc777-2547-4f9d-8174-7d86181b8a7a") return "best power efficiency";
  if (g == "00000000-0000-0000-0000-000000000000") return "balanced";
  if (g == "3af9b8d9-7c97-431d-ad78-34a8bfea439f") return "better performance";
  if (g == "ded574b5-45a0-4f42-8737-46345c09c238") return "best performance";
  return "";
}

std::string power_source_name(std::uint8_t ac_line_status) {
  if (ac_line_status == 0) return "battery";
  if (ac_line_status == 1) return "ac";
  return "unknown";
}

std::optional<int> battery_percent(std::uint8_t battery_life_percent) {
  if (battery_life_percent > 100) return std::nullopt;
  return battery_life_percent;
}

std::optional<bool> battery_saver_on(std::uint8_t system_status_flag) {
  if (system_status_flag > 1) return std::nullopt;
  return system_status_flag == 1;
}

std::string smart_app_control_state(std::uint32_t value) {
  switch (value) {
    case 0:
      return "off";
    case 1:
      return "on";
    case 2:
      return "evaluation";
    default:
      return fmt::format("unknown value {}", value);
  }
}

std::optional<bool> hardware_gpu_scheduling(std::uint32_t hw_sch_mode) {
  if (hw_sch_mode == 2) return true;
  if (hw_sch_mode == 1) return false;
  return std::nullopt;
}

std::string gpu_preference_name(const std::string& registry_value) {
  const std::string v = lower(registry_value);
  const std::string key = "gpupreference=";
  const auto at = v.find(key);
  if (at == std::string::npos || at + key.size() >= v.size()) return "";
  switch (v[at + key.size()]) {
    case '0':
      return "let Windows decide";
    case '1':
      return "power saving";
    case '2':
      return "high performance";
    default:
      return "";
  }
}

bool is_python_executable(const std::string& path) {
  const auto slash = path.find_last_of("\\/");
  const std::string file = lower(slash == std::string::npos ? path : path.substr(slash + 1));
  if (file == "pythonw.exe") return true;
  if (file.rfind("python", 0) != 0 || file.size() < 10 || file.compare(file.size() - 4, 4, ".exe") != 0)
    return false;
  const std::string middle = file.substr(6, file.size() - 10);  // "", "3", "3.12"
  return std::all_of(middle.begin(), middle.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
}

std::vector<std::string> split_windows_path_list(const std::string& value) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::size_t start = 0;
  while (start <= value.size()) {
    const auto end = std::min(value.find(';', start), value.size());
    std::string e = value.substr(start, end - start);
    while (!e.empty() && (e.front() == ' ' || e.front() == '"')) e.erase(e.begin());
    while (!e.empty() && (e.back() == ' ' || e.back() == '"')) e.pop_back();
    while (e.size() > 3 && (e.back() == '\\' || e.back() == '/')) e.pop_back();
    if (!e.empty() && seen.insert(lower(e)).second) out.push_back(e);
    start = end + 1;
  }
  return out;
}

std::string wddm_version_name(std::uint32_t kmd_model_version) {
  if (kmd_model_version < 1000) return "";
  return fmt::format("WDDM {}.{}", kmd_model_version / 1000, (kmd_model_version % 1000) / 100);
}

std::string python_version_tag(const std::vector<std::string>& file_names) {
  for (const auto& n : file_names) {
    const std::string f = lower(n);
    // python3XY.dll (python312.dll); python3.dll is the stable-ABI forwarder.
    if (f.size() < 13 || f.rfind("python3", 0) != 0 || f.compare(f.size() - 4, 4, ".dll") != 0) continue;
    const std::string digits = f.substr(6, f.size() - 10);
    if (digits.size() >= 3 && std::all_of(digits.begin(), digits.end(),
                                          [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return digits;
  }
  return "";
}

std::vector<std::string> site_packages_candidates(const std::string& python_exe, const std::string& appdata,
                                                  const std::string& version_tag) {
  std::vector<std::string> out;
  const auto slash = python_exe.find_last_of("\\/");
  const std::string dir = slash == std::string::npos ? std::string(".") : python_exe.substr(0, slash);
  const auto parent_slash = dir.find_last_of("\\/");
  const std::string last = lower(parent_slash == std::string::npos ? dir : dir.substr(parent_slash + 1));
  if (last == "scripts" && parent_slash != std::string::npos) {
    out.push_back(dir.substr(0, parent_slash) + "\\Lib\\site-packages");  // a venv
  }
  out.push_back(dir + "\\Lib\\site-packages");
  if (!appdata.empty() && !version_tag.empty()) {
    out.push_back(appdata + "\\Python\\Python" + version_tag + "\\site-packages");
  }
  return out;
}

namespace {

/// The quoted value of `name = '...'` / `name: Optional[str] = '...'` on one line; "" for None.
std::optional<std::string> py_assignment(std::string_view line, std::string_view name) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (line.compare(i, name.size(), name) != 0) return std::nullopt;
  i += name.size();
  if (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'))
    return std::nullopt;
  const auto eq = line.find('=', i);
  if (eq == std::string_view::npos) return std::nullopt;
  const std::string_view between = line.substr(i, eq - i);
  for (const char c : between) {
    if (c != ' ' && c != ':' && !std::isalnum(static_cast<unsigned char>(c)) && c != '[' && c != ']' &&
        c != '_' && c != '.')
      return std::nullopt;  // not a plain (annotated) assignment
  }
  std::string_view rest = line.substr(eq + 1);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty()) return std::nullopt;
  const char q = rest.front();
  if (q != '\'' && q != '"') return std::string();  // None or an expression
  const auto end = rest.find(q, 1);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(rest.substr(1, end - 1));
}

}  // namespace

TorchVersionPy parse_torch_version_py(std::string_view text) {
  TorchVersionPy v;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    if (auto x = py_assignment(line, "__version__")) v.version = *x;
    if (auto x = py_assignment(line, "cuda")) v.cuda = *x;
    if (auto x = py_assignment(line, "hip")) v.hip = *x;
    start = end + 1;
  }
  return v;
}

bool bytes_mention_ascii_ci(std::string_view bytes, std::string_view needle) {
  return !needle.empty() && contains_ci(bytes, needle);
}

}  // namespace accel::platform::detail
