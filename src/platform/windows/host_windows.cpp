// probe_host on Windows: RtlGetVersion (loaded from ntdll at run time: it
// does not lie about the version as GetVersionEx does to unmanifested
// programs), the registry (CPU name and rated clock, DisplayVersion),
// GetLogicalProcessorInformationEx, CPUID and XCR0 (x86 SIMD extensions),
// GlobalMemoryStatusEx, the process affinity mask and its job's memory limit.
// Nothing throws; what is not read is named in not_collected.
#include "platform/windows/win_util.hpp"  // windows.h, which psapi.h needs first

#include <psapi.h>

#if defined(_M_X64) || defined(__x86_64__) || defined(_M_IX86) || defined(__i386__)
#define ACCEL_X86 1
#include <intrin.h>
#endif

#include <bitset>
#include <cstring>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform {

using namespace detail;

namespace {

const wchar_t* const k_cpu_key = L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0";

std::optional<std::string> registry_string(HKEY root, const wchar_t* key, const wchar_t* value) {
  DWORD bytes = 0;
  if (RegGetValueW(root, key, value, RRF_RT_REG_SZ, nullptr, nullptr, &bytes) != ERROR_SUCCESS)
    return std::nullopt;
  std::wstring buf(bytes / sizeof(wchar_t) + 1, L'\0');
  if (RegGetValueW(root, key, value, RRF_RT_REG_SZ, nullptr, &buf[0], &bytes) != ERROR_SUCCESS)
    return std::nullopt;
  buf.resize(wcsnlen(buf.c_str(), buf.size()));
  return trim(win::narrow(buf));
}

std::optional<DWORD> registry_dword(HKEY root, const wchar_t* key, const wchar_t* value) {
  DWORD v = 0, bytes = sizeof v;
  if (RegGetValueW(root, key, value, RRF_RT_REG_DWORD, nullptr, &v, &bytes) != ERROR_SUCCESS)
    return std::nullopt;
  return v;
}

void probe_os(HostInfo& h) {
  // NTSTATUS RtlGetVersion(PRTL_OSVERSIONINFOW) (wdm.h).
  using RtlGetVersionFn = LONG(WINAPI*)(OSVERSIONINFOW*);
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  const auto get_version =
      ntdll
          ? reinterpret_cast<RtlGetVersionFn>(reinterpret_cast<void*>(GetProcAddress(ntdll, "RtlGetVersion")))
          : nullptr;
  OSVERSIONINFOW v{};
  v.dwOSVersionInfoSize = sizeof v;
  if (!get_version || get_version(&v) != 0) {
    h.not_collected["os"] = h.not_collected["kernel"] = "RtlGetVersion is not available in ntdll.dll";
    return;
  }
  const auto display = registry_string(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion",
                                       L"DisplayVersion");
  h.os = windows_os_name(v.dwMajorVersion, v.dwMinorVersion, v.dwBuildNumber, display.value_or(""));
  h.kernel = fmt::format("Windows NT {}.{}.{}", v.dwMajorVersion, v.dwMinorVersion, v.dwBuildNumber);
  // Wine says so (ntdll exports wine_get_version): its answers are its own, not a real Windows'.
  using WineVersionFn = const char*(CDECL*)();
  if (const auto wine = reinterpret_cast<WineVersionFn>(
          reinterpret_cast<void*>(GetProcAddress(ntdll, "wine_get_version")))) {
    h.kernel += fmt::format(" (Wine {})", wine());
  }
}

void probe_arch(HostInfo& h) {
  SYSTEM_INFO si{};
  GetNativeSystemInfo(&si);
  switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
      h.arch = "x86_64";
      break;
    case PROCESSOR_ARCHITECTURE_INTEL:
      h.arch = "x86";
      break;
#if defined(PROCESSOR_ARCHITECTURE_ARM64)
    case PROCESSOR_ARCHITECTURE_ARM64:
      h.arch = "aarch64";
      break;
#endif
    default:
      h.not_collected["arch"] = fmt::format("unknown processor architecture {}", si.wProcessorArchitecture);
  }
}

