// This process on POSIX systems: its id, its standard output, directories,
// its environment, and the vendor library file names (detail.hpp's OS seams).
#include <unistd.h>

#include <cstdlib>
#if defined(__APPLE__)
#include <crt_externs.h>
#endif

#include "platform/detail.hpp"
#include "platform/process.hpp"

#if !defined(__APPLE__)
extern char** environ;  // unistd.h declares it only with _GNU_SOURCE on some systems
#endif

namespace accel::platform {

unsigned long process_id() { return static_cast<unsigned long>(getpid()); }

bool set_environment_variable(const std::string& name, const std::string& value) {
  if (value.empty()) return unsetenv(name.c_str()) == 0;
  return setenv(name.c_str(), value.c_str(), 1) == 0;
}

std::FILE* take_stdout_for_protocol() {
  std::fflush(stdout);
  const int proto_fd = dup(STDOUT_FILENO);
  if (proto_fd < 0) return nullptr;
  std::FILE* proto = fdopen(proto_fd, "w");
  if (!proto) {
    close(proto_fd);
    return nullptr;
  }
  dup2(STDERR_FILENO, STDOUT_FILENO);
  return proto;
}

bool remove_empty_directory(const std::string& path) { return rmdir(path.c_str()) == 0; }

}  // namespace accel::platform

namespace accel::platform::detail {

std::vector<std::string> process_environment() {
#if defined(__APPLE__)
  char** env = *_NSGetEnviron();
#else
  char** env = environ;
#endif
  std::vector<std::string> entries;
  for (char** e = env; e && *e; ++e) entries.emplace_back(*e);
  return entries;
}

std::vector<std::string> nvml_library_names() { return {"libnvidia-ml.so.1"}; }
std::vector<std::string> cuda_driver_library_names() { return {"libcuda.so.1"}; }

}  // namespace accel::platform::detail
