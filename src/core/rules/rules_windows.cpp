// Windows rules: what the Windows section of the environment
// (environment.windows, platform/windows_facts.hpp) says about the machine
// the run was made on. Each rule reads recorded values only; a report without
// the section (any other OS, or an older report) leaves them all silent.
#include <fmt/format.h>

#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr const char* kRefDxgiEnum =
    "https://learn.microsoft.com/en-us/windows/win32/api/dxgi/nf-dxgi-idxgifactory1-enumadapters1";
constexpr const char* kRefEcoQos =
    "https://learn.microsoft.com/en-us/windows/win32/procthread/quality-of-service";
constexpr const char* kRefSmartAppControl =
    "https://learn.microsoft.com/en-us/windows/apps/develop/smart-app-control/overview";
constexpr const char* kRefTdr =
    "https://learn.microsoft.com/en-us/windows-hardware/drivers/display/tdr-registry-keys";
constexpr const char* kRefVcRedist =
    "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist";
constexpr const char* kRefDirectMlVersions =
    "https://learn.microsoft.com/en-us/windows/ai/directml/dml-version-history";
constexpr const char* kRefHsaWindows = "https://github.com/ROCm/TheRock/issues/1719";

/// DirectML is in Windows from 10 version 1903 (build 18362) on (kRefDirectMlVersions).
constexpr int kDirectMlMinBuild = 18362;

std::string adapter_label(const WindowsAdapter& a) {
  return fmt::format("{} (DXGI {}, LUID {})", a.name.empty() ? "(unnamed)" : a.name, a.dxgi_index, a.luid);
}

// DXGI adapter 0 is integrated while a discrete one exists: DirectML's and
// ONNX Runtime's device_id 0 and torch-directml's default device land on the iGPU.
void rule_adapter0_integrated(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  const WindowsAdapter* first = nullptr;
  const WindowsAdapter* discrete = nullptr;
  for (const auto& a : w.adapters) {
    if (a.dxgi_index == 0) first = &a;
    if (!a.software && a.integrated == false) {
      // The fastest discrete: the high-performance order's first, else the most dedicated memory.
      if (!discrete ||
          (a.high_performance_index && (!discrete->high_performance_index ||
                                        *a.high_performance_index < *discrete->high_performance_index)) ||
          (!a.high_performance_index && !discrete->high_performance_index &&
           a.dedicated_video_memory_bytes.value_or(0) > discrete->dedicated_video_memory_bytes.value_or(0)))
        discrete = &a;
    }
  }
  if (!first || first->integrated != true || !discrete) return;
  const int n = discrete->dxgi_index;
  out.push_back(make_finding(
      "windows.adapter0_integrated", "warning", 70,
      fmt::format("DXGI adapter 0 is the integrated {}; the discrete {} is adapter {}", first->name,
                  discrete->name, n),
      fmt::format("adapter 0: {}, integrated ({}); adapter {}: {}, discrete ({})", adapter_label(*first),
                  first->integrated_basis, n, adapter_label(*discrete), discrete->integrated_basis),
      "DirectML, ONNX Runtime's DirectML execution provider and torch-directml number adapters in DXGI's "
      "EnumAdapters1 order, where 0 is the adapter driving the main display: code that uses the default "
      "device 0 runs on the integrated GPU.",
      fmt::format("Select adapter {} explicitly: torch_directml.device({}); ONNX Runtime "
                  "providers=[('DmlExecutionProvider', {{'device_id': {}}})]; DirectML: create the D3D12 "
                  "device on the adapter with LUID {}. HIP (torch ROCm on Windows) lists AMD GPUs only and "
                  "does not follow this order: match by name or LUID. Or plug the display into the "
                  "discrete GPU.",
                  n, n, n, discrete->luid),
      kRefDxgiEnum));
}

