// Run-time loading on Windows: LoadLibrary / GetProcAddress. The global
// symbol search of POSIX (dlsym(RTLD_DEFAULT)) has no direct equivalent and
// answers "not found" here. The list of loaded modules: loaded_libs_windows.cpp.
#if defined(_WIN32)

#include "platform/detail.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform::detail {

DynLib DynLib::open(const std::vector<std::string>& names) {
  DynLib lib;
  for (const auto& name : names) {
    HMODULE h = LoadLibraryW(win::widen(name).c_str());
    if (h) {
      lib.handle = reinterpret_cast<void*>(h);
      lib.name = name;
      lib.error.clear();
      return lib;
    }
    if (!lib.error.empty()) lib.error += "; ";
    lib.error += name + ": LoadLibrary failed: " + win::last_error();
  }
  return lib;
}

void* DynLib::sym(const char* symbol) const {
  return handle ? reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle), symbol))
                : nullptr;
}

void* global_symbol(const char*) { return nullptr; }

std::string object_of_address(const void* address) {
  HMODULE module = nullptr;
  if (!GetModuleHandleExW(
          GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
          static_cast<LPCWSTR>(address), &module)) {
    return {};
  }
  wchar_t path[MAX_PATH * 4];
  const DWORD n = GetModuleFileNameW(module, path, MAX_PATH * 4);
  return n ? win::narrow(path, n) : std::string();
}

}  // namespace accel::platform::detail

#endif  // _WIN32
