// A child process with pipes, for running checks in an isolated worker.
// POSIX: fork/exec (posix/subprocess_posix.cpp). Windows: CreateProcessW in a
// job object that kills the child's own children with it, one thread per pipe
// (windows/subprocess_windows.cpp). Elsewhere spawn() throws SubprocessError
// and callers fall back to in-process runs.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace accel::platform {

struct SubprocessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How a child ended.
struct ExitInfo {
  bool exited = false;  ///< normal exit; `code` is the exit status
  int code = 0;
  bool signaled = false;  ///< killed by a signal; `signal` is its number
  int signal = 0;
  /// Windows: ended by an unhandled exception; its NTSTATUS code is the exit
  /// code (0xC0000005 access violation, 0xC00000FD stack overflow, ...).
  bool exception = false;
  std::uint32_t exception_ntstatus = 0;
  /// A crash, not an exit: a fatal signal or an unhandled exception.
  bool crashed() const { return signaled || exception; }
  /// "exit code 1", "signal 6 (SIGABRT)", "exception 0xC0000005 (ACCESS_VIOLATION)"
  std::string describe() const;
};

/// What becomes of a child's standard error.
enum class ChildStderr {
  tail,  ///< drained continuously; the last `stderr_tail_bytes` are kept (stderr_tail())
  tee,   ///< also copied to this process's standard error as it comes (the user sees the child's messages)
};

/// "exception 0xC0000005 (ACCESS_VIOLATION)"; without the name when unknown.
std::string describe_exception(std::uint32_t code);

struct WindowsChild;  // subprocess_windows.cpp

/// A running child with its stdin writable and its stdout read line by line.
/// Its stderr is drained continuously and the last `stderr_tail_bytes` kept,
/// and, with ChildStderr::tee, copied to ours as well. On Linux a child is
/// killed when this process dies (PR_SET_PDEATHSIG), so no worker outlives
/// the run that started it.
class Subprocess {
 public:
  /// Starts argv[0] (a path) with argv. Throws SubprocessError.
  static Subprocess spawn(const std::vector<std::string>& argv, std::size_t stderr_tail_bytes = 64 * 1024,
                          ChildStderr stderr_mode = ChildStderr::tail);

  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&& other) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();  ///< kills the child if it still runs

  /// Writes all of `data` to the child's stdin, then closes it.
  void write_stdin_and_close(const std::string& data);

  enum class ReadResult { line, timeout, eof };
  /// Waits up to `timeout` for one full line on stdout (without the newline).
  ReadResult read_line(std::string& line, std::chrono::milliseconds timeout);

  /// Kills the child (SIGKILL; Windows: TerminateJobObject, its children
  /// too) and reaps it.
  ExitInfo kill();
  /// Waits for the child to exit (up to `timeout`, then kills it).
  ExitInfo wait(std::chrono::milliseconds timeout);

  /// The last bytes the child wrote to stderr.
  const std::string& stderr_tail() const { return stderr_tail_; }
  int pid() const { return pid_; }

 private:
  Subprocess() = default;
  void drain(bool block_ms_budget, int timeout_ms);
  void close_fds();
  /// Moves the state both OS halves keep (pid, output buffers, exit) from
  /// `o`, leaving it without a child; the handles are each half's to move.
  void take_common_state(Subprocess& o) noexcept {
    pid_ = o.pid_;
    out_buffer_ = std::move(o.out_buffer_);
    stderr_tail_ = std::move(o.stderr_tail_);
    stderr_limit_ = o.stderr_limit_;
    stderr_tee_ = o.stderr_tee_;
    stdout_eof_ = o.stdout_eof_;
    exit_ = o.exit_;
    o.pid_ = -1;
  }

  int pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string out_buffer_;
  std::string stderr_tail_;
  std::size_t stderr_limit_ = 0;
  bool stderr_tee_ = false;
  bool stdout_eof_ = false;
  std::optional<ExitInfo> exit_;
#if defined(_WIN32)
  std::shared_ptr<WindowsChild> win_;  ///< handles, pipe readers' state (subprocess_windows.cpp)
#endif
};

/// Absolute path of the running executable ("/proc/self/exe" on Linux,
/// GetModuleFileNameW on Windows).
std::string self_executable_path();

}  // namespace accel::platform