void rule_power_saving(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  std::vector<std::string> causes;
  bool strong = false;
  if (w.battery_saver == true) causes.push_back("battery saver is on"), strong = true;
  if (w.process_ecoqos == true)
    causes.push_back("this process runs in efficiency mode (EcoQoS)"), strong = true;
  // cpu_power_saving already reports a power-saver plan named in host.cpu_governor.
  if (is_power_saver_plan(w.power_scheme_guid) && !contains_ci(c.env.host.cpu_governor, "saver"))
    causes.push_back("the Power saver plan is active"), strong = true;
  if (w.power_mode == "best power efficiency")
    causes.push_back("the power mode is 'best power efficiency'"), strong = true;
  if (w.power_source == "battery")
    causes.push_back(fmt::format("the machine runs on battery{}",
                                 w.battery_percent ? fmt::format(" ({}%)", *w.battery_percent) : ""));
  if (causes.empty()) return;
  out.push_back(make_finding(
      "windows.power_saving", strong ? "warning" : "info", strong ? 55 : 20,
      "Windows is saving power while measuring: " + list_some(causes),
      fmt::format("power scheme {} ({}), power mode {}, power source {}, battery saver {}, EcoQoS {}",
                  w.power_scheme.empty() ? "?" : w.power_scheme, w.power_scheme_guid,
                  w.power_mode.empty() ? "?" : w.power_mode, w.power_source.empty() ? "?" : w.power_source,
                  w.battery_saver ? (*w.battery_saver ? "on" : "off") : "?",
                  w.process_ecoqos ? (*w.process_ecoqos ? "on" : "off") : "?"),
      "Power saving lowers CPU and GPU clocks and, for an EcoQoS process, schedules it on efficiency cores: "
      "every figure of this run is lower than the machine can do, and runs on and off battery differ.",
      "Plug in the charger, turn battery saver off, set Settings > System > Power > Power mode to 'Best "
      "performance' (powercfg /setactive SCHEME_BALANCED or SCHEME_MIN for the plan), and take the python "
      "process out of efficiency mode (Task Manager > Details > right-click > Efficiency mode), then measure "
      "again.",
      kRefEcoQos));
}

void rule_remote_session(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  if (w.remote_session != true) return;
  bool hardware = false;
  for (const auto& a : w.adapters) hardware = hardware || !a.software;
  out.push_back(make_finding(
      "windows.remote_session", hardware || w.adapters.empty() ? "info" : "warning", hardware ? 15 : 65,
      hardware || w.adapters.empty() ? "The run was made in a remote desktop session"
                                     : "Remote desktop session: DXGI lists only software adapters",
      fmt::format("GetSystemMetrics(SM_REMOTESESSION) != 0; {} adapter(s), {}", w.adapters.size(),
                  hardware ? "a hardware GPU among them" : "none of them a hardware GPU"),
      "In a Remote Desktop session Windows may give DirectX applications only the Microsoft Basic Render "
      "Driver unless the 'Use hardware graphics adapters for all Remote Desktop Services sessions' policy is "
      "enabled; DirectML and torch-directml then run on the CPU-backed WARP adapter or fail.",
      "Run on the machine's own console, or enable the group policy Computer Configuration > Administrative "
      "Templates > Windows Components > Remote Desktop Services > Remote Desktop Session Host > Remote "
      "Session Environment > 'Use hardware graphics adapters for all Remote Desktop Services sessions'.",
      "https://learn.microsoft.com/en-us/windows/client-management/mdm/policy-csp-admx-terminalserver"));
}

