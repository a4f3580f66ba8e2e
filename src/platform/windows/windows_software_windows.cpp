// The software side of the Windows section (win_probe_util.hpp): Python
// interpreters and what their site-packages carry (torch's build and HIP
// runtime, ONNX Runtime and its DirectML), running python processes in
// efficiency mode, and the AMD Adrenalin version. Thin reads feeding the
// pure functions of platform/windows_facts.hpp; nothing throws, nothing is
// started (no python is run: site-packages come from the interpreter's path).
#include "platform/windows/win_probe_util.hpp"  // windows.h first

#include <tlhelp32.h>

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/strings.hpp"
#include "platform/windows_facts.hpp"

namespace accel::platform::win {

namespace {

/// File names in a folder (FindFirstFileW), at most `limit`.
std::vector<std::string> list_names(const std::string& dir, std::size_t limit = 512) {
  std::vector<std::string> out;
  WIN32_FIND_DATAW fd{};
  HANDLE h = FindFirstFileW(widen(dir + "\\*").c_str(), &fd);
  if (h == INVALID_HANDLE_VALUE) return out;
  do {
    out.push_back(narrow(fd.cFileName, wcsnlen(fd.cFileName, MAX_PATH)));
  } while (out.size() < limit && FindNextFileW(h, &fd));
  FindClose(h);
  return out;
}

/// The PEP 514 registry entries (what `py -0p` lists): Software\Python\<company>\<tag>\InstallPath.
std::vector<std::string> registered_pythons() {
  std::vector<std::string> out;
  for (HKEY root : {HKEY_CURRENT_USER, HKEY_LOCAL_MACHINE}) {
    for (const auto& company : reg_subkeys(root, L"Software\\Python", 32)) {
      if (lower(company) == "pylauncher") continue;  // PEP 514: not an interpreter
      const std::wstring base = L"Software\\Python\\" + widen(company);
      for (const auto& tag : reg_subkeys(root, base, 64)) {
        const std::wstring key = base + L"\\" + widen(tag) + L"\\InstallPath";
        if (auto exe = reg_string(root, key, L"ExecutablePath", nullptr)) {
          out.push_back(*exe);
        } else if (auto dir = reg_string(root, key, nullptr, nullptr)) {
          std::string d = *dir;
          while (!d.empty() && (d.back() == '\\' || d.back() == '/')) d.pop_back();
          out.push_back(d + "\\python.exe");
        }
      }
    }
  }
  return out;
}

void look_into(WindowsPython& py, WindowsInfo& w, HMODULE version_dll) {
  const auto slash = py.path.find_last_of("\\/");
  const std::string dir = slash == std::string::npos ? std::string(".") : py.path.substr(0, slash);
  // The DLL naming the version sits beside python.exe (an install, a conda env) or, for a venv, in
  // the base install named by pyvenv.cfg; the user site needs it, the others do not.
  std::string tag = detail::python_version_tag(list_names(dir));
  if (tag.empty()) {
    const auto parent = dir.find_last_of("\\/");
    if (parent != std::string::npos) {
      if (auto cfg = read_file_w(widen(dir.substr(0, parent) + "\\pyvenv.cfg"), 16384)) {
        const auto at = cfg->find("home =");
        if (at != std::string::npos) {
          std::string home = cfg->substr(at + 6, cfg->find('\n', at) - at - 6);
          while (!home.empty() && (home.front() == ' ')) home.erase(home.begin());
          while (!home.empty() && (home.back() == '\r' || home.back() == ' ')) home.pop_back();
          tag = detail::python_version_tag(list_names(home));
        }
      }
    }
  }
  for (const auto& site : detail::site_packages_candidates(py.path, env_value(L"APPDATA"), tag)) {
    if (!is_directory(widen(site))) continue;
    if (std::find(py.site_packages.begin(), py.site_packages.end(), site) != py.site_packages.end()) continue;
    py.site_packages.push_back(site);
    if (py.torch_version.empty()) {
      if (auto text = read_file_w(widen(site + "\\torch\\version.py"), 65536)) {
        const auto v = detail::parse_torch_version_py(*text);
        py.torch_version = v.version;
        py.torch_hip_version = v.hip;
        py.torch_cuda_version = v.cuda;
      }
    }
    const std::string where = "site-packages of " + py.path;
    for (const char* dll : {"amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"}) {
      for (auto& f : find_copies(version_dll, dll, {{site + "\\torch\\lib", where}})) {
        w.torch_hip_runtime.push_back(std::move(f));
      }
    }
    // The onnxruntime wheels carry onnxruntime.dll, or only the binding module with ONNX Runtime linked in.
    const std::string capi = site + "\\onnxruntime\\capi";
    auto ort = find_copies(version_dll, "onnxruntime.dll", {{capi, where}});
    if (ort.empty()) ort = find_copies(version_dll, "onnxruntime_pybind11_state.pyd", {{capi, where}});
    for (auto& f : ort) {
      if (f.version.empty()) {
        if (auto init = read_file_w(widen(site + "\\onnxruntime\\__init__.py"), 65536))
          f.version = detail::parse_torch_version_py(*init).version;  // its __version__ line
      }
      w.onnxruntime.push_back(std::move(f));
    }
    for (auto& f : find_copies(version_dll, "DirectML.dll", {{capi, where}}))
      w.directml.push_back(std::move(f));
  }
  if (py.site_packages.empty())
    py.not_collected["site_packages"] = "none of the usual site-packages folders exists";
  if (py.torch_version.empty() && !py.site_packages.empty())
    py.not_collected["torch"] = "no torch\\version.py in its site-packages (torch not installed there)";
}

}  // namespace

void probe_pythons(WindowsInfo& w, const std::vector<std::pair<std::string, std::string>>& known,
                   HMODULE version_dll) {
  std::vector<std::pair<std::string, std::string>> all = known;
  for (const auto& dir : detail::split_windows_path_list(env_value(L"PATH"))) {
    // The Microsoft Store's python.exe aliases (App Execution Aliases) are stubs that open the Store.
    if (lower(dir).find("\\microsoft\\windowsapps") != std::string::npos) continue;
    for (const char* exe : {"python.exe", "python3.exe"}) {
      if (is_file(widen(dir + "\\" + exe))) all.emplace_back(dir + "\\" + exe, "PATH");
    }
  }
  for (auto& p : registered_pythons()) all.emplace_back(std::move(p), "registry (PEP 514, as py -0p lists)");
  std::set<std::string> seen;
  for (const auto& [path, how] : all) {
    if (w.pythons.size() >= 16) {
      w.not_collected["pythons"] = "more than 16 interpreters: the rest not looked at";
      break;
    }
    if (path.empty() || !seen.insert(lower(path)).second) continue;
    WindowsPython py;
    py.path = path;
    py.found_by = how;
    if (!is_file(widen(path))) {
      py.not_collected["path"] = "no such file";
      w.pythons.push_back(std::move(py));
      continue;
    }
    look_into(py, w, version_dll);
    w.pythons.push_back(std::move(py));
  }
  if (w.pythons.empty() && !w.not_collected.count("pythons"))
    w.not_collected["pythons"] =
        "no python.exe on PATH, in the PEP 514 registry entries, or given with --python";
}

void probe_onnxruntime_providers(WindowsInfo& w) {
  for (const auto& f : w.onnxruntime) {
    const auto slash = f.path.find_last_of("\\/");
    const std::string dir = slash == std::string::npos ? std::string() : f.path.substr(0, slash);
    bool dml = is_file(widen(dir + "\\DirectML.dll"));
    if (!dml) {
      // The DirectML build names DirectML.dll among its (delay-loaded) imports.
      bool cut = false;
      if (auto bytes = read_file_w(widen(f.path), 96u << 20, &cut))
        dml = detail::bytes_mention_ascii_ci(*bytes, "DirectML.dll");
    }
    if (dml) w.onnxruntime_directml_ep.push_back(f.path);
  }
}

void probe_python_processes(WindowsInfo& w) {
  HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snap == INVALID_HANDLE_VALUE) {
    w.not_collected["python_processes"] = "CreateToolhelp32Snapshot failed: " + last_error();
    return;
  }
  using GetInfo = BOOL(WINAPI*)(HANDLE, PROCESS_INFORMATION_CLASS, LPVOID, DWORD);
  const auto get_info = proc<GetInfo>(GetModuleHandleW(L"kernel32.dll"), "GetProcessInformation");
  PROCESSENTRY32W e{};
  e.dwSize = sizeof e;
  const DWORD self = GetCurrentProcessId();
  for (BOOL more = Process32FirstW(snap, &e); more && w.python_processes.size() < 32;
       more = Process32NextW(snap, &e)) {
    const std::string exe = narrow(e.szExeFile, wcsnlen(e.szExeFile, MAX_PATH));
    if (e.th32ProcessID == self || !detail::is_python_executable(exe)) continue;
    WindowsProcessQos q;
    q.pid = e.th32ProcessID;
    q.path = exe;
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, e.th32ProcessID);
    if (!h) {
      q.why = "OpenProcess failed: " + last_error();
      w.python_processes.push_back(std::move(q));
      continue;
    }
    wchar_t full[MAX_PATH * 2];
    DWORD len = MAX_PATH * 2;
    if (QueryFullProcessImageNameW(h, 0, full, &len)) q.path = narrow(full, len);
    PROCESS_POWER_THROTTLING_STATE t{};
    t.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION;
    if (!get_info) {
      q.why = "kernel32.dll has no GetProcessInformation";
    } else if (get_info(h, ProcessPowerThrottling, &t, sizeof t)) {
      q.ecoqos = (t.ControlMask & PROCESS_POWER_THROTTLING_EXECUTION_SPEED) &&
                 (t.StateMask & PROCESS_POWER_THROTTLING_EXECUTION_SPEED);
    } else {
      q.why = "GetProcessInformation(ProcessPowerThrottling) failed: " + last_error();
    }
    CloseHandle(h);
    w.python_processes.push_back(std::move(q));
  }
  CloseHandle(snap);
}

