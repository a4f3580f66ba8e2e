// Windows-only facts of the evidence model's Environment (environment.windows,
// core/evidence.hpp): DXGI adapters, DLLs found on disk, Python
// interpreters, power and scheduling settings.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence_machine.hpp"
#include "core/json.hpp"

namespace accel {

/// A DLL (or other file) found on disk, with the version from its version
/// resource (GetFileVersionInfoW, VS_FIXEDFILEINFO's file version).
struct WindowsFile {
  std::string name;     ///< "DirectML.dll"
  std::string path;     ///< full path where it was found
  std::string where;    ///< "System32", "PATH", "HIP_PATH\bin", "site-packages"
  std::string version;  ///< "1.15.2.0"; empty when the file has no version resource
};

/// One adapter as DXGI enumerates it (IDXGIFactory1::EnumAdapters1,
/// IDXGIAdapter1::GetDesc1, IDXGIAdapter::CheckInterfaceSupport).
struct WindowsAdapter {
  /// EnumAdapters1 order: what DirectML's and ONNX Runtime's `device_id`
  /// and torch-directml's device index mean. 0 drives the primary display.
  int dxgi_index = -1;
  /// IDXGIFactory6::EnumAdapterByGpuPreference(HIGH_PERFORMANCE) order;
  /// absent before Windows 10 1803 or when the call failed.
  std::optional<int> high_performance_index;
  std::string name;       ///< DXGI_ADAPTER_DESC1::Description
  std::string vendor_id;  ///< "0x1002"
  std::string device_id;  ///< "0x73ef"
  std::string vendor;     ///< "amd", "nvidia", "intel", "microsoft", other
  /// "0x00000000:0x0000d1a3" (HighPart:LowPart): the key that joins this
  /// adapter to the lists of torch, ONNX Runtime, Vulkan (deviceLUID) and HIP.
  std::string luid;
  std::optional<std::uint64_t> dedicated_video_memory_bytes;
  std::optional<std::uint64_t> dedicated_system_memory_bytes;
  std::optional<std::uint64_t> shared_system_memory_bytes;
  bool software = false;       ///< DXGI_ADAPTER_FLAG_SOFTWARE (Microsoft Basic Render Driver, WARP)
  std::string driver_version;  ///< user-mode driver version, "31.0.24027.1012"
  std::optional<bool> integrated;
  /// How `integrated` was decided: DXCore IsIntegrated, else D3D12's UMA, else a heuristic named as such.
  std::string integrated_basis;
  std::optional<bool> hardware;  ///< DXCore IsHardware (false: a software or remote adapter)
  /// The kernel-mode driver model, DXCore KmdModelVersion as "WDDM 3.1" ("" when DXCore did not answer).
  std::string wddm_version;
  NotCollected not_collected;
};

/// A Python interpreter found on the machine and what its site-packages hold.
struct WindowsPython {
  std::string path;                        ///< "C:\Users\me\venv\Scripts\python.exe"
  std::string found_by;                    ///< "--python", "engine", "PATH", "registry (PEP 514)"
  std::vector<std::string> site_packages;  ///< the folders that exist
  std::string torch_version;               ///< torch/version.py __version__ ("2.6.0+rocm6.2.4")
  std::string torch_hip_version;   ///< torch/version.py hip ("6.2.41134-65d174c3e"), "" for other builds
  std::string torch_cuda_version;  ///< torch/version.py cuda
  NotCollected not_collected;
};

/// A running process of interest (python*.exe) and whether it runs in
/// efficiency mode (EcoQoS: ProcessPowerThrottling with EXECUTION_SPEED set).
struct WindowsProcessQos {
  std::uint32_t pid = 0;
  std::string path;
  std::optional<bool> ecoqos;
  std::string why;  ///< why ecoqos is unknown (access denied, ...)
};

/// Windows-only facts (environment.windows): what the seed guides have users
/// read by hand in dxdiag, Task Manager, the power dialogs, the registry and
/// the security settings. Absent from reports made on other systems.
struct WindowsInfo {
  std::optional<int> os_build;  ///< RtlGetVersion dwBuildNumber, 22631
  std::vector<WindowsAdapter> adapters;
  /// Hardware-accelerated GPU scheduling (HKLM\...\GraphicsDrivers HwSchMode: 2 on, 1 off).
  std::optional<bool> hardware_gpu_scheduling;
  /// TDR delay in seconds (GraphicsDrivers TdrDelay; Windows' default is 2 when the value is absent).
  std::optional<int> tdr_delay_s;
  std::string tdr_delay_source;  ///< "registry TdrDelay" or "Windows default (no TdrDelay value)"
  /// Per-app GPU preferences (HKCU\Software\Microsoft\DirectX\UserGpuPreferences)
  /// of python executables: path -> "high performance", "power saving", "let Windows decide".
  std::map<std::string, std::string> python_gpu_preference;
  std::string power_scheme;       ///< "Balanced" (PowerGetActiveScheme + name)
  std::string power_scheme_guid;  ///< "381b4222-f694-41f0-9685-ff5bb260df2e"
  std::string power_mode;         ///< Windows 10/11 power mode overlay: "best performance", ...
  std::string power_source;       ///< "ac", "battery", "unknown" (GetSystemPowerStatus)
  std::optional<int> battery_percent;
  std::optional<bool> battery_saver;  ///< SYSTEM_POWER_STATUS::SystemStatusFlag
  /// This process runs with EcoQoS (efficiency mode): ProcessPowerThrottling
  /// with EXECUTION_SPEED throttled.
  std::optional<bool> process_ecoqos;
  std::optional<bool> remote_session;  ///< GetSystemMetrics(SM_REMOTESESSION)
  /// Smart App Control: "off", "on", "evaluation" (HKLM\SYSTEM\CurrentControlSet\Control\CI\Policy
  /// VerifiedAndReputablePolicyState 0/1/2), or "unknown value N".
  std::string smart_app_control;
  std::string hip_path;                  ///< %HIP_PATH%
  std::vector<WindowsFile> hip_runtime;  ///< amdhip64_6.dll / amdhip64_7.dll found
  std::string hsa_override_gfx_version;  ///< %HSA_OVERRIDE_GFX_VERSION% (has no effect on Windows)
  std::vector<WindowsFile> vc_runtime;   ///< msvcp140.dll, vcruntime140.dll, vcruntime140_1.dll, libomp140
  std::vector<WindowsFile> directml;     ///< DirectML.dll copies: System32, PATH, site-packages
  std::vector<WindowsFile> onnxruntime;  ///< onnxruntime.dll copies on PATH and in site-packages
  /// The onnxruntime.dll copies (paths) built with the DirectML execution
  /// provider: the file names DirectML.dll (its delay-load import).
  std::vector<std::string> onnxruntime_directml_ep;
  std::vector<WindowsPython> pythons;  ///< interpreters looked at (--python, the engine's, PATH, PEP 514)
  std::vector<WindowsFile>
      torch_hip_runtime;  ///< torch\lib\amdhip64*.dll inside a site-packages (where: its folder)
  std::vector<WindowsProcessQos> python_processes;  ///< running python*.exe and their EcoQoS
  /// AMD Software: Adrenalin Edition version ("24.12.1"): HKLM\SOFTWARE\AMD\CN RadeonSoftwareVersion,
  /// else the display class key of an AMD adapter.
  std::string adrenalin_version;
  std::string adrenalin_version_source;
  /// Runtime DLLs searched for and not found in System32 or on PATH ("msvcp140.dll").
  std::vector<std::string> runtimes_missing;
  NotCollected not_collected;
};

/// An execution-provider device as ONNX Runtime lists it (OrtApi::GetEpDevices,
/// ONNX Runtime >= 1.22; on Windows the hardware metadata comes from DXGI and
/// DXCore: Description, LUID, Discrete, DxgiAdapterNumber,

ACCEL_JSON_DECLARE(WindowsFile)
ACCEL_JSON_DECLARE(WindowsAdapter)
ACCEL_JSON_DECLARE(WindowsPython)
ACCEL_JSON_DECLARE(WindowsProcessQos)
ACCEL_JSON_DECLARE(WindowsInfo)

}  // namespace accel
