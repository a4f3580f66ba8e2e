// Pure functions over values the Windows probes read (registry DWORDs, DXGI
// descriptors, SYSTEM_POWER_STATUS fields, power GUIDs, file version words).
// Portable: the unit tests check them on Linux and under Wine on recorded
// values, never on what the live system (or Wine) answers. The Win32 calls
// that feed them are in windows/windows_info_windows.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel::platform::detail {

/// An adapter LUID as "0xHHHHHHHH:0xLLLLLLLL" (HighPart:LowPart, lower-case
/// hex), the form Vulkan's deviceLUID and DXCore's LUIDs are compared in.
std::string format_luid(std::int32_t high_part, std::uint32_t low_part);

/// The user-mode driver version CheckInterfaceSupport(IDXGIDevice) returns in
/// a LARGE_INTEGER: four 16-bit fields, most significant first
/// (0x001F00005DDB03F4 -> "31.0.24027.1012").
std::string umd_version_string(std::uint64_t packed);

/// VS_FIXEDFILEINFO's dwFileVersionMS/LS as "a.b.c.d".
std::string file_version_string(std::uint32_t version_ms, std::uint32_t version_ls);

/// "amd" (0x1002, 0x1022), "nvidia" (0x10de), "intel" (0x8086),
/// "microsoft" (0x1414: Basic Render Driver, WARP), "qualcomm" (0x5143), else "".
std::string pci_vendor_name(std::uint32_t vendor_id);

struct AdapterIntegration {
  std::optional<bool> integrated;
  std::string basis;  ///< how it was decided; a heuristic says it is one
};
/// Integrated or discrete, in this order: DXCore's IsIntegrated property when
/// known (dxcore.dll, Windows 10 2004 and later); D3D12's
/// D3D12_FEATURE_DATA_ARCHITECTURE::UMA (a UMA adapter shares system memory:
/// integrated); a software adapter is neither; otherwise a heuristic on
/// DXGI's dedicated video memory (under 512 MiB: integrated; an Intel adapter
/// under 2 GiB: integrated; else discrete), named as a heuristic in `basis`.
AdapterIntegration adapter_integration(std::optional<bool> dxcore_integrated, std::optional<bool> d3d12_uma,
                                       bool software, std::uint32_t vendor_id,
                                       std::uint64_t dedicated_video_memory_bytes);

/// DXCore's KmdModelVersion (a D3DKMT_DRIVERVERSION: 2700 = KMT_DRIVERVERSION_WDDM_2_7,
/// 3100 = WDDM 3.1, 1105 = WDDM 1.1) as "WDDM 2.7"; "" below 1000 (not a WDDM value).
std::string wddm_version_name(std::uint32_t kmd_model_version);

/// "312" from the python3XY.dll among `file_names` (a Python install's
/// folder, any case; python3.dll, the stable ABI, is not it); "" when none.
std::string python_version_tag(const std::vector<std::string>& file_names);

/// Where a python.exe keeps its packages, most specific first: <dir>\Lib\site-packages
/// for an install or conda env, <venv>\Lib\site-packages for a venv's
/// Scripts\python.exe, and the user site %APPDATA%\Python\Python<tag>\site-packages
/// when `appdata` and `version_tag` ("312") are known. Paths, not checked.
std::vector<std::string> site_packages_candidates(const std::string& python_exe, const std::string& appdata,
                                                  const std::string& version_tag);

/// The assignments of torch/version.py: `__version__ = '2.6.0+rocm6.2.4'`,
/// `hip: Optional[str] = '6.2.41134-65d174c3e'`, `cuda = None` (None is "").
/// Any package's __init__.py gives its `__version__` the same way.
struct TorchVersionPy {
  std::string version, cuda, hip;
};
TorchVersionPy parse_torch_version_py(std::string_view text);

/// Whether `bytes` (a DLL's contents) name `needle` as ASCII, any case:
/// an onnxruntime.dll built with the DirectML provider names "DirectML.dll"
/// (its delay-loaded import), a CPU-only one does not.
bool bytes_mention_ascii_ci(std::string_view bytes, std::string_view needle);

/// Names of the built-in power schemes (powercfg /list) by GUID (lower-case,
/// no braces): "Balanced", "High performance", "Power saver", "Ultimate
/// Performance"; "" for a scheme of the user's or a vendor's.
std::string power_scheme_name(const std::string& guid);
/// True for the Power saver scheme's GUID.
bool is_power_saver_scheme(const std::string& guid);

/// The Windows 10/11 power mode (PowerGetEffectiveOverlayScheme's GUID):
/// "best power efficiency", "balanced" (the null GUID), "better performance",
/// "best performance"; "" when unknown.
std::string power_mode_name(const std::string& overlay_guid);

/// SYSTEM_POWER_STATUS::ACLineStatus: 0 "battery", 1 "ac", else "unknown".
std::string power_source_name(std::uint8_t ac_line_status);
/// SYSTEM_POWER_STATUS::BatteryLifePercent: 0-100, nullopt for 255 (unknown).
std::optional<int> battery_percent(std::uint8_t battery_life_percent);
/// SYSTEM_POWER_STATUS::SystemStatusFlag: 1 battery saver on, 0 off.
std::optional<bool> battery_saver_on(std::uint8_t system_status_flag);

/// Smart App Control from VerifiedAndReputablePolicyState: 0 "off", 1 "on"
/// (enforcement), 2 "evaluation"; else "unknown value N".
std::string smart_app_control_state(std::uint32_t value);

/// GraphicsDrivers\HwSchMode: 2 on, 1 off; nullopt for any other value.
std::optional<bool> hardware_gpu_scheduling(std::uint32_t hw_sch_mode);

/// A UserGpuPreferences value ("GpuPreference=2;"): 0 "let Windows decide",
/// 1 "power saving", 2 "high performance"; "" when it names none.
std::string gpu_preference_name(const std::string& registry_value);

/// True for python.exe, pythonw.exe, python3.exe, python3.12.exe (any folder,
/// any case).
bool is_python_executable(const std::string& path);

/// A PATH-like list split on ';' with empty entries, surrounding quotes and
/// trailing backslashes removed; duplicates (case-insensitive) kept once.
std::vector<std::string> split_windows_path_list(const std::string& value);

}  // namespace accel::platform::detail
