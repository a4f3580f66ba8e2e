// The modules (DLLs) loaded in this process: EnumProcessModules and
// GetModuleFileNameW. Windows has no symlinks in the loader's view, so a
// library's real path is its path.
#include "platform/windows/win_util.hpp"  // windows.h, which psapi.h needs first

#include <psapi.h>

#include "platform/detail.hpp"

namespace accel::platform::detail {

std::vector<LoadedLibrary> loaded_libraries(std::string* error) {
  std::vector<LoadedLibrary> out;
  HANDLE self = GetCurrentProcess();
  std::vector<HMODULE> modules(256);
  for (;;) {
    DWORD needed = 0;
    if (!EnumProcessModules(self, modules.data(), static_cast<DWORD>(modules.size() * sizeof(HMODULE)),
                            &needed)) {
      if (error) *error = "EnumProcessModules: " + win::last_error();
      return out;
    }
    const std::size_t count = needed / sizeof(HMODULE);
    if (count <= modules.size()) {
      modules.resize(count);
      break;
    }
    modules.resize(count + 16);  // more were loaded meanwhile
  }
  for (HMODULE m : modules) {
    wchar_t path[MAX_PATH * 4];
    const DWORD n = GetModuleFileNameW(m, path, MAX_PATH * 4);
    if (n == 0) continue;
    LoadedLibrary lib;
    lib.path = win::narrow(path, n);
    lib.real_path = lib.path;
    out.push_back(std::move(lib));
  }
  return out;
}

}  // namespace accel::platform::detail

namespace accel::platform {

std::string loaded_library_path(const std::string& name_part) {
  try {
    for (const auto& lib : detail::loaded_libraries()) {
      const auto slash = lib.path.find_last_of("\\/");
      const std::string file = slash == std::string::npos ? lib.path : lib.path.substr(slash + 1);
      if (detail::contains(file, name_part)) return lib.path;
    }
  } catch (...) {
  }
  return {};
}

}  // namespace accel::platform
