// Pure Windows conventions (exception codes, command-line quoting), portable
// so that the unit tests check them on Linux as well as under Wine.
#include <fmt/format.h>

#include "platform/detail.hpp"
#include "platform/subprocess.hpp"

namespace accel::platform {

std::string describe_exception(std::uint32_t code) {
  const char* name = detail::windows_exception_name(code);
  if (!*name) return fmt::format("exception 0x{:08X}", code);
  return fmt::format("exception 0x{:08X} ({})", code, name);
}

}  // namespace accel::platform

namespace accel::platform::detail {

const char* windows_exception_name(std::uint32_t code) {
  // ntstatus.h (STATUS_*) and winnt.h (EXCEPTION_*); the codes a crashed
  // process's exit code carries.
  struct Entry {
    std::uint32_t code;
    const char* name;
  };
  static constexpr Entry table[] = {
      {0x80000001u, "GUARD_PAGE_VIOLATION"},
      {0x80000002u, "DATATYPE_MISALIGNMENT"},
      {0x80000003u, "BREAKPOINT"},
      {0x80000004u, "SINGLE_STEP"},
      {0xC0000005u, "ACCESS_VIOLATION"},
      {0xC0000006u, "IN_PAGE_ERROR"},
      {0xC0000008u, "INVALID_HANDLE"},
      {0xC0000017u, "NO_MEMORY"},
      {0xC000001Du, "ILLEGAL_INSTRUCTION"},
      {0xC0000025u, "NONCONTINUABLE_EXCEPTION"},
      {0xC0000026u, "INVALID_DISPOSITION"},
      {0xC000008Cu, "ARRAY_BOUNDS_EXCEEDED"},
      {0xC000008Du, "FLOAT_DENORMAL_OPERAND"},
      {0xC000008Eu, "FLOAT_DIVIDE_BY_ZERO"},
      {0xC000008Fu, "FLOAT_INEXACT_RESULT"},
      {0xC0000090u, "FLOAT_INVALID_OPERATION"},
      {0xC0000091u, "FLOAT_OVERFLOW"},
      {0xC0000092u, "FLOAT_STACK_CHECK"},
      {0xC0000093u, "FLOAT_UNDERFLOW"},
      {0xC0000094u, "INTEGER_DIVIDE_BY_ZERO"},
      {0xC0000095u, "INTEGER_OVERFLOW"},
      {0xC0000096u, "PRIVILEGED_INSTRUCTION"},
      {0xC00000FDu, "STACK_OVERFLOW"},
      {0xC0000135u, "DLL_NOT_FOUND"},
      {0xC0000138u, "ORDINAL_NOT_FOUND"},
      {0xC0000139u, "ENTRYPOINT_NOT_FOUND"},
      {0xC000013Au, "CONTROL_C_EXIT"},
      {0xC0000142u, "DLL_INIT_FAILED"},
      {0xC0000374u, "HEAP_CORRUPTION"},
      {0xC0000409u, "STACK_BUFFER_OVERRUN"},
      {0xC0000417u, "INVALID_CRT_PARAMETER"},
      {0xC0000420u, "ASSERTION_FAILURE"},
      {0xC000041Du, "FATAL_USER_CALLBACK_EXCEPTION"},
      {0xC0000602u, "FAIL_FAST_EXCEPTION"},
      {0xE06D7363u, "CPP_EXCEPTION"},  // an unhandled C++ exception (MSVC runtime)
  };
  for (const auto& e : table) {
    if (e.code == code) return e.name;
  }
  return "";
}

bool is_windows_exception_code(std::uint32_t code) {
  return (code & 0xC0000000u) == 0xC0000000u || *windows_exception_name(code) != '\0';
}

std::string quote_windows_argument(const std::string& arg) {
  if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) return arg;
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (const char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    if (c == '"') {
      // Backslashes before a quote are escapes: double them, then escape the quote.
      out.append(backslashes * 2 + 1, '\\');
    } else {
      out.append(backslashes, '\\');
    }
    backslashes = 0;
    out += c;
  }
  // Before the closing quote, backslashes would escape it: double them.
  out.append(backslashes * 2, '\\');
  out += '"';
  return out;
}

std::string windows_command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    if (!line.empty()) line += ' ';
    line += quote_windows_argument(a);
  }
  return line;
}

}  // namespace accel::platform::detail

namespace accel::platform::detail {

std::string windows_os_name(unsigned major, unsigned minor, unsigned build,
                            const std::string& display_version) {
  std::string name;
  if (major == 10 && minor == 0) {
    name = build >= 22000 ? "Windows 11" : "Windows 10";
  } else if (major == 6 && minor >= 1 && minor <= 3) {
    name = minor == 1 ? "Windows 7" : minor == 2 ? "Windows 8" : "Windows 8.1";
  } else {
    name = fmt::format("Windows {}.{}", major, minor);
  }
  if (!display_version.empty()) name += " " + display_version;
  return fmt::format("{} ({}.{}.{})", name, major, minor, build);
}

std::vector<std::string> x86_flags_from_cpuid(const X86Cpuid& r) {
  const auto bit = [](std::uint64_t v, int b) { return ((v >> b) & 1u) != 0; };
  // XCR0: 1 SSE, 2 AVX (YMM), 5-7 AVX-512 (opmask, ZMM upper halves, ZMM16-31), 17-18 AMX (XTILECFG,
  // XTILEDATA).
  const bool os_avx = bit(r.leaf1_ecx, 27) && bit(r.xcr0, 1) && bit(r.xcr0, 2);  // OSXSAVE and YMM state
  const bool os_avx512 = os_avx && bit(r.xcr0, 5) && bit(r.xcr0, 6) && bit(r.xcr0, 7);
  const bool os_amx = os_avx && bit(r.xcr0, 17) && bit(r.xcr0, 18);
  std::vector<std::string> f;
  const auto add = [&f](bool on, const char* name) {
    if (on) f.emplace_back(name);
  };
  add(bit(r.leaf1_ecx, 20), "sse4_2");
  add(os_avx && bit(r.leaf1_ecx, 28), "avx");
  add(os_avx && bit(r.leaf7_ebx, 5), "avx2");
  add(os_avx && bit(r.leaf1_ecx, 12), "fma");
  add(os_avx && bit(r.leaf1_ecx, 29), "f16c");
  add(os_avx && bit(r.leaf7_1_eax, 4), "avx_vnni");
  add(os_avx512 && bit(r.leaf7_ebx, 16), "avx512f");
  add(os_avx512 && bit(r.leaf7_ebx, 30), "avx512bw");
  add(os_avx512 && bit(r.leaf7_ebx, 31), "avx512vl");
  add(os_avx512 && bit(r.leaf7_ecx, 11), "avx512_vnni");
  add(os_avx512 && bit(r.leaf7_1_eax, 5), "avx512_bf16");
  add(os_avx512 && bit(r.leaf7_edx, 23), "avx512_fp16");
  add(os_amx && bit(r.leaf7_edx, 24), "amx_tile");
  add(os_amx && bit(r.leaf7_edx, 22), "amx_bf16");
  add(os_amx && bit(r.leaf7_edx, 25), "amx_int8");
  add(os_amx && bit(r.leaf7_1_eax, 21), "amx_fp16");
  return f;
}

}  // namespace accel::platform::detail