#if defined(ACCEL_X86)
std::uint64_t read_xcr0() {
#if defined(_MSC_VER)
  return _xgetbv(0);
#else
  std::uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<std::uint64_t>(hi) << 32) | lo;
#endif
}

X86Cpuid read_cpuid(std::string& brand) {
  X86Cpuid r;
  int regs[4] = {0, 0, 0, 0};
  __cpuid(regs, 0);
  const int max_leaf = regs[0];
  __cpuid(regs, 1);
  r.leaf1_ecx = static_cast<std::uint32_t>(regs[2]);
  if (max_leaf >= 7) {
    __cpuidex(regs, 7, 0);
    const int max_sub = regs[0];
    r.leaf7_ebx = static_cast<std::uint32_t>(regs[1]);
    r.leaf7_ecx = static_cast<std::uint32_t>(regs[2]);
    r.leaf7_edx = static_cast<std::uint32_t>(regs[3]);
    if (max_sub >= 1) {
      __cpuidex(regs, 7, 1);
      r.leaf7_1_eax = static_cast<std::uint32_t>(regs[0]);
    }
  }
  if ((r.leaf1_ecx >> 27) & 1u) r.xcr0 = read_xcr0();  // OSXSAVE: xgetbv may be used
  __cpuid(regs, static_cast<int>(0x80000000u));
  if (static_cast<std::uint32_t>(regs[0]) >= 0x80000004u) {
    char text[49] = {0};
    for (unsigned i = 0; i < 3; ++i) {
      __cpuid(regs, static_cast<int>(0x80000002u + i));
      std::memcpy(text + 16 * i, regs, 16);
    }
    brand = trim(text);
  }
  return r;
}
#endif

void probe_cpu(HostInfo& h) {
  std::string brand;
#if defined(ACCEL_X86)
  const X86Cpuid regs = read_cpuid(brand);
  h.simd = simd_flags_of_interest(x86_flags_from_cpuid(regs));
  if (h.simd.empty()) h.not_collected["simd"] = "none of the SIMD extensions accel-doctor looks for";
#else
  h.not_collected["simd"] = "the SIMD extensions are read only on x86 under Windows";
#endif
  if (auto name = registry_string(HKEY_LOCAL_MACHINE, k_cpu_key, L"ProcessorNameString");
      name && !name->empty()) {
    h.cpu_model = *name;
  } else if (!brand.empty()) {
    h.cpu_model = brand;
  } else {
    h.not_collected["cpu_model"] = "neither the registry's ProcessorNameString nor CPUID names the CPU";
  }
  if (auto mhz = registry_dword(HKEY_LOCAL_MACHINE, k_cpu_key, L"~MHz"); mhz && *mhz > 0) {
    h.cpu_max_mhz = static_cast<double>(*mhz);
    h.cpu_clock_source = "registry ~MHz: the rated clock Windows records at boot, boost clocks are higher";
  } else {
    h.not_collected["cpu_max_mhz"] =
        "no ~MHz value in the registry (HKLM\\HARDWARE\\...\\CentralProcessor\\0)";
  }
  h.not_collected["cpu_governor"] = "the Windows power plan is not read yet";
}

void probe_cores(HostInfo& h) {
  DWORD bytes = 0;
  GetLogicalProcessorInformationEx(RelationProcessorCore, nullptr, &bytes);
  std::vector<unsigned char> buf(bytes);
  if (bytes == 0 || !GetLogicalProcessorInformationEx(
                        RelationProcessorCore,
                        reinterpret_cast<SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buf.data()), &bytes)) {
    h.not_collected["logical_cores"] = h.not_collected["physical_cores"] =
        "GetLogicalProcessorInformationEx: " + win::last_error();
    return;
  }
  int cores = 0, logical = 0;
  for (DWORD off = 0; off < bytes;) {
    const auto* info = reinterpret_cast<const SYSTEM_LOGICAL_PROCESSOR_INFORMATION_EX*>(buf.data() + off);
    if (info->Size == 0) break;
    if (info->Relationship == RelationProcessorCore) {
      ++cores;
      for (WORD g = 0; g < info->Processor.GroupCount; ++g) {
        logical += static_cast<int>(std::bitset<64>(info->Processor.GroupMask[g].Mask).count());
      }
    }
    off += info->Size;
  }
  if (cores > 0) h.physical_cores = cores;
  if (logical > 0) h.logical_cores = logical;
  if (!h.physical_cores)
    h.not_collected["physical_cores"] = "GetLogicalProcessorInformationEx listed no core";
  if (!h.logical_cores)
    h.not_collected["logical_cores"] = "GetLogicalProcessorInformationEx listed no processor";
}

