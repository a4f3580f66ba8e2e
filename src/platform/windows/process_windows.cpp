#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <windows.h>

#include "platform/process.hpp"

namespace accel::platform {

unsigned long process_id() { return static_cast<unsigned long>(GetCurrentProcessId()); }

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
