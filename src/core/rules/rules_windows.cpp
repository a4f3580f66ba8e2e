// Windows rules: what the Windows section of the environment
// (environment.windows, platform/windows_facts.hpp) says about the machine
// the run was made on. Each rule reads recorded values only; a report without
// the section (any other OS, or an older report) leaves them all silent.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/adapter_join.hpp"
#include "core/kb.hpp"
#include "core/rules/context.hpp"
#include "core/strings.hpp"

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

/// The installed HIP SDK's "major.minor" from HIP_PATH's last folder
/// ("C:\\Program Files\\AMD\\ROCm\\6.2\\" -> "6.2"); "" when it is not a version.
std::string hip_sdk_version(const WindowsInfo& w) {
  std::string p = w.hip_path;
  while (!p.empty() && (p.back() == '\\' || p.back() == '/' || p.back() == ' ' || p.back() == '"'))
    p.pop_back();
  const auto slash = p.find_last_of("\\/");
  const std::string last = slash == std::string::npos ? p : p.substr(slash + 1);
  const auto dot = last.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 >= last.size()) return "";
  for (std::size_t i = 0; i < last.size(); ++i) {
    if (i != dot && !std::isdigit(static_cast<unsigned char>(last[i]))) return "";
  }
  return last;
}

std::string adapter_label(const WindowsAdapter& a) {
  return fmt::format("{} (DXGI {}, LUID {})", a.name.empty() ? "(unnamed)" : a.name, a.dxgi_index, a.luid);
}

/// "Use index N" for every list the discrete adapter is in, from the one
/// join (core/adapter_join.hpp): DirectML / ONNX Runtime's DirectML device_id
/// and torch-directml (DXGI order), torch, Vulkan, HIP.
std::string index_advice(const AdapterIndices& d, const WindowsAdapter& a) {
  const int n = a.dxgi_index;
  std::string s = fmt::format(
      "Select the {} explicitly, by the index each library gives it: DirectML and ONNX Runtime's DirectML "
      "provider device_id {} (providers=[('DmlExecutionProvider', {{'device_id': {}}})]); torch-directml "
      "torch_directml.device({}); a D3D12 device on the adapter with LUID {}",
      a.name, n, n, n, a.luid);
  if (d.onnxruntime_index) s += fmt::format("; ONNX Runtime EP device {}", *d.onnxruntime_index);
  for (const auto& t : d.torch) {
    if (t.rfind("privateuseone:", 0) != 0) s += "; torch " + t;
  }
  if (d.vulkan_index) s += fmt::format("; Vulkan device {}", *d.vulkan_index);
  if (d.hip_index) {
    s += fmt::format("; HIP (torch ROCm) device {} (HIP_VISIBLE_DEVICES={})", *d.hip_index, *d.hip_index);
  } else if (a.vendor == "amd") {
    s += "; HIP (torch ROCm on Windows) lists AMD GPUs only, in its own order: pick the index whose "
         "torch.cuda.get_device_name(i) is this GPU, or set HIP_VISIBLE_DEVICES to it";
  }
  return s + ". Or plug the display into the discrete GPU, which makes it adapter 0.";
}

struct AdapterPick {
  const WindowsAdapter* first = nullptr;     ///< DXGI adapter 0
  const WindowsAdapter* discrete = nullptr;  ///< the fastest discrete adapter
};

AdapterPick pick_adapters(const WindowsInfo& w) {
  AdapterPick p;
  for (const auto& a : w.adapters) {
    if (a.dxgi_index == 0) p.first = &a;
    if (a.software || a.integrated != false) continue;
    // The fastest discrete: the high-performance order's first, else the most dedicated memory.
    const WindowsAdapter* d = p.discrete;
    if (!d ||
        (a.high_performance_index &&
         (!d->high_performance_index || *a.high_performance_index < *d->high_performance_index)) ||
        (!a.high_performance_index && !d->high_performance_index &&
         a.dedicated_video_memory_bytes.value_or(0) > d->dedicated_video_memory_bytes.value_or(0)))
      p.discrete = &a;
  }
  return p;
}

const AdapterIndices* joined(const std::vector<AdapterIndices>& all, const WindowsAdapter& a) {
  for (const auto& j : all) {
    if (j.luid == a.luid && j.dxgi_index == a.dxgi_index) return &j;
  }
  return nullptr;
}