void probe_memory(HostInfo& h) {
  MEMORYSTATUSEX m{};
  m.dwLength = sizeof m;
  if (!GlobalMemoryStatusEx(&m)) {
    h.not_collected["memory_total_bytes"] = h.not_collected["memory_available_bytes"] =
        "GlobalMemoryStatusEx: " + win::last_error();
    return;
  }
  h.memory_total_bytes = m.ullTotalPhys;
  h.memory_available_bytes = m.ullAvailPhys;
}

void probe_limits(HostInfo& h) {
  DWORD_PTR process_mask = 0, system_mask = 0;
  if (GetProcessAffinityMask(GetCurrentProcess(), &process_mask, &system_mask) && process_mask) {
    // One processor group (up to 64 CPUs); a process spanning groups reports its first.
    h.affinity_cpus = static_cast<int>(std::bitset<64>(process_mask).count());
    std::string list;
    for (int i = 0; i < 64;) {
      if (!((process_mask >> i) & 1u)) {
        ++i;
        continue;
      }
      int j = i;
      while (j + 1 < 64 && ((process_mask >> (j + 1)) & 1u)) ++j;
      if (!list.empty()) list += ',';
      list += i == j ? std::to_string(i) : fmt::format("{}-{}", i, j);
      i = j + 1;
    }
    h.affinity_list = list;
  } else {
    h.not_collected["affinity_cpus"] = "GetProcessAffinityMask: " + win::last_error();
  }
  // A job object is Windows' cgroup: a memory limit of the job this process runs in.
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION job{};
  if (QueryInformationJobObject(nullptr, JobObjectExtendedLimitInformation, &job, sizeof job, nullptr) &&
      (job.BasicLimitInformation.LimitFlags & JOB_OBJECT_LIMIT_JOB_MEMORY)) {
    h.memory_limit_bytes = job.JobMemoryLimit;
  }
  h.not_collected["cpu_quota_cpus"] = "job-object CPU rate limits are not read yet";
}

}  // namespace

HostInfo probe_host(const ProbeRoots&) {
  HostInfo h;
  try {
    probe_os(h);
    h.hostname = this_host_name();
    if (h.hostname.empty()) h.not_collected["hostname"] = "GetComputerNameEx gave no DNS host name";
    probe_arch(h);
    probe_cpu(h);
    probe_cores(h);
    probe_memory(h);
    probe_limits(h);
  } catch (const std::exception& e) {
    h.not_collected["host"] = std::string("probe failed: ") + e.what();
  }
  return h;
}

std::optional<std::uint64_t> self_anonymous_rss_bytes() {
  // The private bytes (commit charge) of this process: its heap and other
  // non-file memory, the nearest Windows figure to Linux's RssAnon (it
  // counts committed pages, resident or paged out).
  PROCESS_MEMORY_COUNTERS_EX pmc{};
  pmc.cb = sizeof pmc;
  if (!GetProcessMemoryInfo(GetCurrentProcess(), reinterpret_cast<PROCESS_MEMORY_COUNTERS*>(&pmc),
                            sizeof pmc)) {
    return std::nullopt;
  }
  // No process runs on zero private bytes: 0 means not counted (Wine says 0).
  if (pmc.PrivateUsage == 0) return std::nullopt;
  return static_cast<std::uint64_t>(pmc.PrivateUsage);
}

}  // namespace accel::platform
