// The OS seams of detail.hpp on Windows: this process's environment and id,
// and the vendor library file names.
#include "platform/detail.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform::detail {

std::vector<std::string> process_environment() {
  std::vector<std::string> entries;
  wchar_t* block = GetEnvironmentStringsW();
  if (!block) return entries;
  // "NAME=value\0NAME=value\0\0"; entries starting with '=' are the per-drive
  // current directories ("=C:=C:\\x"), which probe_env_vars skips.
  for (const wchar_t* p = block; *p;) {
    const std::size_t len = wcslen(p);
    entries.push_back(win::narrow(p, len));
    p += len + 1;
  }
  FreeEnvironmentStringsW(block);
  return entries;
}

unsigned long current_process_id() { return GetCurrentProcessId(); }

std::vector<std::string> nvml_library_names() { return {"nvml.dll", "C:\\Windows\\System32\\nvml.dll"}; }
std::vector<std::string> cuda_driver_library_names() { return {"nvcuda.dll"}; }

}  // namespace accel::platform::detail
