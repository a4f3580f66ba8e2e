// Worker processes on Windows: CreateProcessW with three pipes, in a job
// object (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE) so that killing the worker, or
// this process ending, also ends every process the worker started. One
// thread per output pipe reads it as it comes (stdout into a buffer read line
// by line, stderr into a tail of bounded size), so a child writing a lot to
// stderr never blocks on a full pipe. An exit code that is an NTSTATUS
// exception code (0xC0000005, ...) is reported as a crash.
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "platform/detail.hpp"
#include "platform/subprocess.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform {

/// What the reader threads and the Subprocess share. The threads hold a
/// reference, so it outlives a Subprocess destroyed while they still read.
struct WindowsChild {
  HANDLE process = nullptr;
  HANDLE job = nullptr;
  HANDLE stdin_write = nullptr;

  std::mutex mutex;
  std::condition_variable changed;
  std::string out;
  bool out_eof = false;
  std::string err_tail;
  std::size_t err_limit = 0;
  bool err_tee = false;  ///< ChildStderr::tee: also copied to our stderr
  bool err_eof = false;

  ~WindowsChild() {
    win::close(stdin_write);
    win::close(job);  // kills whatever is still in the job
    win::close(process);
  }
};

namespace {

// Inheritable handles exist between CreatePipe and the CreateProcess that
// takes them; two spawns at once must not hand each other their pipe ends.
std::mutex g_spawn_mutex;

ExitInfo exit_info_from_code(DWORD code) {
  ExitInfo info;
  if (detail::is_windows_exception_code(code)) {
    info.exception = true;
    info.exception_ntstatus = code;
  } else {
    info.exited = true;
    info.code = static_cast<int>(code);
  }
  return info;
}

/// How the (ended) child ended, once stderr had a moment to drain into
/// `stderr_tail`, so a crash message is not lost.
ExitInfo reap(WindowsChild& w, std::string& stderr_tail) {
  DWORD code = 0;
  GetExitCodeProcess(w.process, &code);
  std::unique_lock<std::mutex> lock(w.mutex);
  w.changed.wait_for(lock, std::chrono::milliseconds(200), [&] { return w.err_eof; });
  stderr_tail = w.err_tail;
  return exit_info_from_code(code);
}

/// Reads `pipe` until it breaks (every writer closed), passing each chunk on.
template <typename OnData>
void read_pipe(HANDLE pipe, std::shared_ptr<WindowsChild> shared, bool is_stdout, OnData on_data) {
  char buf[65536];
  for (;;) {
    DWORD got = 0;
    if (!ReadFile(pipe, buf, sizeof buf, &got, nullptr) || got == 0) break;
    on_data(*shared, buf, got);
  }
  CloseHandle(pipe);
  {
    std::lock_guard<std::mutex> lock(shared->mutex);
    (is_stdout ? shared->out_eof : shared->err_eof) = true;
  }
  shared->changed.notify_all();
}

struct Pipe {
  HANDLE read = nullptr;
  HANDLE write = nullptr;
  ~Pipe() {
    win::close(read);
    win::close(write);
  }
};

/// A pipe whose `child_end` ("read" or "write") is inheritable, the other not.
void make_pipe(Pipe& p, bool child_reads) {
  SECURITY_ATTRIBUTES sa{};
  sa.nLength = sizeof sa;
  sa.bInheritHandle = TRUE;
  if (!CreatePipe(&p.read, &p.write, &sa, 0)) throw SubprocessError("CreatePipe: " + win::last_error());
  HANDLE parent_end = child_reads ? p.write : p.read;
  if (!SetHandleInformation(parent_end, HANDLE_FLAG_INHERIT, 0)) {
    throw SubprocessError("SetHandleInformation: " + win::last_error());
  }
}

}  // namespace

std::string ExitInfo::describe() const {
  if (exited) return fmt::format("exit code {}", code);
  if (exception) return describe_exception(exception_ntstatus);
  if (signaled) return fmt::format("signal {}", signal);
  return "still running";
}

