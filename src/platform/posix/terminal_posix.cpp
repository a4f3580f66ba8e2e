#include <sys/ioctl.h>
#include <unistd.h>

#include "platform/detail.hpp"
#include "platform/terminal.hpp"

namespace accel::platform {

namespace {
int fd_of(StdStream s) { return s == StdStream::out ? STDOUT_FILENO : STDERR_FILENO; }
}  // namespace

bool is_terminal(StdStream stream) { return isatty(fd_of(stream)) != 0; }

int terminal_columns(StdStream stream, int fallback) {
  winsize ws{};
  if (ioctl(fd_of(stream), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return detail::columns_from_environment(fallback);
}

}  // namespace accel::platform
