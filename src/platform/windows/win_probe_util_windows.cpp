// Helpers shared by the Windows probes (win_probe_util.hpp).
#include "platform/windows/win_probe_util.hpp"

#include <set>

#include <fmt/format.h>

#include "core/strings.hpp"
#include "platform/windows_facts.hpp"

namespace accel::platform::win {

std::string hresult_text(HRESULT hr) {
  return fmt::format("HRESULT 0x{:08X}", static_cast<std::uint32_t>(hr));
}

std::string guid_text(const GUID& g) {
  return fmt::format("{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}", g.Data1,
                     g.Data2, g.Data3, g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5],
                     g.Data4[6], g.Data4[7]);
}

Library::Library(const wchar_t* name) {
  h = LoadLibraryExW(name, nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!h) error = last_error();
}
Library::~Library() {
  if (h) FreeLibrary(h);
}

std::optional<DWORD> reg_dword(HKEY root, const wchar_t* key, const wchar_t* value, std::string* why) {
  DWORD v = 0, bytes = sizeof v;
  const LONG rc = RegGetValueW(root, key, value, RRF_RT_REG_DWORD, nullptr, &v, &bytes);
  if (rc != ERROR_SUCCESS) {
    if (why) *why = error_text(static_cast<DWORD>(rc));
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> reg_string(HKEY root, const std::wstring& key, const wchar_t* value,
                                      std::string* why) {
  DWORD bytes = 0;
  LONG rc =
      RegGetValueW(root, key.c_str(), value, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ, nullptr, nullptr, &bytes);
  if (rc != ERROR_SUCCESS || bytes == 0 || bytes > 65536) {
    if (why) *why = error_text(static_cast<DWORD>(rc == ERROR_SUCCESS ? ERROR_INVALID_DATA : rc));
    return std::nullopt;
  }
  std::wstring buf(bytes / sizeof(wchar_t) + 1, L'\0');
  rc = RegGetValueW(root, key.c_str(), value, RRF_RT_REG_SZ | RRF_RT_REG_EXPAND_SZ, nullptr, &buf[0], &bytes);
  if (rc != ERROR_SUCCESS) {
    if (why) *why = error_text(static_cast<DWORD>(rc));
    return std::nullopt;
  }
  buf.resize(wcsnlen(buf.c_str(), buf.size()));
  return narrow(buf);
}

std::vector<std::string> reg_subkeys(HKEY root, const std::wstring& key, std::size_t limit) {
  std::vector<std::string> out;
  HKEY h = nullptr;
  if (RegOpenKeyExW(root, key.c_str(), 0, KEY_READ, &h) != ERROR_SUCCESS) return out;
  for (DWORD i = 0; i < limit; ++i) {
    wchar_t name[256];
    DWORD len = 256;
    const LONG e = RegEnumKeyExW(h, i, name, &len, nullptr, nullptr, nullptr, nullptr);
    if (e == ERROR_NO_MORE_ITEMS) break;
    if (e == ERROR_SUCCESS) out.push_back(narrow(name, len));
  }
  RegCloseKey(h);
  return out;
}

std::string env_value(const wchar_t* name) {
  const DWORD n = GetEnvironmentVariableW(name, nullptr, 0);
  if (n == 0) return "";
  std::wstring buf(n, L'\0');
  const DWORD got = GetEnvironmentVariableW(name, &buf[0], n);
  buf.resize(got);
  return narrow(buf);
}

std::string file_version(HMODULE version_dll, const std::wstring& path) {
  using SizeFn = DWORD(WINAPI*)(LPCWSTR, LPDWORD);
  using InfoFn = BOOL(WINAPI*)(LPCWSTR, DWORD, DWORD, LPVOID);
  using QueryFn = BOOL(WINAPI*)(LPCVOID, LPCWSTR, LPVOID*, PUINT);
  const auto size_fn = proc<SizeFn>(version_dll, "GetFileVersionInfoSizeW");
  const auto info_fn = proc<InfoFn>(version_dll, "GetFileVersionInfoW");
  const auto query_fn = proc<QueryFn>(version_dll, "VerQueryValueW");
  if (!size_fn || !info_fn || !query_fn) return "";
  DWORD ignored = 0;
  const DWORD n = size_fn(path.c_str(), &ignored);
  if (n == 0) return "";
  std::string block(n, '\0');
  if (!info_fn(path.c_str(), 0, n, &block[0])) return "";
  VS_FIXEDFILEINFO* ffi = nullptr;
  UINT len = 0;
  if (!query_fn(block.data(), L"\\", reinterpret_cast<void**>(&ffi), &len) || !ffi || len < sizeof *ffi)
    return "";
  return detail::file_version_string(ffi->dwFileVersionMS, ffi->dwFileVersionLS);
}

bool is_file(const std::wstring& path) {
  const DWORD a = GetFileAttributesW(path.c_str());
  return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

bool is_directory(const std::wstring& path) {
  const DWORD a = GetFileAttributesW(path.c_str());
  return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

std::vector<WindowsFile> find_copies(HMODULE version_dll, const std::string& name,
                                     const std::vector<Folder>& folders) {
  std::vector<WindowsFile> out;
  std::set<std::string> seen;
  for (const auto& f : folders) {
    if (!seen.insert(lower(f.path)).second) continue;
    const std::wstring full = widen(f.path + "\\" + name);
    if (!is_file(full)) continue;
    out.push_back({name, f.path + "\\" + name, f.where, file_version(version_dll, full)});
  }
  return out;
}

std::optional<std::string> read_file_w(const std::wstring& path, std::size_t limit, bool* truncated) {
  HANDLE h = CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                         nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return std::nullopt;
  std::string out;
  char buf[65536];
  bool cut = false;
  for (;;) {
    DWORD got = 0;
    if (!ReadFile(h, buf, sizeof buf, &got, nullptr) || got == 0) break;
    if (out.size() + got > limit) {
      out.append(buf, limit - out.size());
      cut = true;
      break;
    }
    out.append(buf, got);
  }
  CloseHandle(h);
  if (truncated) *truncated = cut;
  return out;
}

}  // namespace accel::platform::win