Subprocess Subprocess::spawn(const std::vector<std::string>& argv, std::size_t stderr_tail_bytes,
                             ChildStderr stderr_mode) {
  if (argv.empty()) throw SubprocessError("spawn: empty argv");
  auto shared = std::make_shared<WindowsChild>();
  shared->err_limit = stderr_tail_bytes;
  shared->err_tee = stderr_mode == ChildStderr::tee;

  shared->job = CreateJobObjectW(nullptr, nullptr);
  if (!shared->job) throw SubprocessError("CreateJobObject: " + win::last_error());
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits{};
  // Closing the job (kill(), the destructor, or this process ending) ends
  // every process in it; a crash ends the process at once instead of waiting
  // on an error-reporting dialog.
  limits.BasicLimitInformation.LimitFlags =
      JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
  if (!SetInformationJobObject(shared->job, JobObjectExtendedLimitInformation, &limits, sizeof limits)) {
    throw SubprocessError("SetInformationJobObject: " + win::last_error());
  }

  std::wstring application = win::widen(argv[0]);
  std::wstring command_line = win::widen(detail::windows_command_line(argv));
  PROCESS_INFORMATION pi{};
  HANDLE stdout_read = nullptr, stderr_read = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_spawn_mutex);
    Pipe in, out, err;
    make_pipe(in, true);
    make_pipe(out, false);
    make_pipe(err, false);

    STARTUPINFOW si{};
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = in.read;
    si.hStdOutput = out.write;
    si.hStdError = err.write;
    // Suspended until it is in the job, so nothing it starts escapes the job.
    const DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW;
    if (!CreateProcessW(application.c_str(), &command_line[0], nullptr, nullptr, TRUE, flags, nullptr,
                        nullptr, &si, &pi)) {
      throw SubprocessError(fmt::format("CreateProcess {}: {}", argv[0], win::last_error()));
    }
    shared->process = pi.hProcess;
    if (!AssignProcessToJobObject(shared->job, pi.hProcess)) {
      const std::string why = win::last_error();
      TerminateProcess(pi.hProcess, 1);
      CloseHandle(pi.hThread);
      throw SubprocessError("AssignProcessToJobObject: " + why);
    }
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    // Keep the parent's ends; the child's ends close with the Pipe objects.
    std::swap(shared->stdin_write, in.write);
    std::swap(stdout_read, out.read);
    std::swap(stderr_read, err.read);
  }

  std::thread(read_pipe<void (*)(WindowsChild&, const char*, DWORD)>, stdout_read, shared, true,
              [](WindowsChild& w, const char* data, DWORD n) {
                {
                  std::lock_guard<std::mutex> lock(w.mutex);
                  w.out.append(data, n);
                }
                w.changed.notify_all();
              })
      .detach();
  std::thread(read_pipe<void (*)(WindowsChild&, const char*, DWORD)>, stderr_read, shared, false,
              [](WindowsChild& w, const char* data, DWORD n) {
                if (w.err_tee) {
                  DWORD written = 0;
                  WriteFile(GetStdHandle(STD_ERROR_HANDLE), data, n, &written, nullptr);
                }
                std::lock_guard<std::mutex> lock(w.mutex);
                w.err_tail.append(data, n);
                if (w.err_tail.size() > w.err_limit) w.err_tail.erase(0, w.err_tail.size() - w.err_limit);
              })
      .detach();

  Subprocess p;
  p.pid_ = static_cast<int>(pi.dwProcessId);
  p.stderr_limit_ = stderr_tail_bytes;
  p.stderr_tee_ = shared->err_tee;
  p.win_ = std::move(shared);
  return p;
}

Subprocess::Subprocess(Subprocess&& o) noexcept { *this = std::move(o); }

Subprocess& Subprocess::operator=(Subprocess&& o) noexcept {
  if (this != &o) {
    if (win_ && !exit_) kill();
    take_common_state(o);
    win_ = std::move(o.win_);
  }
  return *this;
}

Subprocess::~Subprocess() {
  if (win_ && !exit_) kill();
}

void Subprocess::write_stdin_and_close(const std::string& data) {
  if (!win_) return;
  std::size_t off = 0;
  while (off < data.size() && win_->stdin_write) {
    const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(data.size() - off, 1 << 20));
    DWORD written = 0;
    if (!WriteFile(win_->stdin_write, data.data() + off, chunk, &written, nullptr)) break;  // child gone
    off += written;
  }
  win::close(win_->stdin_write);
}

Subprocess::ReadResult Subprocess::read_line(std::string& line, std::chrono::milliseconds timeout) {
  if (!win_) return ReadResult::eof;
  std::unique_lock<std::mutex> lock(win_->mutex);
  const auto ready = [&] { return win_->out.find('\n') != std::string::npos || win_->out_eof; };
  if (!win_->changed.wait_for(lock, timeout, ready)) {
    stderr_tail_ = win_->err_tail;
    return ReadResult::timeout;
  }
  const auto nl = win_->out.find('\n');
  if (nl != std::string::npos) {
    line = win_->out.substr(0, nl);
    win_->out.erase(0, nl + 1);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return ReadResult::line;
  }
  if (!win_->out.empty()) {
    line = std::move(win_->out);
    win_->out.clear();
    return ReadResult::line;
  }
  // End of output: give stderr a moment, so a crash message is not lost.
  win_->changed.wait_for(lock, std::chrono::milliseconds(200), [&] { return win_->err_eof; });
  stderr_tail_ = win_->err_tail;
  return ReadResult::eof;
}

ExitInfo Subprocess::kill() {
  if (exit_) return *exit_;
  if (!win_) return ExitInfo{};
  // The whole job: the worker and anything it started.
  if (!TerminateJobObject(win_->job, 1)) TerminateProcess(win_->process, 1);
  WaitForSingleObject(win_->process, 10000);
  exit_ = reap(*win_, stderr_tail_);
  return *exit_;
}

ExitInfo Subprocess::wait(std::chrono::milliseconds timeout) {
  if (exit_) return *exit_;
  if (!win_) return ExitInfo{};
  const auto ms = static_cast<DWORD>(std::min<long long>(timeout.count(), 0x7fffffff));
  if (WaitForSingleObject(win_->process, ms) != WAIT_OBJECT_0) return kill();
  exit_ = reap(*win_, stderr_tail_);
  // Anything the worker left running goes with it.
  TerminateJobObject(win_->job, 1);
  return *exit_;
}

std::string self_executable_path() {
  std::wstring buf(MAX_PATH, L'\0');
  for (;;) {
    const DWORD n = GetModuleFileNameW(nullptr, &buf[0], static_cast<DWORD>(buf.size()));
    if (n == 0) return {};
    if (n < buf.size()) return win::narrow(buf.data(), n);
    buf.resize(buf.size() * 2);  // truncated
    if (buf.size() > 32768) return {};
  }
}

}  // namespace accel::platform
