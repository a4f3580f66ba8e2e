// Last words on an unhandled exception (SetUnhandledExceptionFilter): the
// exception code with its name, the phase of the run and the faulting
// address, on standard error; then the process ends with the exception code
// as its exit code, which is how Windows reports a crashed process anyway.
// abort() (std::terminate) is caught through SIGABRT, as on POSIX.
#include <csignal>
#include <cstdio>
#include <cstring>

#include "platform/crash_handler.hpp"
#include "platform/detail.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform {

namespace {
char g_phase[201] = "start-up";
// Static: a stack overflow leaves little stack to format on.
char g_message[1024];

void write_stderr(const char* s) {
  DWORD written = 0;
  WriteFile(GetStdHandle(STD_ERROR_HANDLE), s, static_cast<DWORD>(std::strlen(s)), &written, nullptr);
}

const char* const k_please =
    "Please report it with the command line and this message "
    "(the measurements of this run so far are lost; `--json` reports of earlier runs are not affected):\n";

LONG WINAPI on_unhandled_exception(EXCEPTION_POINTERS* info) {
  const DWORD code = info && info->ExceptionRecord ? info->ExceptionRecord->ExceptionCode : 0;
  const void* address = info && info->ExceptionRecord ? info->ExceptionRecord->ExceptionAddress : nullptr;
  const char* name = detail::windows_exception_name(code);
  std::snprintf(g_message, sizeof g_message,
                "\naccel-doctor: internal error: exception 0x%08lX (%s) during: %s\n%sinstruction: %p\n",
                static_cast<unsigned long>(code), name[0] ? name : "unknown", g_phase, k_please, address);
  write_stderr(g_message);
  TerminateProcess(GetCurrentProcess(), code);
  return EXCEPTION_EXECUTE_HANDLER;
}

void on_abort(int) {
  std::snprintf(g_message, sizeof g_message, "\naccel-doctor: internal error: abort (SIGABRT) during: %s\n%s",
                g_phase, k_please);
  write_stderr(g_message);
  std::signal(SIGABRT, SIG_DFL);
  std::raise(SIGABRT);
}
}  // namespace

void install_crash_handler() {
  SetUnhandledExceptionFilter(on_unhandled_exception);
  std::signal(SIGABRT, on_abort);
}

void set_crash_phase(const char* phase) {
  std::strncpy(g_phase, phase ? phase : "", sizeof(g_phase) - 1);
  g_phase[sizeof(g_phase) - 1] = '\0';
}

}  // namespace accel::platform
