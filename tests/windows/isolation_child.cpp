// A worker stand-in for tests/windows/windows_tests.cpp, doing on request
// what real workers do when things go wrong:
//   isolation_child echo              a line from stdin back, "err" on stderr, exit 3
//   isolation_child args A B ...      each argument on its own line, as the C runtime parsed it
//   isolation_child crash             an access violation (0xC0000005)
//   isolation_child crash-handled     the same with accel-doctor's crash handler installed
//   isolation_child stack-overflow    unbounded recursion (0xC00000FD)
//   isolation_child hang              prints "ready", then sleeps forever
//   isolation_child spawn-and-hang    starts `isolation_child hang` (its own child),
//                                     prints that child's process id, then sleeps forever
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "platform/crash_handler.hpp"
#include "platform/subprocess.hpp"
#include "platform/windows/win_util.hpp"

namespace {

volatile int* volatile g_null = nullptr;

int recurse(int depth) {
  volatile char frame[4096];
  frame[0] = static_cast<char>(depth);
  return recurse(depth + 1) + frame[0];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "echo") {
    std::string line;
    std::getline(std::cin, line);
    std::cout << "got " << line << "\n" << std::flush;
    std::cerr << "err" << std::flush;
    return 3;
  }
  if (mode == "args") {
    for (int i = 2; i < argc; ++i) std::cout << "[" << argv[i] << "]\n";
    return 0;
  }
  if (mode == "crash-handled") {
    accel::platform::install_crash_handler();
    accel::platform::set_crash_phase("testing the crash handler");
  }
  if (mode == "crash" || mode == "crash-handled") {
    *g_null = 1;
    return 0;
  }
  if (mode == "stack-overflow") return recurse(0);
  if (mode == "hang") {
    std::cout << "ready\n" << std::flush;
    Sleep(INFINITE);
  }
  if (mode == "spawn-and-hang") {
    // Started with CreateProcess directly, as a torch worker's own helper
    // process would be: it joins this process's job without being asked.
    std::wstring line =
        L"\"" + accel::platform::win::widen(accel::platform::self_executable_path()) + L"\" hang";
    STARTUPINFOW si{};
    si.cb = sizeof si;
    PROCESS_INFORMATION pi{};
    if (!CreateProcessW(nullptr, &line[0], nullptr, nullptr, FALSE, CREATE_NO_WINDOW, nullptr, nullptr, &si,
                        &pi)) {
      std::cerr << "CreateProcess: " << accel::platform::win::last_error() << "\n";
      return 2;
    }
    std::cout << pi.dwProcessId << "\n" << std::flush;
    Sleep(INFINITE);
  }
  std::cerr << "unknown mode " << mode << "\n";
  return 2;
}
