// This process on Windows: its id, its standard output, directories, its
// environment, and the vendor library file names (detail.hpp's OS seams).
#include <direct.h>
#include <fcntl.h>
#include <io.h>

#include <cstdlib>

#include "platform/detail.hpp"
#include "platform/process.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform {

unsigned long process_id() { return static_cast<unsigned long>(GetCurrentProcessId()); }

bool set_environment_variable(const std::string& name, const std::string& value) {
  // _putenv_s with an empty value removes the variable.
  return _putenv_s(name.c_str(), value.c_str()) == 0;
}

std::FILE* take_stdout_for_protocol() {
  std::fflush(stdout);
  const int proto_fd = _dup(_fileno(stdout));
  if (proto_fd < 0) return nullptr;
  _setmode(proto_fd, _O_BINARY);  // "\n", not "\r\n", ends a protocol line
  std::FILE* proto = _fdopen(proto_fd, "wb");
  if (!proto) {
    _close(proto_fd);
    return nullptr;
  }
  _dup2(_fileno(stderr), _fileno(stdout));
  return proto;
}

bool remove_empty_directory(const std::string& path) { return _rmdir(path.c_str()) == 0; }

}  // namespace accel::platform

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

std::vector<std::string> nvml_library_names() { return {"nvml.dll", "C:\\Windows\\System32\\nvml.dll"}; }
std::vector<std::string> cuda_driver_library_names() { return {"nvcuda.dll"}; }

}  // namespace accel::platform::detail
