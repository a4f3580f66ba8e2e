// The shared objects mapped in this process, from the dynamic loader's own
// list (dl_iterate_phdr(3)), and loaded_library_path().
#if !defined(_WIN32)

#if defined(__linux__) || defined(__FreeBSD__)
#include <link.h>
#define ACCEL_HAVE_DL_ITERATE_PHDR 1
#endif

#include "platform/detail.hpp"

namespace accel::platform {

namespace detail {

std::vector<LoadedLibrary> loaded_libraries(std::string* error) {
  std::vector<LoadedLibrary> out;
#if defined(ACCEL_HAVE_DL_ITERATE_PHDR)
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) -> int {
        auto* libs = static_cast<std::vector<LoadedLibrary>*>(data);
        // The main program and the vDSO come with an empty or non-path name.
        if (info->dlpi_name && info->dlpi_name[0] == '/') libs->push_back({info->dlpi_name, {}});
        return 0;
      },
      &out);
  for (auto& lib : out) lib.real_path = real_path(lib.path);
#else
  if (error) *error = "listing loaded libraries is not implemented on this OS";
#endif
  return out;
}

}  // namespace detail

std::string loaded_library_path(const std::string& name_part) {
  try {
    for (const auto& lib : detail::loaded_libraries()) {
      const auto base = [](const std::string& p) { return p.substr(p.find_last_of('/') + 1); };
      if (detail::contains(base(lib.path), name_part) ||
          (!lib.real_path.empty() && detail::contains(base(lib.real_path), name_part))) {
        return lib.real_path.empty() ? lib.path : lib.real_path;
      }
    }
  } catch (...) {
  }
  return {};
}

}  // namespace accel::platform

#endif  // !_WIN32
