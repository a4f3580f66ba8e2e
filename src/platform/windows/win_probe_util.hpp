// Helpers shared by the Windows probes (windows_info_windows.cpp and the
// files beside it): run-time loaded DLLs, COM pointers, registry and
// environment reads, file versions. Included only by src/platform/windows/*.cpp.
#pragma once

#include "platform/windows/win_util.hpp"  // windows.h first

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel::platform::win {

std::string hresult_text(HRESULT hr);
/// "381b4222-f694-41f0-9685-ff5bb260df2e" (lower case, no braces).
std::string guid_text(const GUID& g);

template <typename F>
F proc(HMODULE m, const char* name) {
  return m ? reinterpret_cast<F>(reinterpret_cast<void*>(GetProcAddress(m, name))) : nullptr;
}

/// A System32 DLL loaded for the lifetime of the object (LOAD_LIBRARY_SEARCH_SYSTEM32).
struct Library {
  HMODULE h = nullptr;
  std::string error;
  explicit Library(const wchar_t* name);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
};

template <typename T>
struct ComPtr {
  T* p = nullptr;
  ~ComPtr() {
    if (p) p->Release();
  }
  T** put() { return &p; }
  T* operator->() const { return p; }
};

std::optional<DWORD> reg_dword(HKEY root, const wchar_t* key, const wchar_t* value, std::string* why);
/// A REG_SZ / REG_EXPAND_SZ value (`value` null: the key's default value); nullopt when absent.
std::optional<std::string> reg_string(HKEY root, const std::wstring& key, const wchar_t* value,
                                      std::string* why);
/// The names of a key's subkeys (at most `limit`); empty when it cannot be opened.
std::vector<std::string> reg_subkeys(HKEY root, const std::wstring& key, std::size_t limit = 256);
/// %NAME% of this process, "" when unset.
std::string env_value(const wchar_t* name);

/// VS_FIXEDFILEINFO's file version of `path` through version.dll, "" when none.
std::string file_version(HMODULE version_dll, const std::wstring& path);
bool is_file(const std::wstring& path);
bool is_directory(const std::wstring& path);

struct Folder {
  std::string path;
  std::string where;  ///< WindowsFile::where
};
/// Every copy of `name` in `folders` (in order), each folder once.
std::vector<WindowsFile> find_copies(HMODULE version_dll, const std::string& name,
                                     const std::vector<Folder>& folders);

/// The whole of a small file (at most `limit` bytes) read through its UTF-16
/// path; nullopt when it cannot be opened. `truncated` says whether it was cut.
std::optional<std::string> read_file_w(const std::wstring& path, std::size_t limit,
                                       bool* truncated = nullptr);

// The probes of windows_software_windows.cpp (called by probe_windows):
/// Python interpreters (`known`: path and how the caller found it; then PATH
/// and the PEP 514 registry entries `py -0p` lists), their site-packages, the
/// torch build there (torch/version.py), the HIP runtime a torch wheel
/// carries, and onnxruntime.dll / DirectML.dll inside site-packages.
void probe_pythons(WindowsInfo& w, const std::vector<std::pair<std::string, std::string>>& known,
                   HMODULE version_dll);
/// Which onnxruntime.dll copies carry the DirectML execution provider.
void probe_onnxruntime_providers(WindowsInfo& w);
/// Running python*.exe processes and their EcoQoS.
void probe_python_processes(WindowsInfo& w);
/// The AMD Software: Adrenalin Edition version.
void probe_adrenalin(WindowsInfo& w);

}  // namespace accel::platform::win
