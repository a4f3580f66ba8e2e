#include "platform/subprocess.hpp"

#if defined(__unix__) || defined(__APPLE__)

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include <fmt/format.h>

namespace accel::platform {

namespace {
void set_cloexec(int fd) { fcntl(fd, F_SETFD, FD_CLOEXEC); }

ExitInfo decode_status(int status) {
  ExitInfo info;
  if (WIFEXITED(status)) {
    info.exited = true;
    info.code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    info.signaled = true;
    info.signal = WTERMSIG(status);
  }
  return info;
}
}  // namespace

std::string ExitInfo::describe() const {
  if (exited) return fmt::format("exit code {}", code);
  if (signaled) {
    const char* name = strsignal(signal);
    return fmt::format("signal {} ({})", signal, name ? name : "unknown");
  }
  if (exception) return describe_exception(exception_ntstatus);
  return "still running";
}

Subprocess Subprocess::spawn(const std::vector<std::string>& argv, std::size_t stderr_tail_bytes,
                             ChildStderr stderr_mode) {
  if (argv.empty()) throw SubprocessError("spawn: empty argv");
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) != 0) throw SubprocessError(fmt::format("pipe: {}", strerror(errno)));
  if (pipe(out_pipe) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    throw SubprocessError(fmt::format("pipe: {}", strerror(errno)));
  }
  if (pipe(err_pipe) != 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    throw SubprocessError(fmt::format("pipe: {}", strerror(errno)));
  }
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);

  auto close_all = [&] {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      if (fd >= 0) close(fd);
    }
  };
#if defined(__linux__)
  const pid_t parent = getpid();
#endif
  const pid_t pid = fork();
  if (pid < 0) {
    close_all();
    throw SubprocessError(fmt::format("fork: {}", strerror(errno)));
  }
  if (pid == 0) {
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close_all();
#if defined(__linux__)
    // Dies with its parent: a killed or interrupted run leaves no worker behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
#endif
    execv(cargv[0], cargv.data());
    const std::string msg = fmt::format("exec {}: {}\n", argv[0], strerror(errno));
    (void)!write(STDERR_FILENO, msg.data(), msg.size());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (err_pipe[1] >= 0) close(err_pipe[1]);
  Subprocess p;
  p.pid_ = pid;
  p.stdin_fd_ = in_pipe[1];
  p.stdout_fd_ = out_pipe[0];
  p.stderr_fd_ = err_pipe[0];
  p.stderr_limit_ = stderr_tail_bytes;
  p.stderr_tee_ = stderr_mode == ChildStderr::tee;
  for (int fd : {p.stdin_fd_, p.stdout_fd_, p.stderr_fd_}) {
    if (fd >= 0) set_cloexec(fd);
  }
  // A child that dies while we write its stdin must not kill us with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  return p;
}

Subprocess::Subprocess(Subprocess&& o) noexcept { *this = std::move(o); }

Subprocess& Subprocess::operator=(Subprocess&& o) noexcept {
  if (this != &o) {
    if (pid_ > 0 && !exit_) kill();
    close_fds();
    take_common_state(o);
    stdin_fd_ = o.stdin_fd_;
    stdout_fd_ = o.stdout_fd_;
    stderr_fd_ = o.stderr_fd_;
    o.stdin_fd_ = o.stdout_fd_ = o.stderr_fd_ = -1;
  }
  return *this;
}

Subprocess::~Subprocess() {
  if (pid_ > 0 && !exit_) kill();
  close_fds();
}

void Subprocess::close_fds() {
  for (int* fd : {&stdin_fd_, &stdout_fd_, &stderr_fd_}) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
  }
}

void Subprocess::write_stdin_and_close(const std::string& data) {
  std::size_t off = 0;
  while (off < data.size() && stdin_fd_ >= 0) {
    const ssize_t n = write(stdin_fd_, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;  // child gone; its exit status will tell
    }
    off += static_cast<std::size_t>(n);
  }
  if (stdin_fd_ >= 0) close(stdin_fd_);
  stdin_fd_ = -1;
}

void Subprocess::drain(bool /*unused*/, int timeout_ms) {
  pollfd fds[2];
  int n = 0;
  if (stdout_fd_ >= 0 && !stdout_eof_) fds[n++] = {stdout_fd_, POLLIN, 0};
  if (stderr_fd_ >= 0) fds[n++] = {stderr_fd_, POLLIN, 0};
  if (n == 0) return;
  const int rc = poll(fds, n, timeout_ms);
  if (rc <= 0) return;
  char buf[65536];
  for (int i = 0; i < n; ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const ssize_t got = read(fds[i].fd, buf, sizeof buf);
    if (fds[i].fd == stdout_fd_) {
      if (got <= 0) {
        stdout_eof_ = true;
      } else {
        out_buffer_.append(buf, static_cast<std::size_t>(got));
      }
    } else {
      if (got <= 0) {
        close(stderr_fd_);
        stderr_fd_ = -1;
      } else {
        if (stderr_tee_) (void)!write(STDERR_FILENO, buf, static_cast<std::size_t>(got));
        stderr_tail_.append(buf, static_cast<std::size_t>(got));
        if (stderr_tail_.size() > stderr_limit_) {
          stderr_tail_.erase(0, stderr_tail_.size() - stderr_limit_);
        }
      }
    }
  }
}

Subprocess::ReadResult Subprocess::read_line(std::string& line, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto nl = out_buffer_.find('\n');
    if (nl != std::string::npos) {
      line = out_buffer_.substr(0, nl);
      out_buffer_.erase(0, nl + 1);
      return ReadResult::line;
    }
    if (stdout_eof_) {
      if (!out_buffer_.empty()) {
        line = std::move(out_buffer_);
        out_buffer_.clear();
        return ReadResult::line;
      }
      // Collect what stderr still holds, so a crash message is not lost.
      for (int i = 0; i < 20 && stderr_fd_ >= 0; ++i) drain(false, 10);
      return ReadResult::eof;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return ReadResult::timeout;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    drain(false, static_cast<int>(std::min<long long>(left, 200)));
  }
}

ExitInfo Subprocess::kill() {
  if (exit_) return *exit_;
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_ = decode_status(status);
  }
  return exit_.value_or(ExitInfo{});
}

ExitInfo Subprocess::wait(std::chrono::milliseconds timeout) {
  if (exit_) return *exit_;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_ = decode_status(status);
      for (int i = 0; i < 20 && stderr_fd_ >= 0; ++i) drain(false, 10);
      return *exit_;
    }
    drain(false, 20);
  }
  return kill();
}

std::string self_executable_path() {
#if defined(__linux__)
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<std::size_t>(n));
#endif
  return {};
}

}  // namespace accel::platform

#else

namespace accel::platform {
std::string ExitInfo::describe() const {
  return exception ? describe_exception(exception_ntstatus) : "unknown";
}
Subprocess Subprocess::spawn(const std::vector<std::string>&, std::size_t) {
  throw SubprocessError("worker processes are not implemented on this OS yet; run with --no-isolate");
}
std::string self_executable_path() { return {}; }
}  // namespace accel::platform

#endif
