// Helpers of the Windows implementations: UTF-8 <-> UTF-16 and error text.
// Included only by src/platform/windows/*.cpp.
#pragma once

#include <string>

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

namespace accel::platform::win {

/// UTF-8 to UTF-16 (the W functions); invalid bytes become U+FFFD.
inline std::wstring widen(const std::string& s) {
  if (s.empty()) return {};
  const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
  std::wstring w(static_cast<std::size_t>(n), L'\0');
  MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), &w[0], n);
  return w;
}

/// UTF-16 to UTF-8.
inline std::string narrow(const wchar_t* w, std::size_t len) {
  if (len == 0) return {};
  const int n = WideCharToMultiByte(CP_UTF8, 0, w, static_cast<int>(len), nullptr, 0, nullptr, nullptr);
  std::string s(static_cast<std::size_t>(n), '\0');
  WideCharToMultiByte(CP_UTF8, 0, w, static_cast<int>(len), &s[0], n, nullptr, nullptr);
  return s;
}
inline std::string narrow(const std::wstring& w) { return narrow(w.data(), w.size()); }

/// "error 2: The system cannot find the file specified." (FormatMessageW).
inline std::string error_text(DWORD code) {
  wchar_t* buf = nullptr;
  const DWORD n = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
      code, 0, reinterpret_cast<wchar_t*>(&buf), 0, nullptr);
  std::string text = narrow(buf ? buf : L"", n);
  if (buf) LocalFree(buf);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return "error " + std::to_string(code) + (text.empty() ? "" : ": " + text);
}

/// error_text(GetLastError()).
inline std::string last_error() { return error_text(GetLastError()); }

/// Closes a handle once; null and INVALID_HANDLE_VALUE are ignored.
inline void close(HANDLE& h) {
  if (h && h != INVALID_HANDLE_VALUE) CloseHandle(h);
  h = nullptr;
}

}  // namespace accel::platform::win
