// Run-time loading on Windows: LoadLibrary / GetProcAddress. The global
// symbol search of POSIX (dlsym(RTLD_DEFAULT)) has no direct equivalent and
// answers "not found" here.
#if defined(_WIN32)

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "platform/detail.hpp"

namespace accel::platform::detail {

DynLib DynLib::open(const std::vector<std::string>& names) {
  DynLib lib;
  for (const auto& name : names) {
    HMODULE h = LoadLibraryA(name.c_str());
    if (h) {
      lib.handle = reinterpret_cast<void*>(h);
      lib.name = name;
      lib.error.clear();
      return lib;
    }
    if (!lib.error.empty()) lib.error += "; ";
    lib.error += name + ": LoadLibrary failed with error " + std::to_string(GetLastError());
  }
  return lib;
}

void* DynLib::sym(const char* symbol) const {
  return handle ? reinterpret_cast<void*>(GetProcAddress(reinterpret_cast<HMODULE>(handle), symbol))
                : nullptr;
}

void* global_symbol(const char*) { return nullptr; }

std::string object_of_address(const void*) { return {}; }

std::vector<LoadedLibrary> loaded_libraries(std::string* error) {
  if (error) *error = "listing loaded libraries is not implemented on this OS";
  return {};
}

}  // namespace accel::platform::detail

namespace accel::platform {
std::string loaded_library_path(const std::string&) { return {}; }
}  // namespace accel::platform

#endif  // _WIN32
