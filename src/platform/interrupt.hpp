// Ctrl-C as a request, not a kill: the first interrupt sets a flag the run
// polls (it stops its engine, keeps what was measured, writes the partial
// report and exits 130, cli/app.hpp); a second one ends the process at once.
// POSIX: SIGINT and SIGTERM; Windows: CTRL_C, CTRL_BREAK and CTRL_CLOSE.
#pragma once

namespace accel::platform {

/// Installs the handler (once; later calls do nothing).
void install_interrupt_handler();

/// True once an interrupt arrived (async-signal-safe flag).
bool interrupted();

}  // namespace accel::platform
