#include <unistd.h>

#include "platform/process.hpp"

namespace accel::platform {

unsigned long process_id() { return static_cast<unsigned long>(getpid()); }

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
