#include "platform/crash_handler.hpp"

#include <cstdint>
#include <cstring>
#include <initializer_list>

#if !defined(_WIN32)
#include <unistd.h>
#include <csignal>
#if defined(__GLIBC__)
#include <dlfcn.h>
#include <execinfo.h>
#include <ucontext.h>
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

#if defined(__GLIBC__)
void write_hex(std::uintptr_t v) {
  char buf[2 + 16 + 1] = "0x";
  int n = 2;
  bool started = false;
  for (int shift = 60; shift >= 0; shift -= 4) {
    const unsigned d = (v >> shift) & 0xf;
    if (!d && !started && shift) continue;
    started = true;
    buf[n++] = static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
  }
  buf[n] = '\0';
  write_str(buf);
}

/// "0x... (file+0xoffset)": the offset is what addr2line -e FILE takes.
void write_address(const char* label, std::uintptr_t addr) {
  write_str(label);
  write_hex(addr);
  Dl_info info{};
  if (addr && dladdr(reinterpret_cast<void*>(addr), &info) && info.dli_fname) {
    write_str(" (");
    write_str(info.dli_fname);
    write_str("+");
    write_hex(addr - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
    write_str(")");
  }
  write_str("\n");
}

/// Where the fault happened. When the instruction pointer is not in any
/// loaded file (a call through a null or dangling function pointer), the
/// caller's return address (x86-64: the word on top of the stack; arm64:
/// the link register) still names the caller: the backtrace cannot unwind
/// from such a frame. Printed after the backtrace: reading the stack of a
/// broken frame could fault again and end the process.
void write_fault_context(int sig, const siginfo_t* info, const void* context) {
  // si_addr is an address only for faults the kernel raised (si_code > 0);
  // for kill/raise/abort it holds the sender's pid.
  if (info && info->si_code > 0 && sig != SIGABRT) {
    write_address("fault address: ", reinterpret_cast<std::uintptr_t>(info->si_addr));
  }
  if (!context) return;
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  write_address("instruction: ", static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]));
  const auto rsp = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
  if (rsp) write_address("top of stack: ", *reinterpret_cast<const std::uintptr_t*>(rsp));
#elif defined(__aarch64__)
  write_address("instruction: ", static_cast<std::uintptr_t>(uc->uc_mcontext.pc));
  write_address("return address: ", static_cast<std::uintptr_t>(uc->uc_mcontext.regs[30]));
#else
  (void)uc;
#endif
}
#endif

void on_fatal(int sig, siginfo_t* info, void* context) {
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
  write_fault_context(sig, info, context);
#else
  (void)info;
  (void)context;
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
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
#endif
}

void set_crash_phase(const char* phase) {
  std::strncpy(g_phase, phase ? phase : "", sizeof(g_phase) - 1);
  g_phase[sizeof(g_phase) - 1] = '\0';
}

}  // namespace accel::platform
