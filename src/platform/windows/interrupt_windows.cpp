#include <windows.h>

#include <atomic>

#include "platform/interrupt.hpp"

namespace accel::platform {

namespace {
std::atomic<bool> g_interrupted{false};

BOOL WINAPI on_console_event(DWORD event) {
  if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
  if (g_interrupted.exchange(true)) return FALSE;  // the second one: the default handler ends the process
  return TRUE;
}
}  // namespace

void install_interrupt_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  SetConsoleCtrlHandler(on_console_event, TRUE);
}

bool interrupted() { return g_interrupted.load(); }

}  // namespace accel::platform
