// Windows behaviour of src/platform/windows (run under Wine by the mingw-w64
// build): worker isolation, the crash handler, CreateProcess quoting, and the
// live probes' shape.
#include <gtest/gtest.h>

#include "platform/windows/win_util.hpp"  // windows.h, which shellapi.h needs first

#include <shellapi.h>

#include <chrono>
#include <string>
#include <vector>

#include "platform/crash_handler.hpp"
#include "platform/detail.hpp"
#include "platform/mapped_file.hpp"
#include "platform/probes.hpp"
#include "platform/process.hpp"
#include "platform/subprocess.hpp"

namespace accel::platform {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

Subprocess spawn_child(std::vector<std::string> args) {
  args.insert(args.begin(), ACCEL_ISOLATION_CHILD);
  return Subprocess::spawn(args);
}

TEST(WindowsSubprocess, LinesInLinesOutStderrTailAndExitCode) {
  auto p = spawn_child({"echo"});
  p.write_stdin_and_close("hello\n");
  std::string line;
  ASSERT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::line);
  EXPECT_EQ(line, "got hello");
  EXPECT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::eof);
  const ExitInfo e = p.wait(seconds(30));
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.code, 3);
  EXPECT_FALSE(e.crashed());
  EXPECT_EQ(p.stderr_tail(), "err");
}

TEST(WindowsSubprocess, ArgumentsArriveAsGiven) {
  const std::vector<std::string> args = {"", "a b", "a\"b", "C:\\Program Files\\x\\", "\\\"", "{\"k\": 1}"};
  std::vector<std::string> argv = {"args"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto p = spawn_child(argv);
  p.write_stdin_and_close("");
  for (const auto& a : args) {
    std::string line;
    ASSERT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::line);
    EXPECT_EQ(line, "[" + a + "]");
  }
  EXPECT_TRUE(p.wait(seconds(30)).exited);
}

TEST(WindowsSubprocess, CommandLineToArgvWAgrees) {
  const std::vector<std::string> argv = {"C:\\x.exe", "",         "a b",    "a\"b",
                                         "tail\\",    "sp ace\\", "\\\\\"", "tab\tx"};
  int n = 0;
  wchar_t** parsed = CommandLineToArgvW(win::widen(detail::windows_command_line(argv)).c_str(), &n);
  ASSERT_NE(parsed, nullptr);
  ASSERT_EQ(static_cast<std::size_t>(n), argv.size());
  for (int i = 0; i < n; ++i) EXPECT_EQ(win::narrow(parsed[i], wcslen(parsed[i])), argv[i]) << i;
  LocalFree(parsed);
}

TEST(WindowsSubprocess, AccessViolationIsACrashWithItsName) {
  auto p = spawn_child({"crash"});
  p.write_stdin_and_close("");
  std::string line;
  EXPECT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::eof);
  const ExitInfo e = p.wait(seconds(30));
  EXPECT_TRUE(e.crashed());
  EXPECT_EQ(e.exception_ntstatus, 0xC0000005u);
  EXPECT_EQ(e.describe(), "exception 0xC0000005 (ACCESS_VIOLATION)");
}

TEST(WindowsSubprocess, StackOverflowIsACrash) {
  auto p = spawn_child({"stack-overflow"});
  p.write_stdin_and_close("");
  const ExitInfo e = p.wait(seconds(60));
  EXPECT_TRUE(e.crashed()) << e.describe();
  EXPECT_EQ(e.exception_ntstatus, 0xC00000FDu) << e.describe();
}

TEST(WindowsSubprocess, CrashHandlerNamesTheExceptionAndThePhase) {
  auto p = spawn_child({"crash-handled"});
  p.write_stdin_and_close("");
  const ExitInfo e = p.wait(seconds(30));
  EXPECT_EQ(e.exception_ntstatus, 0xC0000005u) << e.describe();
  EXPECT_NE(
      p.stderr_tail().find("accel-doctor: internal error: exception 0xC0000005 (ACCESS_VIOLATION) during: "
                           "testing the crash handler"),
      std::string::npos)
      << p.stderr_tail();
}

TEST(WindowsSubprocess, HungChildIsKilledOnTimeout) {
  auto p = spawn_child({"hang"});
  p.write_stdin_and_close("");
  std::string line;
  ASSERT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::line);
  EXPECT_EQ(line, "ready");
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(p.read_line(line, milliseconds(500)), Subprocess::ReadResult::timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(450));
  const ExitInfo e = p.wait(milliseconds(200));  // still running: killed
  EXPECT_FALSE(e.crashed()) << e.describe();
  EXPECT_EQ(p.read_line(line, seconds(10)), Subprocess::ReadResult::eof);
}

TEST(WindowsSubprocess, KilledWorkerTakesItsOwnChildWithIt) {
  auto p = spawn_child({"spawn-and-hang"});
  p.write_stdin_and_close("");
  std::string line;
  ASSERT_EQ(p.read_line(line, seconds(30)), Subprocess::ReadResult::line) << p.stderr_tail();
  const DWORD grandchild_pid = static_cast<DWORD>(std::stoul(line));
  HANDLE grandchild = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, grandchild_pid);
  ASSERT_NE(grandchild, nullptr) << win::last_error();
  EXPECT_EQ(WaitForSingleObject(grandchild, 0), static_cast<DWORD>(WAIT_TIMEOUT)) << "the grandchild runs";
  p.kill();
  EXPECT_EQ(WaitForSingleObject(grandchild, 10000), static_cast<DWORD>(WAIT_OBJECT_0))
      << "the grandchild must end with the job";
  CloseHandle(grandchild);
}

TEST(WindowsSubprocess, MissingProgramThrowsWithTheReason) {
  try {
    Subprocess::spawn({"C:\\no\\such\\worker.exe"});
    FAIL() << "no exception";
  } catch (const SubprocessError& e) {
    EXPECT_NE(std::string(e.what()).find("CreateProcess C:\\no\\such\\worker.exe"), std::string::npos)
        << e.what();
  }
}

TEST(WindowsPlatform, SelfPathAndLoadedModules) {
  const std::string self = self_executable_path();
  EXPECT_NE(self.find("windows_tests.exe"), std::string::npos) << self;
  EXPECT_FALSE(loaded_library_path("kernel32").empty());
  EXPECT_EQ(loaded_library_path("no-such-library-name"), "");
  EXPECT_FALSE(detail::process_environment().empty());
  EXPECT_EQ(platform::process_id(), GetCurrentProcessId());
}

// The shape of the live probes only: Wine invents its answers (ARCHITECTURE.md).
TEST(WindowsPlatform, LiveProbesCollectOrSayWhy) {
  const HostInfo h = probe_host();
  EXPECT_EQ(h.os.rfind("Windows", 0), 0u) << h.os;
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, bool>>{{"logical_cores", h.logical_cores.has_value()},
                                                 {"physical_cores", h.physical_cores.has_value()},
                                                 {"memory_total_bytes", h.memory_total_bytes.has_value()},
                                                 {"cpu_model", !h.cpu_model.empty()},
                                                 {"arch", !h.arch.empty()}}) {
    EXPECT_TRUE(value || h.not_collected.count(field)) << field;
  }
  if (const auto rss = self_anonymous_rss_bytes()) EXPECT_GT(*rss, 0u);  // Wine: nullopt
  const DriverInfo d = probe_drivers();
  EXPECT_TRUE(d.device_nodes.empty());
  EXPECT_NE(d.not_collected.at("device_nodes").find("Windows has no GPU device nodes"), std::string::npos);
}

}  // namespace
}  // namespace accel::platform
