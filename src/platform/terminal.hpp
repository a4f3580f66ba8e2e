// The terminal the tool writes to: whether a standard stream is a terminal,
// and its width in columns. POSIX: isatty(3) and ioctl(TIOCGWINSZ);
// Windows: GetConsoleMode and GetConsoleScreenBufferInfo.
#pragma once

namespace accel::platform {

enum class StdStream { out, err };

/// True when `stream` is an interactive terminal (not a pipe or a file).
bool is_terminal(StdStream stream);

/// The width of the terminal behind `stream` in columns, else $COLUMNS
/// (when above 20), else `fallback`. Widths of 20 or less are ignored.
int terminal_columns(StdStream stream, int fallback);

}  // namespace accel::platform
