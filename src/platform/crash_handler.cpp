#include "platform/crash_handler.hpp"

#include <cstring>
#include <initializer_list>

#if !defined(_WIN32)
#include <unistd.h>
#include <csignal>
#if defined(__GLIBC__)
#include <execinfo.h>
#endif
#endif

namespace accel::platform {

namespace {
char g_phase[201] = "start-up";

#if !defined(_WIN32)
void write_str(const char* s) {
  ssize_t ignored = ::write(STDERR_FILENO, s, std::strlen(s));
  (void)ignored;
}

void on_fatal(int sig) {
  // Only async-signal-safe calls below (write, backtrace_symbols_fd, raise).
  write_str("\naccel-doctor: internal error: fatal signal ");
  const char* name = sig == SIGSEGV   ? "SIGSEGV"
                     : sig == SIGBUS  ? "SIGBUS"
                     : sig == SIGFPE  ? "SIGFPE"
                     : sig == SIGILL  ? "SIGILL"
                     : sig == SIGABRT ? "SIGABRT"
                                      : "?";
  write_str(name);
  write_str(" during: ");
  write_str(g_phase);
  write_str(
      "\nPlease report it with the command line and this backtrace "
      "(the measurements of this run so far are lost; `--json` reports of earlier runs are not affected):\n");
#if defined(__GLIBC__)
  void* frames[64];
  const int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
#endif
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
#endif
}  // namespace

void install_crash_handler() {
#if !defined(_WIN32)
#if defined(__GLIBC__)
  // backtrace() loads libgcc on first use, which is not signal-safe: do it now.
  void* warm[1];
  (void)backtrace(warm, 1);
#endif
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, on_fatal);
#endif
}

void set_crash_phase(const char* phase) {
  std::strncpy(g_phase, phase ? phase : "", sizeof(g_phase) - 1);
  g_phase[sizeof(g_phase) - 1] = '\0';
}

}  // namespace accel::platform
