// The OS seams of detail.hpp on POSIX systems: this process's environment
// and id, and the vendor library file names.
#if !defined(_WIN32)

#include <unistd.h>
#if defined(__APPLE__)
#include <crt_externs.h>
#endif

#include "platform/detail.hpp"

#if !defined(__APPLE__)
extern char** environ;  // unistd.h declares it only with _GNU_SOURCE on some systems
#endif

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

unsigned long current_process_id() { return static_cast<unsigned long>(getpid()); }

std::vector<std::string> nvml_library_names() { return {"libnvidia-ml.so.1"}; }
std::vector<std::string> cuda_driver_library_names() { return {"libcuda.so.1"}; }

}  // namespace accel::platform::detail

#endif  // !_WIN32