void rule_smart_app_control(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  if (w.smart_app_control != "on" && w.smart_app_control != "evaluation") return;
  const bool on = w.smart_app_control == "on";
  out.push_back(make_finding(
      "windows.smart_app_control", on ? "warning" : "info", on ? 40 : 5,
      on ? "Smart App Control is on: unsigned programs and DLLs are blocked"
         : "Smart App Control is in evaluation mode",
      "HKLM\\SYSTEM\\CurrentControlSet\\Control\\CI\\Policy VerifiedAndReputablePolicyState = " +
          std::string(on ? "1 (on)" : "2 (evaluation)"),
      on ? "Smart App Control blocks executables and DLLs that are neither signed nor known to Microsoft's "
           "reputation service: a self-built PyTorch, ROCm or ONNX Runtime, a fresh pip wheel's DLLs and an "
           "unsigned accel-doctor.exe can fail to load with 'blocked by Smart App Control' or "
           "ERROR_DLL_INIT_FAILED-like errors. (Turning off Defender Application Guard, which some guides "
           "advise, changes nothing: it is not a cause of slowness and is removed in Windows 11 24H2.)"
         : "In evaluation mode Smart App Control blocks nothing yet, but Windows may switch it on; then "
           "unsigned builds (self-built PyTorch or ROCm, unsigned DLLs) stop loading.",
      on ? "If a DLL or program of your stack is blocked (Windows Security > Protection history names it), "
           "use signed builds, or turn Smart App Control off (Windows Security > App & browser control > "
           "Smart App Control settings; it can only be turned on again by resetting Windows)."
         : "Nothing to do now; if loads start failing later, check Windows Security > Protection history.",
      kRefSmartAppControl));
}

void rule_hsa_override_windows(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  // With a ROCm torch and the variable among the run's env_vars, hsa_override.ignored_on_windows says it.
  if (w.hsa_override_gfx_version.empty()) return;
  if (c.platform.backend == "rocm" && c.env_var("HSA_OVERRIDE_GFX_VERSION")) return;
  out.push_back(make_finding(
      "windows.hsa_override_set", "info", 10,
      fmt::format("HSA_OVERRIDE_GFX_VERSION={} has no effect on Windows", w.hsa_override_gfx_version),
      "HSA_OVERRIDE_GFX_VERSION is set in this Windows environment",
      "HIP on Windows does not go through the HSA runtime, so the variable is ignored; advice written for "
      "Linux ROCm (including for the RX 6600/6650 XT, gfx1032) does not carry over.",
      unset_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION") +
          " For a GPU the HIP SDK lists as runtime-only (gfx1031, gfx1032) use a build made for that target, "
          "or DirectML.",
      kRefHsaWindows));
}

void rule_runtime_missing(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  std::vector<std::string> vc, omp;
  for (const auto& r : w.runtimes_missing) (lower(r).rfind("libomp", 0) == 0 ? omp : vc).push_back(r);
  if (!vc.empty()) {
    out.push_back(make_finding(
        "windows.vc_runtime_missing", "warning", 75,
        "The Visual C++ runtime is not installed: " + list_some(vc) + " not found",
        "searched System32 and every PATH folder for " + list_some(vc),
        "torch, ONNX Runtime and most Python extension DLLs are built with MSVC and need its runtime; "
        "without "
        "it importing them fails with 'DLL load failed' / WinError 126.",
        "Install the latest Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64), "
        "https://aka.ms/vs/17/release/vc_redist.x64.exe, then start a new terminal.",
        kRefVcRedist));
  }
  if (!omp.empty()) {
    out.push_back(make_finding(
        "windows.openmp_runtime_missing", "info", 12,
        "The LLVM OpenMP runtime (" + list_some(omp) + ") is not on PATH or in System32",
        "searched System32 and every PATH folder for " + list_some(omp),
        "Some torch wheels' fbgemm.dll import libomp140.x86_64.dll, which the Visual C++ Redistributable "
        "ships; without it 'import torch' fails with 'Error loading ...fbgemm.dll or one of its "
        "dependencies' (WinError 126). Wheels that carry their own copy are not affected.",
        "Install or repair the latest Visual C++ Redistributable (x64); it installs libomp140.x86_64.dll to "
        "System32.",
        kRefVcRedist));
  }
}

bool mentions_tdr(const Result& r) {
  const std::string text = r.error ? r.error->message : "";
  for (const char* s : {"DEVICE_REMOVED", "887A0005", "887A0006", "DEVICE_HUNG", "TDR", "LaunchTimeOut",
                        "device removed", "device hung"}) {
    if (contains_ci(text, s)) return true;
  }
  return false;
}