/// The DXGI adapter (and its joined indices) a torch device is on, nullptr when it joins none.
const AdapterIndices* adapter_of_device(const std::vector<AdapterIndices>& all, const std::string& device) {
  for (const auto& j : all) {
    if (std::find(j.torch.begin(), j.torch.end(), device) != j.torch.end()) return &j;
  }
  return nullptr;
}

// DXGI adapter 0 is integrated while a discrete one exists: DirectML's and
// ONNX Runtime's device_id 0 and torch-directml's default device land on the
// iGPU. When the report measured a device on the integrated adapter,
// integrated_gpu_selected (rules_setup.cpp) says so, with the same advice
// (windows_index_advice), and this rule stays silent.
void rule_adapter0_integrated(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  const AdapterPick p = pick_adapters(w);
  if (!p.discrete || !p.first || p.first->integrated != true) return;
  const auto all = join_adapter_indices(c.env, c.report.results);
  if (!c.target_is_cpu()) {
    const AdapterIndices* measured = adapter_of_device(all, c.target);
    if (measured && measured->integrated == true) return;
  }
  const AdapterIndices* d = joined(all, *p.discrete);
  const AdapterIndices none;
  const int n = p.discrete->dxgi_index;
  out.push_back(make_finding(
      "windows.adapter0_integrated", Severity::warning, 70,
      fmt::format("DXGI adapter 0 is the integrated {}; the discrete {} is adapter {}", p.first->name,
                  p.discrete->name, n),
      fmt::format(
          "adapter 0: {}, integrated ({}); adapter {}: {}, discrete ({}); every index of the discrete "
          "GPU: {}",
          adapter_label(*p.first), p.first->integrated_basis, n, adapter_label(*p.discrete),
          p.discrete->integrated_basis, d ? indices_text(*d) : "?"),
      "DirectML, ONNX Runtime's DirectML execution provider and torch-directml number adapters in DXGI's "
      "EnumAdapters1 order, where 0 is the adapter driving the main display: code that uses the default "
      "device 0 runs on the integrated GPU.",
      index_advice(d ? *d : none, *p.discrete), kRefDxgiEnum));
}

