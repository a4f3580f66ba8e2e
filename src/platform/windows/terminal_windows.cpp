#include "platform/windows/win_util.hpp"

#include "platform/detail.hpp"
#include "platform/terminal.hpp"

namespace accel::platform {

namespace {
HANDLE handle_of(StdStream s) {
  return GetStdHandle(s == StdStream::out ? STD_OUTPUT_HANDLE : STD_ERROR_HANDLE);
}
}  // namespace

bool is_terminal(StdStream stream) {
  DWORD mode = 0;
  return GetConsoleMode(handle_of(stream), &mode) != 0;
}

int terminal_columns(StdStream stream, int fallback) {
  CONSOLE_SCREEN_BUFFER_INFO info{};
  if (GetConsoleScreenBufferInfo(handle_of(stream), &info)) {
    const int cols = info.srWindow.Right - info.srWindow.Left + 1;
    if (cols > 20) return cols;
  }
  return detail::columns_from_environment(fallback);
}

}  // namespace accel::platform