void rule_tdr_delay(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  if (!w.tdr_delay_s) return;
  const Result* hit = nullptr;
  for (const auto& r : c.report.results) {
    if (mentions_tdr(r)) {
      hit = &r;
      break;
    }
  }
  const bool below_default = *w.tdr_delay_s < 2;
  if (!hit && !below_default) return;
  if (hit && *w.tdr_delay_s >= 10) return;  // a long delay already: the removal has another cause
  out.push_back(make_finding(
      "windows.tdr_delay_short", "warning", hit ? 72 : 35,
      fmt::format("GPU timeout detection (TDR) fires after {} s{}", *w.tdr_delay_s,
                  hit ? fmt::format(" and {} ended with a device-removed error", hit->key) : ""),
      fmt::format("TdrDelay {} s ({}){}", *w.tdr_delay_s, w.tdr_delay_source,
                  hit ? "; " + hit->key + ": " + hit->error->message.substr(0, 160) : ""),
      "Windows resets a GPU whose work item runs longer than TdrDelay seconds (2 by default); a long "
      "DirectML or HIP kernel (big GEMM, long attention) is then killed with DXGI_ERROR_DEVICE_REMOVED / "
      "DEVICE_HUNG, and the process loses the device.",
      "Split the work into smaller pieces (smaller batch or sequence), or raise the delay: as administrator "
      "reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\GraphicsDrivers\" /v TdrDelay /t REG_DWORD /d 10 "
      "/f, then restart Windows.",
      kRefTdr));
}

void rule_build_too_old(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  if (!w.os_build || *w.os_build >= kDirectMlMinBuild || *w.os_build <= 0) return;
  out.push_back(make_finding(
      "windows.build_too_old_for_directml", "warning", 45,
      fmt::format("Windows build {} has no in-box DirectML (it came with 10.0.{}, version 1903)", *w.os_build,
                  kDirectMlMinBuild),
      fmt::format("RtlGetVersion build {}; DirectML.dll copies: {}", *w.os_build, w.directml.size()),
      "torch-directml and ONNX Runtime's DirectML provider need DirectML; Windows builds before 18362 do not "
      "ship it and older drivers lack its D3D12 features.",
      "Update Windows 10 to a supported release (22H2), or use a package that carries the redistributable "
      "DirectML (Microsoft.AI.DirectML 1.4 and later, as onnxruntime-directml does).",
      kRefDirectMlVersions));
}

}  // namespace

bool is_power_saver_plan(const std::string& guid) {
  return lower(guid) == "a1841308-3541-4fab-bc81-f71556f20b4a";  // GUID_MAX_POWER_SAVINGS (winnt.h)
}

std::vector<RuleEntry> windows_rules() {
  // Every rule needs the Windows section; the wrapper keeps the check in one place.
  const auto on_windows = [](void (*fn)(const Ctx&, std::vector<Finding>&)) {
    return [fn](const Ctx& c, std::vector<Finding>& out) {
      if (c.env.windows) fn(c, out);
    };
  };
  return {
      {"windows.adapter0_integrated", "DXGI adapter 0 is integrated while a discrete adapter exists",
       on_windows(rule_adapter0_integrated)},
      {"windows.power_saving", "battery saver, EcoQoS, Power saver plan or power mode, or on battery",
       on_windows(rule_power_saving)},
      {"windows.remote_session", "the run was made in a Remote Desktop session",
       on_windows(rule_remote_session)},
      {"windows.smart_app_control", "Smart App Control is on or in evaluation",
       on_windows(rule_smart_app_control)},
      {"windows.hsa_override_set", "HSA_OVERRIDE_GFX_VERSION set on Windows (no ROCm torch finding already)",
       on_windows(rule_hsa_override_windows)},
      {"windows.runtime_missing", "msvcp140 / vcruntime140(_1) / libomp140 not in System32 or on PATH",
       on_windows(rule_runtime_missing)},
      {"windows.tdr_delay_short", "TdrDelay below 2 s, or under 10 s with a device-removed error",
       on_windows(rule_tdr_delay)},
      {"windows.build_too_old_for_directml", "Windows build before 18362 (no in-box DirectML)",
       on_windows(rule_build_too_old)},
  };
}

}  // namespace accel::rules