void rule_power_saving(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  std::vector<std::string> causes;
  bool strong = false;
  if (w.battery_saver == true) causes.push_back("battery saver is on"), strong = true;
  if (w.process_ecoqos == true)
    causes.push_back("this process runs in efficiency mode (EcoQoS)"), strong = true;
  for (const auto& p : w.python_processes) {
    if (p.ecoqos == true)
      causes.push_back(fmt::format("python (pid {}, {}) runs in efficiency mode (EcoQoS)", p.pid, p.path)),
          strong = true;
  }
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
      "windows.power_saving", strong ? Severity::warning : Severity::info, strong ? 55 : 20,
      "Windows is saving power while measuring: " + list_some(causes, 6),
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
      "windows.remote_session", hardware || w.adapters.empty() ? Severity::info : Severity::warning,
      hardware ? 15 : 65,
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
      "windows.smart_app_control", on ? Severity::warning : Severity::info, on ? 40 : 5,
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

/// The HIP SDK's runtime-only targets, from kb/arch.json windows_hip_sdk
/// (the table explain's {windows_hip_sdk} reads too).
std::string runtime_only_advice(const Ctx& c) {
  std::vector<std::string> targets;
  if (c.options.kb) targets = c.options.kb->windows_hip_sdk_targets("runtime");
  if (targets.empty()) return "Use a build made for the GPU's own target, or DirectML.";
  return fmt::format(
      "For a GPU the HIP SDK lists as runtime-only ({}: the HIP runtime without the SDK's rocBLAS/MIOpen) "
      "use "
      "a build made for that target, or DirectML.",
      list_some(targets, 6));
}

void rule_hsa_override_windows(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  // With a ROCm torch and the variable among the run's env_vars, hsa_override.ignored_on_windows says it.
  if (w.hsa_override_gfx_version.empty()) return;
  if (c.platform.backend == "rocm" && c.env_var("HSA_OVERRIDE_GFX_VERSION")) return;
  out.push_back(make_finding(
      "windows.hsa_override_set", Severity::info, 10,
      fmt::format("HSA_OVERRIDE_GFX_VERSION={} has no effect on Windows", w.hsa_override_gfx_version),
      "HSA_OVERRIDE_GFX_VERSION is set in this Windows environment",
      "HIP on Windows does not go through the HSA runtime, so the variable is ignored; advice written for "
      "Linux ROCm (including for the RX 6600/6650 XT, gfx1032) does not carry over.",
      unset_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION") + " " + runtime_only_advice(c),
      kRefHsaWindows));
}

void rule_runtime_missing(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  std::vector<std::string> vc, omp;
  for (const auto& r : w.runtimes_missing) (starts_with_ci(r, "libomp") ? omp : vc).push_back(r);
  if (!vc.empty()) {
    out.push_back(make_finding(
        "windows.vc_runtime_missing", Severity::warning, 75,
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
        "windows.openmp_runtime_missing", Severity::info, 12,
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
      "windows.tdr_delay_short", Severity::warning, hit ? 72 : 35,
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
  if (!c.options.kb || c.options.kb->directml_versions().inbox.empty()) return;
  // The first Windows build with DirectML (kb/arch.json directml_versions: 18362, 10 version 1903).
  const auto& first = c.options.kb->directml_versions().inbox.front();
  if (!w.os_build || *w.os_build >= first.os_build || *w.os_build <= 0) return;
  out.push_back(make_finding(
      "windows.build_too_old_for_directml", Severity::warning, 45,
      fmt::format("Windows build {} has no in-box DirectML (it came with 10.0.{}, {})", *w.os_build,
                  first.os_build, first.os),
      fmt::format("RtlGetVersion build {}; DirectML.dll copies: {}", *w.os_build, w.directml.size()),
      "torch-directml and ONNX Runtime's DirectML provider need DirectML; Windows builds before 18362 do not "
      "ship it and older drivers lack its D3D12 features.",
      "Update Windows 10 to a supported release (22H2), or use a package that carries the redistributable "
      "DirectML (Microsoft.AI.DirectML 1.4 and later, as onnxruntime-directml does).",
      kRefDirectMlVersions));
}

/// "6.2" of a version text ("6.2.41134-65d174c3e", "6.2"); "" when none.
std::string major_minor(const std::string& v) {
  const auto n = version_number(v);
  return n ? fmt::format("{}.{}", *n / 100, *n % 100) : std::string();
}

// The HIP SDK installed (HIP_PATH) is another HIP than the torch wheel was built with.
void rule_hip_sdk_vs_wheel(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  const std::string sdk = hip_sdk_version(w);
  if (sdk.empty()) return;
  for (const auto& py : w.pythons) {
    const std::string wheel = major_minor(py.torch_hip_version);
    if (wheel.empty() || wheel == sdk) continue;
    bool own_runtime = false;
    for (const auto& f : w.torch_hip_runtime)
      own_runtime = own_runtime || f.where.find(py.path) != std::string::npos;
    const bool major_differs = wheel.substr(0, wheel.find('.')) != sdk.substr(0, sdk.find('.'));
    const bool serious = !own_runtime;
    out.push_back(make_finding(
        "windows.hip_sdk_vs_wheel", serious ? Severity::warning : Severity::info,
        serious ? (major_differs ? 75 : 45) : 10,
        fmt::format("The HIP SDK is {} but torch {} ({}) was built with HIP {}", sdk, py.torch_version,
                    py.path, py.torch_hip_version),
        fmt::format("HIP_PATH {}; torch/version.py hip = {}; HIP runtime in the wheel: {}", w.hip_path,
                    py.torch_hip_version, own_runtime ? "yes (torch\\lib\\amdhip64*.dll)" : "none"),
        own_runtime
            ? "The wheel loads the HIP runtime it carries, so running is not affected; but building "
              "extensions "
              "(torch.utils.cpp_extension, custom kernels) uses HIP_PATH's compiler and headers of another "
              "HIP "
              "release, whose objects need not match the wheel's runtime."
            : fmt::format(
                  "This wheel carries no HIP runtime of its own, so it loads the SDK's amdhip64 DLL: "
                  "another HIP release than it was built for{}. Import or the first kernel then fail "
                  "('DLL load failed while importing _C', hipErrorNoBinaryForGpu, missing entry points).",
                  major_differs ? " (a different major version: another DLL name, amdhip64_6 vs "
                                  "amdhip64_7)"
                                : ""),
        own_runtime
            ? fmt::format("Install the HIP SDK {} beside the wheel's if you build extensions (set HIP_PATH "
                          "to it), or use a wheel built with HIP {}.",
                          wheel, sdk)
            : fmt::format("Install the HIP SDK {} (AMD's HIP SDK for Windows download page lists each "
                          "release), or install a torch wheel built for HIP {} or one that carries its own "
                          "runtime (AMD's and TheRock's Windows wheels do).",
                          wheel, sdk),
        "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/"));
  }
}

// ONNX Runtime's DirectML provider without a DirectML.dll of its own, on a
// Windows whose in-box DirectML is older than the one it was built against.
void rule_directml_too_old(const Ctx& c, std::vector<Finding>& out) {
  const auto& w = *c.env.windows;
  if (!c.options.kb || !w.os_build) return;
  const auto& table = c.options.kb->directml_versions();
  if (table.empty()) return;
  const auto* inbox = table.inbox_for_build(*w.os_build);
  for (const auto& ort : w.onnxruntime) {
    if (std::find(w.onnxruntime_directml_ep.begin(), w.onnxruntime_directml_ep.end(), ort.path) ==
        w.onnxruntime_directml_ep.end())
      continue;  // a CPU-only (or other provider's) onnxruntime.dll needs no DirectML
    const std::string dir = ort.path.substr(0, ort.path.find_last_of("\\/"));
    bool own = false;
    for (const auto& d : w.directml) own = own || d.path.substr(0, d.path.find_last_of("\\/")) == dir;
    if (own) continue;
    const auto* need = table.for_onnxruntime(ort.version);
    if (!need) continue;
    const std::string have = inbox ? inbox->directml : "none";
    if (inbox && compare_dotted_versions(inbox->directml, need->directml) >= 0) continue;
    out.push_back(make_finding(
        "windows.directml_too_old_for_onnxruntime", Severity::warning, 60,
        fmt::format(
            "ONNX Runtime {} ({}) would load Windows' in-box DirectML {}, older than the {} its DirectML "
            "provider needs",
            ort.version.empty() ? "?" : ort.version, ort.path, have, need->directml),
        fmt::format(
            "no DirectML.dll beside {}; Windows build {}: in-box DirectML {} ({}); ONNX Runtime {} and "
            "later were built against DirectML {} ({})",
            ort.path, *w.os_build, have, inbox ? inbox->os : "none before build 18362", need->onnxruntime,
            need->directml, need->source),
        "Without its own DirectML.dll beside onnxruntime.dll, Windows resolves DirectML.dll to System32's "
        "in-box "
        "copy. No Windows release ships a DirectML newer than 1.8.0, and the DirectML provider of newer ONNX "
        "Runtime releases calls features of later DirectML versions: creating the session fails "
        "(E_INVALIDARG "
        "80070057 from dml_provider_factory, a missing entry point) or operators fall back to the CPU.",
        fmt::format(
            "Put the DirectML.dll of the redistributable (NuGet Microsoft.AI.DirectML {} or later) beside "
            "onnxruntime.dll, as the onnxruntime-directml Python package and the "
            "Microsoft.ML.OnnxRuntime.DirectML NuGet package do (in .NET build for x64 so it is copied).",
            need->directml),
        table.source));
  }
}

}  // namespace

std::string windows_index_advice(const Ctx& c, const std::string& device) {
  if (!c.env.windows) return "";
  const auto all = join_adapter_indices(c.env, c.report.results);
  const AdapterIndices* j = adapter_of_device(all, device);
  if (!j) return "";
  for (const auto& a : c.env.windows->adapters) {
    if (a.luid == j->luid && a.dxgi_index == j->dxgi_index) return index_advice(*j, a);
  }
  return "";
}

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
      {"windows.adapter0_integrated",
       "DXGI adapter 0 is integrated while a discrete adapter exists (and the run did not measure it: then "
       "integrated_gpu_selected)",
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
      {"windows.hip_sdk_vs_wheel", "HIP_PATH's HIP SDK is another major.minor than a torch wheel's HIP",
       on_windows(rule_hip_sdk_vs_wheel)},
      {"windows.directml_too_old_for_onnxruntime",
       "an onnxruntime.dll with the DirectML provider, no DirectML.dll beside it, in-box DirectML older than "
       "it needs (kb/arch.json directml_versions)",
       on_windows(rule_directml_too_old)},
  };
}

}  // namespace accel::rules
