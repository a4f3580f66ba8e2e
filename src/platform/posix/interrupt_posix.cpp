#include <signal.h>

#include <atomic>

#include "platform/interrupt.hpp"

namespace accel::platform {

namespace {
volatile sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int sig) {
  if (g_interrupted) {  // the second one: stop now, as the default action would
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  g_interrupted = 1;
}
}  // namespace

void install_interrupt_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking poll returns and the run looks at the flag
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

bool interrupted() { return g_interrupted != 0; }

}  // namespace accel::platform
