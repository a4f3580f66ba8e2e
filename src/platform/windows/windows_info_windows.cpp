// probe_windows on Windows: thin Win32 reads feeding the pure functions of
// platform/windows_facts.hpp. DXGI (dxgi.dll), D3D12 (d3d12.dll), powrprof.dll
// and version.dll are loaded at run time, so a missing DLL or export is a
// "not collected: why", never a load failure. Nothing throws.
#include "platform/windows/win_probe_util.hpp"  // windows.h first

#include "platform/windows/dxcore_windows.hpp"

#include <d3d12.h>
#include <dxgi1_6.h>

#include <cstring>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "platform/detail.hpp"
#include "platform/probes.hpp"
#include "platform/windows_facts.hpp"

namespace accel::platform {

using namespace detail;
using namespace win;

namespace {

// ---------------------------------------------------------------- adapters

std::optional<bool> d3d12_uma(HMODULE d3d12, IDXGIAdapter1* adapter, std::string& why) {
  using CreateDevice = HRESULT(WINAPI*)(IUnknown*, D3D_FEATURE_LEVEL, REFIID, void**);
  const auto create = proc<CreateDevice>(d3d12, "D3D12CreateDevice");
  if (!create) {
    why = "d3d12.dll or D3D12CreateDevice not available";
    return std::nullopt;
  }
  ComPtr<ID3D12Device> device;
  const HRESULT hr =
      create(adapter, D3D_FEATURE_LEVEL_11_0, __uuidof(ID3D12Device), reinterpret_cast<void**>(device.put()));
  if (FAILED(hr) || !device.p) {
    why = "D3D12CreateDevice failed: " + hresult_text(hr);
    return std::nullopt;
  }
  D3D12_FEATURE_DATA_ARCHITECTURE arch{};
  arch.NodeIndex = 0;
  const HRESULT fr = device->CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE, &arch, sizeof arch);
  if (FAILED(fr)) {
    why = "CheckFeatureSupport(D3D12_FEATURE_ARCHITECTURE) failed: " + hresult_text(fr);
    return std::nullopt;
  }
  return arch.UMA != FALSE;
}

void probe_adapters(WindowsInfo& w) {
  Library dxgi(L"dxgi.dll");
  if (!dxgi.h) {
    w.not_collected["adapters"] = "dxgi.dll could not be loaded: " + dxgi.error;
    return;
  }
  using CreateFactory1 = HRESULT(WINAPI*)(REFIID, void**);
  const auto create = proc<CreateFactory1>(dxgi.h, "CreateDXGIFactory1");
  if (!create) {
    w.not_collected["adapters"] = "dxgi.dll has no CreateDXGIFactory1";
    return;
  }
  ComPtr<IDXGIFactory1> factory;
  HRESULT hr = create(__uuidof(IDXGIFactory1), reinterpret_cast<void**>(factory.put()));
  if (FAILED(hr) || !factory.p) {
    w.not_collected["adapters"] = "CreateDXGIFactory1 failed: " + hresult_text(hr);
    return;
  }
  Library d3d12(L"d3d12.dll");
  const DxCore dxcore;
  if (!dxcore.ok()) w.not_collected["dxcore"] = dxcore.error();
  for (UINT i = 0; i < 64; ++i) {
    ComPtr<IDXGIAdapter1> adapter;
    hr = factory->EnumAdapters1(i, adapter.put());
    if (hr == DXGI_ERROR_NOT_FOUND) break;
    if (FAILED(hr) || !adapter.p) {
      w.not_collected["adapters"] = fmt::format("EnumAdapters1({}) failed: {}", i, hresult_text(hr));
      break;
    }
    WindowsAdapter a;
    a.dxgi_index = static_cast<int>(i);
    DXGI_ADAPTER_DESC1 d{};
    hr = adapter->GetDesc1(&d);
    if (FAILED(hr)) {
      a.not_collected["desc"] = "GetDesc1 failed: " + hresult_text(hr);
      w.adapters.push_back(std::move(a));
      continue;
    }
    a.name = win::narrow(d.Description, wcsnlen(d.Description, 128));
    a.vendor_id = fmt::format("0x{:04x}", d.VendorId);
    a.device_id = fmt::format("0x{:04x}", d.DeviceId);
    a.vendor = pci_vendor_name(d.VendorId);
    a.luid = format_luid(d.AdapterLuid.HighPart, d.AdapterLuid.LowPart);
    a.dedicated_video_memory_bytes = d.DedicatedVideoMemory;
    a.dedicated_system_memory_bytes = d.DedicatedSystemMemory;
    a.shared_system_memory_bytes = d.SharedSystemMemory;
    a.software = (d.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) != 0;
    LARGE_INTEGER umd{};
    hr = adapter->CheckInterfaceSupport(__uuidof(IDXGIDevice), &umd);
    if (SUCCEEDED(hr)) {
      a.driver_version = umd_version_string(static_cast<std::uint64_t>(umd.QuadPart));
    } else {
      a.not_collected["driver_version"] = "CheckInterfaceSupport(IDXGIDevice) failed: " + hresult_text(hr);
    }
    const DxCoreAdapterFacts dx = dxcore.ok() ? dxcore.adapter(d.AdapterLuid) : DxCoreAdapterFacts{};
    a.hardware = dx.hardware;
    a.wddm_version = dx.wddm_version;
    if (dxcore.ok() && !dx.why.empty()) a.not_collected["dxcore"] = dx.why;
    // D3D12's UMA only when DXCore cannot say (creating a device costs ~100 ms per adapter).
    std::string uma_why;
    const auto uma = a.software || dx.integrated ? std::nullopt : d3d12_uma(d3d12.h, adapter.p, uma_why);
    const auto integ =
        adapter_integration(dx.integrated, uma, a.software, d.VendorId, d.DedicatedVideoMemory);
    a.integrated = integ.integrated;
    a.integrated_basis = integ.basis;
    if (!dx.integrated && !uma && !a.software) a.not_collected["d3d12_uma"] = uma_why;
    if (a.wddm_version.empty() && !a.not_collected.count("dxcore"))
      a.not_collected["wddm_version"] = dxcore.ok() ? "DXCore did not say" : dxcore.error();
    w.adapters.push_back(std::move(a));
  }
  // The high-performance order (IDXGIFactory6, Windows 10 1803 and later).
  ComPtr<IDXGIFactory6> f6;
  hr = factory->QueryInterface(__uuidof(IDXGIFactory6), reinterpret_cast<void**>(f6.put()));
  if (FAILED(hr) || !f6.p) {
    w.not_collected["high_performance_order"] =
        "no IDXGIFactory6 (before Windows 10 1803?): " + hresult_text(hr);
    return;
  }
  for (UINT i = 0; i < 64; ++i) {
    ComPtr<IDXGIAdapter1> adapter;
    hr = f6->EnumAdapterByGpuPreference(i, DXGI_GPU_PREFERENCE_HIGH_PERFORMANCE, __uuidof(IDXGIAdapter1),
                                        reinterpret_cast<void**>(adapter.put()));
    if (hr == DXGI_ERROR_NOT_FOUND) break;
    if (FAILED(hr) || !adapter.p) {
      w.not_collected["high_performance_order"] =
          fmt::format("EnumAdapterByGpuPreference({}) failed: {}", i, hresult_text(hr));
      break;
    }
    DXGI_ADAPTER_DESC1 d{};
    if (FAILED(adapter->GetDesc1(&d))) continue;
    const std::string luid = format_luid(d.AdapterLuid.HighPart, d.AdapterLuid.LowPart);
    for (auto& a : w.adapters) {
      if (a.luid == luid && !a.high_performance_index) a.high_performance_index = static_cast<int>(i);
    }
  }
}

// ---------------------------------------------------------------- registry facts

const wchar_t* const k_graphics_drivers = L"SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers";

void probe_graphics_registry(WindowsInfo& w) {
  std::string why;
  if (const auto v = reg_dword(HKEY_LOCAL_MACHINE, k_graphics_drivers, L"HwSchMode", &why)) {
    w.hardware_gpu_scheduling = hardware_gpu_scheduling(*v);
    if (!w.hardware_gpu_scheduling)
      w.not_collected["hardware_gpu_scheduling"] = fmt::format("HwSchMode has the unknown value {}", *v);
  } else {
    w.not_collected["hardware_gpu_scheduling"] = "HKLM\\...\\GraphicsDrivers\\HwSchMode not readable: " + why;
  }
  if (const auto v = reg_dword(HKEY_LOCAL_MACHINE, k_graphics_drivers, L"TdrDelay", &why)) {
    w.tdr_delay_s = static_cast<int>(*v);
    w.tdr_delay_source = "registry TdrDelay";
  } else if (why.rfind("error 2:", 0) == 0 || why == "error 2") {
    w.tdr_delay_s = 2;
    w.tdr_delay_source = "Windows default (no TdrDelay value)";
  } else {
    w.not_collected["tdr_delay_s"] = "HKLM\\...\\GraphicsDrivers\\TdrDelay not readable: " + why;
  }
  if (const auto v = reg_dword(HKEY_LOCAL_MACHINE, L"SYSTEM\\CurrentControlSet\\Control\\CI\\Policy",
                               L"VerifiedAndReputablePolicyState", &why)) {
    w.smart_app_control = smart_app_control_state(*v);
  } else {
    w.not_collected["smart_app_control"] =
        "VerifiedAndReputablePolicyState not readable (Windows 10 and older Windows 11 have no Smart App "
        "Control): " +
        why;
  }
  // Per-app GPU preferences: value name = executable path, data = "GpuPreference=N;".
  HKEY key = nullptr;
  const LONG rc = RegOpenKeyExW(HKEY_CURRENT_USER, L"Software\\Microsoft\\DirectX\\UserGpuPreferences", 0,
                                KEY_READ, &key);
  if (rc != ERROR_SUCCESS) {
    w.not_collected["python_gpu_preference"] =
        "HKCU\\Software\\Microsoft\\DirectX\\UserGpuPreferences not readable (no preference set?): " +
        win::error_text(static_cast<DWORD>(rc));
    return;
  }
  for (DWORD i = 0; i < 4096; ++i) {
    wchar_t name[1024];
    DWORD name_len = 1024, type = 0;
    BYTE data[512];
    DWORD data_len = sizeof data - sizeof(wchar_t);
    const LONG e = RegEnumValueW(key, i, name, &name_len, nullptr, &type, data, &data_len);
    if (e == ERROR_NO_MORE_ITEMS) break;
    if (e != ERROR_SUCCESS || type != REG_SZ) continue;
    const std::string path = win::narrow(name, name_len);
    if (!is_python_executable(path)) continue;
    const auto* text = reinterpret_cast<const wchar_t*>(data);
    const std::string value = win::narrow(text, wcsnlen(text, data_len / sizeof(wchar_t)));
    const std::string pref = gpu_preference_name(value);
    w.python_gpu_preference[path] = pref.empty() ? value : pref;
  }
  RegCloseKey(key);
}

// ---------------------------------------------------------------- power

void probe_power(WindowsInfo& w) {
  Library powrprof(L"powrprof.dll");
  using GetActive = DWORD(WINAPI*)(HKEY, GUID**);
  using ReadName = DWORD(WINAPI*)(HKEY, const GUID*, const GUID*, const GUID*, UCHAR*, DWORD*);
  using GetOverlay = DWORD(WINAPI*)(GUID*);
  const auto get_active = proc<GetActive>(powrprof.h, "PowerGetActiveScheme");
  if (!get_active) {
    w.not_collected["power_scheme"] = powrprof.h ? "powrprof.dll has no PowerGetActiveScheme"
                                                 : "powrprof.dll could not be loaded: " + powrprof.error;
  } else {
    GUID* scheme = nullptr;
    const DWORD rc = get_active(nullptr, &scheme);
    if (rc != ERROR_SUCCESS || !scheme) {
      w.not_collected["power_scheme"] = "PowerGetActiveScheme failed: " + win::error_text(rc);
    } else {
      w.power_scheme_guid = guid_text(*scheme);
      w.power_scheme = power_scheme_name(w.power_scheme_guid);
      if (w.power_scheme.empty()) {
        if (const auto read = proc<ReadName>(powrprof.h, "PowerReadFriendlyName")) {
          wchar_t buf[256] = {};
          DWORD size = sizeof buf - sizeof(wchar_t);
          if (read(nullptr, scheme, nullptr, nullptr, reinterpret_cast<UCHAR*>(buf), &size) == ERROR_SUCCESS)
            w.power_scheme = win::narrow(buf, wcsnlen(buf, 255));
        }
      }
      if (w.power_scheme.empty()) w.power_scheme = "custom scheme";
      LocalFree(scheme);
    }
    if (const auto overlay = proc<GetOverlay>(powrprof.h, "PowerGetEffectiveOverlayScheme")) {
      GUID g{};
      const DWORD orc = overlay(&g);
      if (orc == ERROR_SUCCESS) {
        w.power_mode = power_mode_name(guid_text(g));
        if (w.power_mode.empty()) w.power_mode = "overlay " + guid_text(g);
      } else {
        w.not_collected["power_mode"] = "PowerGetEffectiveOverlayScheme failed: " + win::error_text(orc);
      }
    } else {
      w.not_collected["power_mode"] =
          "powrprof.dll has no PowerGetEffectiveOverlayScheme (Windows before 10 1709, or Wine)";
    }
  }
  SYSTEM_POWER_STATUS s{};
  if (GetSystemPowerStatus(&s)) {
    w.power_source = power_source_name(s.ACLineStatus);
    w.battery_percent = battery_percent(s.BatteryLifePercent);
    // The fourth byte: SystemStatusFlag in the Windows SDK, Reserved1 in mingw-w64's winbase.h.
    w.battery_saver = battery_saver_on(reinterpret_cast<const BYTE*>(&s)[3]);
  } else {
    w.not_collected["power_source"] = "GetSystemPowerStatus failed: " + win::last_error();
  }
  // EcoQoS of this process (Windows 11; Windows 10 answers ERROR_INVALID_PARAMETER).
  using GetInfo = BOOL(WINAPI*)(HANDLE, PROCESS_INFORMATION_CLASS, LPVOID, DWORD);
  const auto get_info = proc<GetInfo>(GetModuleHandleW(L"kernel32.dll"), "GetProcessInformation");
  PROCESS_POWER_THROTTLING_STATE t{};
  t.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION;
  if (!get_info) {
    w.not_collected["process_ecoqos"] = "kernel32.dll has no GetProcessInformation (before Windows 8)";
  } else if (get_info(GetCurrentProcess(), ProcessPowerThrottling, &t, sizeof t)) {
    w.process_ecoqos = (t.ControlMask & PROCESS_POWER_THROTTLING_EXECUTION_SPEED) &&
                       (t.StateMask & PROCESS_POWER_THROTTLING_EXECUTION_SPEED);
  } else {
    w.not_collected["process_ecoqos"] =
        "GetProcessInformation(ProcessPowerThrottling) failed (Windows 11 answers it): " + win::last_error();
  }
  w.remote_session = GetSystemMetrics(SM_REMOTESESSION) != 0;
}

void probe_files(WindowsInfo& w, const WindowsProbeOptions& options) {
  Library version(L"version.dll");
  if (!version.h) w.not_collected["file_versions"] = "version.dll could not be loaded: " + version.error;
  std::vector<Folder> folders;
  wchar_t sys[MAX_PATH] = {};
  const UINT n = GetSystemDirectoryW(sys, MAX_PATH);
  if (n > 0 && n < MAX_PATH) folders.push_back({win::narrow(sys, n), "System32"});
  for (const auto& p : split_windows_path_list(env_value(L"PATH"))) folders.push_back({p, "PATH"});

  w.hip_path = env_value(L"HIP_PATH");
  w.hsa_override_gfx_version = env_value(L"HSA_OVERRIDE_GFX_VERSION");
  std::vector<Folder> hip_folders;
  if (!w.hip_path.empty()) {
    std::string hp = w.hip_path;
    while (!hp.empty() && (hp.back() == '\\' || hp.back() == '/')) hp.pop_back();
    hip_folders.push_back({hp + "\\bin", "HIP_PATH\\bin"});
  }
  hip_folders.insert(hip_folders.end(), folders.begin(), folders.end());
  for (const char* dll : {"amdhip64_6.dll", "amdhip64_7.dll", "amdhip64.dll"}) {
    for (auto& f : find_copies(version.h, dll, hip_folders)) w.hip_runtime.push_back(std::move(f));
  }
  for (const char* dll : {"msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll", "libomp140.x86_64.dll"}) {
    auto copies = find_copies(version.h, dll, folders);
    if (copies.empty()) w.runtimes_missing.emplace_back(dll);
    for (auto& f : copies) w.vc_runtime.push_back(std::move(f));
  }
  w.directml = find_copies(version.h, "DirectML.dll", folders);
  w.onnxruntime = find_copies(version.h, "onnxruntime.dll", folders);
  probe_pythons(w, options.pythons, version.h);  // adds their site-packages' copies
  probe_onnxruntime_providers(w);
}

int os_build_number(std::string& why) {
  using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
  const auto get = proc<RtlGetVersionFn>(GetModuleHandleW(L"ntdll.dll"), "RtlGetVersion");
  OSVERSIONINFOW v{};
  v.dwOSVersionInfoSize = sizeof v;
  if (!get || get(&v) != 0) {
    why = "RtlGetVersion is not available in ntdll.dll";
    return -1;
  }
  return static_cast<int>(v.dwBuildNumber);
}

}  // namespace

std::optional<WindowsInfo> probe_windows(const WindowsProbeOptions& options) {
  WindowsInfo w;
  std::string why;
  const int build = os_build_number(why);
  if (build >= 0) {
    w.os_build = build;
  } else {
    w.not_collected["os_build"] = why;
  }
  // Each part fenced: a probe never ends the others (nothing here should throw; std::bad_alloc might).
  const auto fenced = [&w](const char* part, const std::function<void(WindowsInfo&)>& fn) {
    try {
      fn(w);
    } catch (const std::exception& e) {
      w.not_collected[part] = std::string("probe failed: ") + e.what();
    }
  };
  fenced("adapters", probe_adapters);
  fenced("registry", probe_graphics_registry);
  fenced("power", probe_power);
  fenced("files", [&options](WindowsInfo& x) { probe_files(x, options); });
  fenced("python_processes", probe_python_processes);
  fenced("adrenalin_version", probe_adrenalin);
  return w;
}

}  // namespace accel::platform
