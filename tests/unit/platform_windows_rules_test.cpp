// The pure Windows conventions of src/platform/windows_rules.cpp (exception
// codes, command-line quoting, OS names, CPUID flags). Portable: they run on
// Linux and, in the Windows build, under Wine.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/detail.hpp"
#include "platform/subprocess.hpp"

namespace accel::platform {
namespace {

using detail::quote_windows_argument;
using detail::windows_command_line;

TEST(WindowsExceptions, NamesOfTheCodesCrashesExitWith) {
  EXPECT_STREQ(detail::windows_exception_name(0xC0000005u), "ACCESS_VIOLATION");
  EXPECT_STREQ(detail::windows_exception_name(0xC00000FDu), "STACK_OVERFLOW");
  EXPECT_STREQ(detail::windows_exception_name(0xC0000409u), "STACK_BUFFER_OVERRUN");
  EXPECT_STREQ(detail::windows_exception_name(0xC000001Du), "ILLEGAL_INSTRUCTION");
  EXPECT_STREQ(detail::windows_exception_name(0xC0000094u), "INTEGER_DIVIDE_BY_ZERO");
  EXPECT_STREQ(detail::windows_exception_name(0x80000003u), "BREAKPOINT");
  EXPECT_STREQ(detail::windows_exception_name(0xC0000135u), "DLL_NOT_FOUND");
  EXPECT_STREQ(detail::windows_exception_name(0xE06D7363u), "CPP_EXCEPTION");
  EXPECT_STREQ(detail::windows_exception_name(0xC0001234u), "");
  EXPECT_STREQ(detail::windows_exception_name(1), "");
}

TEST(WindowsExceptions, ExitCodesVersusExceptionCodes) {
  for (std::uint32_t code : {0u, 1u, 2u, 3u, 127u, 255u, 0x7FFFFFFFu}) {
    EXPECT_FALSE(detail::is_windows_exception_code(code)) << code;
  }
  // Known codes of either severity, and any error-severity NTSTATUS.
  for (std::uint32_t code : {0xC0000005u, 0x80000003u, 0xC0001234u, 0xE06D7363u, 0xFFFFFFFFu}) {
    EXPECT_TRUE(detail::is_windows_exception_code(code)) << code;
  }
  EXPECT_FALSE(detail::is_windows_exception_code(0x80001234u));  // an unknown warning-severity value
}

TEST(WindowsExceptions, ExitInfoDescribesAnExceptionAsACrash) {
  ExitInfo e;
  e.exception = true;
  e.exception_ntstatus = 0xC0000005u;
  EXPECT_TRUE(e.crashed());
  EXPECT_EQ(e.describe(), "exception 0xC0000005 (ACCESS_VIOLATION)");
  EXPECT_EQ(describe_exception(0xC00000FDu), "exception 0xC00000FD (STACK_OVERFLOW)");
  EXPECT_EQ(describe_exception(0xC0001234u), "exception 0xC0001234");
  ExitInfo normal;
  normal.exited = true;
  normal.code = 3;
  EXPECT_FALSE(normal.crashed());
  EXPECT_EQ(normal.describe(), "exit code 3");
}

/// The argument parser of CommandLineToArgvW and the C runtime (for every
/// argument after the program name), as Microsoft documents it ("Parsing C++
/// command-line arguments"): 2n backslashes before a quote give n and the quote
/// delimits; 2n+1 give n and a literal quote; other backslashes are literal; a
/// quote inside quotes followed by another quote is a literal quote.
std::vector<std::string> parse_windows_command_line(const std::string& line) {
  std::vector<std::string> args;
  std::size_t i = 0;
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (true) {
    while (i < line.size() && blank(line[i])) ++i;
    if (i >= line.size()) break;
    std::string arg;
    bool quoted = false;
    while (i < line.size() && (quoted || !blank(line[i]))) {
      std::size_t backslashes = 0;
      while (i < line.size() && line[i] == '\\') ++backslashes, ++i;
      if (i < line.size() && line[i] == '"') {
        arg.append(backslashes / 2, '\\');
        if (backslashes % 2) {
          arg += '"';
          ++i;
        } else if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
          arg += '"';
          i += 2;
        } else {
          quoted = !quoted;
          ++i;
        }
      } else {
        arg.append(backslashes, '\\');
        if (i < line.size() && (quoted || !blank(line[i]))) arg += line[i++];
      }
    }
    args.push_back(arg);
  }
  return args;
}

TEST(WindowsCommandLine, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(quote_windows_argument("plain"), "plain");
  EXPECT_EQ(quote_windows_argument("C:\\dir\\x.exe"), "C:\\dir\\x.exe");  // backslashes alone are literal
  EXPECT_EQ(quote_windows_argument(""), "\"\"");
  EXPECT_EQ(quote_windows_argument("a b"), "\"a b\"");
  EXPECT_EQ(quote_windows_argument("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(quote_windows_argument("C:\\Program Files\\x\\"), "\"C:\\Program Files\\x\\\\\"");
  EXPECT_EQ(quote_windows_argument("\\\""), "\"\\\\\\\"\"");
  EXPECT_EQ(quote_windows_argument("tab\there"), "\"tab\there\"");
  EXPECT_EQ(windows_command_line({"C:\\w.exe", "__worker", "a b", ""}), "C:\\w.exe __worker \"a b\" \"\"");
}

TEST(WindowsCommandLine, RoundTripsThroughTheDocumentedParser) {
  const std::vector<std::string> args = {
      "",
      "a",
      "a b",
      "a\"b",
      "\"",
      "\"\"",
      "\\",
      "\\\\",
      "a\\",
      "a\\ b\\",
      "a\\\"b",
      "a\\\\\"",
      "tab\tand\nnewline",
      "{\"k\": 1}",
      "C:\\Program Files\\PyTorch\\",
      "--opt=\"x y\"",
      "ünïcødé 名前",
  };
  std::vector<std::string> argv = {"prog"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto parsed = parse_windows_command_line(windows_command_line(argv));
  ASSERT_EQ(parsed.size(), argv.size()) << windows_command_line(argv);
  for (std::size_t i = 0; i < argv.size(); ++i) EXPECT_EQ(parsed[i], argv[i]) << "argument " << i;
}

TEST(WindowsOsName, ElevenFromTheBuildNumber) {
  EXPECT_EQ(detail::windows_os_name(10, 0, 22631, "23H2"), "Windows 11 23H2 (10.0.22631)");
  EXPECT_EQ(detail::windows_os_name(10, 0, 19045, "22H2"), "Windows 10 22H2 (10.0.19045)");
  EXPECT_EQ(detail::windows_os_name(10, 0, 19041, ""), "Windows 10 (10.0.19041)");
  EXPECT_EQ(detail::windows_os_name(6, 1, 7601, ""), "Windows 7 (6.1.7601)");
  EXPECT_EQ(detail::windows_os_name(6, 3, 9600, ""), "Windows 8.1 (6.3.9600)");
  EXPECT_EQ(detail::windows_os_name(6, 0, 6002, ""), "Windows 6.0 (6.0.6002)");
}

TEST(X86Cpuid, FlagsNeedTheOsToSaveTheirRegisters) {
  detail::X86Cpuid r;
  r.leaf1_ecx =
      (1u << 20) | (1u << 12) | (1u << 27) | (1u << 28) | (1u << 29);  // sse4.2 fma osxsave avx f16c
  r.leaf7_ebx = (1u << 5) | (1u << 16) | (1u << 30) | (1u << 31);      // avx2 avx512f/bw/vl
  r.leaf7_ecx = 1u << 11;                                              // avx512_vnni
  r.leaf7_edx = (1u << 22) | (1u << 24) | (1u << 25);                  // amx bf16 tile int8
  r.leaf7_1_eax = (1u << 4) | (1u << 5);                               // avx_vnni avx512_bf16
  r.xcr0 = 0x7 | 0xE0 | (3u << 17);                                    // x87 SSE AVX, AVX-512, AMX
  EXPECT_EQ(detail::x86_flags_from_cpuid(r),
            (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f",
                                      "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_tile",
                                      "amx_bf16", "amx_int8"}));
  // An OS that saves only the AVX state: no AVX-512 or AMX, whatever CPUID says.
  r.xcr0 = 0x7;
  EXPECT_EQ(detail::x86_flags_from_cpuid(r),
            (std::vector<std::string>{"sse4_2", "avx", "avx2", "fma", "f16c", "avx_vnni"}));
  // No OSXSAVE: nothing that needs the YMM state.
  r.leaf1_ecx &= ~(1u << 27);
  EXPECT_EQ(detail::x86_flags_from_cpuid(r), (std::vector<std::string>{"sse4_2"}));
}

}  // namespace
}  // namespace accel::platform
