// Last words on a fatal signal: which phase of the run was going on, and a
// backtrace, on standard error, so a crash of accel-doctor itself (not of a
// check: those run in worker processes) can be reported and fixed.
#pragma once

namespace accel::platform {

/// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT (POSIX;
/// a no-op elsewhere). The handler writes "accel-doctor: internal error:
/// fatal signal ..." with the current phase and the backtrace to stderr, then
/// re-raises the signal with the default action (exit status 128 + signal).
void install_crash_handler();

/// Names what the process is doing now (copied, at most 200 bytes), for the
/// crash message. Not thread-safe against concurrent callers; cheap.
void set_crash_phase(const char* phase);

}  // namespace accel::platform