void probe_adrenalin(WindowsInfo& w) {
  std::string why;
  if (auto v = reg_string(HKEY_LOCAL_MACHINE, L"SOFTWARE\\AMD\\CN", L"RadeonSoftwareVersion", &why)) {
    w.adrenalin_version = *v;
    w.adrenalin_version_source = "HKLM\\SOFTWARE\\AMD\\CN RadeonSoftwareVersion";
    return;
  }
  // The display adapters' driver keys (class GUID_DEVCLASS_DISPLAY) carry it too.
  const std::wstring cls =
      L"SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}";
  for (const auto& sub : reg_subkeys(HKEY_LOCAL_MACHINE, cls, 64)) {
    if (sub.size() != 4 || !std::all_of(sub.begin(), sub.end(),
                                        [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      continue;
    if (auto v =
            reg_string(HKEY_LOCAL_MACHINE, cls + L"\\" + widen(sub), L"RadeonSoftwareVersion", nullptr)) {
      w.adrenalin_version = *v;
      w.adrenalin_version_source = "display class key " + sub + " RadeonSoftwareVersion";
      return;
    }
  }
  w.not_collected["adrenalin_version"] =
      "no RadeonSoftwareVersion under HKLM\\SOFTWARE\\AMD\\CN or the display class keys (no AMD Software: "
      "Adrenalin Edition installed): " +
      why;
}

}  // namespace accel::platform::win
