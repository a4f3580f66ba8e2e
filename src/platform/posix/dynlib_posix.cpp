// Run-time loading on POSIX systems: dlopen / dlsym / dladdr.
#if !defined(_WIN32)

#include <dlfcn.h>

#include "platform/detail.hpp"

namespace accel::platform::detail {

DynLib DynLib::open(const std::vector<std::string>& names) {
  DynLib lib;
  for (const auto& name : names) {
    dlerror();
    // RTLD_LOCAL: the vendor library's symbols must not interpose on ours or torch's.
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h) {
      lib.handle = h;
      lib.name = name;
      lib.error.clear();
      return lib;
    }
    const char* e = dlerror();
    if (!lib.error.empty()) lib.error += "; ";
    lib.error += e ? e : name + ": dlopen failed";
  }
  return lib;
}

void* DynLib::sym(const char* symbol) const { return handle ? dlsym(handle, symbol) : nullptr; }

void* global_symbol(const char* symbol) { return dlsym(RTLD_DEFAULT, symbol); }

std::string object_of_address(const void* address) {
  Dl_info info{};
  if (!address || dladdr(address, &info) == 0 || !info.dli_fname) return {};
  return info.dli_fname;
}

}  // namespace accel::platform::detail

#endif  // !_WIN32
