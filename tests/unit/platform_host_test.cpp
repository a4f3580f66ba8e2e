// The host probe on recorded /proc, /sys and /etc trees, and its parsers.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "platform/detail.hpp"
#include "platform/probes.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(ProbeHost, AmdLaptop) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  const HostInfo h = probe_host(test::recorded("amd-laptop-dgpu-igpu"));
  EXPECT_EQ(h.os, "Ubuntu 22.04.4 LTS");
  EXPECT_EQ(h.kernel, "Linux 6.8.0-45-generic");
  EXPECT_EQ(h.hostname, "legion5");
  EXPECT_EQ(h.cpu_model, "AMD Ryzen 7 5800H with Radeon Graphics");
  EXPECT_EQ(h.logical_cores, 16);
  EXPECT_EQ(h.physical_cores, 8);
  EXPECT_TRUE(has(h.simd, "avx2"));
  EXPECT_TRUE(has(h.simd, "fma"));
  EXPECT_TRUE(has(h.simd, "f16c"));
  EXPECT_FALSE(has(h.simd, "avx512f"));
  ASSERT_TRUE(h.memory_total_bytes.has_value());
  EXPECT_EQ(*h.memory_total_bytes, 15731220ull * 1024);
  EXPECT_EQ(*h.memory_available_bytes, 11987652ull * 1024);
  ASSERT_TRUE(h.cpu_max_mhz.has_value());
  EXPECT_DOUBLE_EQ(*h.cpu_max_mhz, 4463.0);
  EXPECT_EQ(h.cpu_governor, "powersave");
  EXPECT_TRUE(h.not_collected.empty()) << h.not_collected.begin()->first;
}

TEST(ProbeHost, XeonWithAmxAndNoCpufreq) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  const HostInfo h = probe_host(test::recorded("nvidia-server"));
  EXPECT_EQ(h.os, "Ubuntu 24.04.3 LTS");
  EXPECT_EQ(h.logical_cores, 16);
  EXPECT_EQ(h.physical_cores, 16);
  for (const char* f :
       {"avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "avx_vnni"}) {
    EXPECT_TRUE(has(h.simd, f)) << f;
  }
  // A VM has no cpufreq: the clock comes from /proc/cpuinfo's "cpu MHz",
  // labelled as a current clock.
  ASSERT_TRUE(h.cpu_max_mhz.has_value());
  EXPECT_GT(*h.cpu_max_mhz, 1000.0);
  EXPECT_NE(h.cpu_clock_source.find("/proc/cpuinfo"), std::string::npos);
  EXPECT_EQ(h.not_collected.count("cpu_max_mhz"), 0u);
  EXPECT_EQ(h.not_collected.count("cpu_governor"), 1u);
}

TEST(ProbeHost, HybridIntelTakesHighestMaxFrequency) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  const HostInfo h = probe_host(test::recorded("intel-arc-desktop"));
  EXPECT_EQ(h.os, "Fedora Linux 40 (Workstation Edition)");
  EXPECT_EQ(h.logical_cores, 24);
  EXPECT_EQ(h.physical_cores, 16);  // 8 P-cores with two threads, 8 E-cores with one
  EXPECT_DOUBLE_EQ(h.cpu_max_mhz.value_or(0), 5400.0);
  EXPECT_TRUE(has(h.simd, "avx_vnni"));
  EXPECT_FALSE(has(h.simd, "avx512f"));
}

TEST(ProbeHost, CpuOnlyContainer) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  const HostInfo h = probe_host(test::recorded("cpu-only"));
  EXPECT_EQ(h.os, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(h.cpu_model, "AMD EPYC");
  EXPECT_EQ(h.logical_cores, 2);
  EXPECT_TRUE(has(h.simd, "avx512_bf16"));
}

TEST(ProbeHost, ProcessLimitsOfAKubernetesPod) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  // A cgroup v2 pod written to the kernel's format (not recorded: see the
  // fixtures' README): affinity 0-3,8; the pod's cpu.max
  // (2 CPUs) is tighter than its parent's (4); 32 GiB memory limit.
  const HostInfo h = probe_host(test::recorded("nvidia-server"));
  EXPECT_EQ(h.affinity_list, "0-3,8");
  EXPECT_EQ(h.affinity_cpus, 5);
  ASSERT_TRUE(h.cpu_quota_cpus.has_value());
  EXPECT_DOUBLE_EQ(*h.cpu_quota_cpus, 2.0);
  EXPECT_EQ(h.memory_limit_bytes, 34359738368ull);
}

TEST(ProbeHost, UnlimitedProcessesHaveNoLimitsButAreRead) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  const HostInfo laptop = probe_host(test::recorded("amd-laptop-dgpu-igpu"));  // cgroup v2, "max"
  EXPECT_EQ(laptop.affinity_cpus, 16);
  EXPECT_FALSE(laptop.cpu_quota_cpus.has_value());
  EXPECT_FALSE(laptop.memory_limit_bytes.has_value());
  EXPECT_EQ(laptop.not_collected.count("cpu_quota_cpus"), 0u);
  const HostInfo container = probe_host(test::recorded("cpu-only"));  // cgroup v1, quota -1
  EXPECT_EQ(container.affinity_cpus, 2);
  EXPECT_FALSE(container.cpu_quota_cpus.has_value());
  EXPECT_FALSE(container.memory_limit_bytes.has_value());  // v1's ~2^63 "no limit"
  EXPECT_EQ(container.not_collected.count("cpu_quota_cpus"), 0u);
}

TEST(HostParsers, CpuListsAndCgroupFiles) {
  using namespace detail;
  EXPECT_EQ(cpu_list_count("0-3,8,10-11"), 7);
  EXPECT_EQ(cpu_list_count("0"), 1);
  EXPECT_EQ(cpu_list_count(" 0-127\n"), 128);
  EXPECT_FALSE(cpu_list_count("").has_value());
  EXPECT_FALSE(cpu_list_count("3-1").has_value());
  EXPECT_FALSE(cpu_list_count("0-3,").has_value());
  EXPECT_FALSE(cpu_list_count("x").has_value());
  EXPECT_EQ(status_field("Name:\tpy\nCpus_allowed_list:\t0-1\n", "Cpus_allowed_list"), "0-1");
  EXPECT_EQ(status_field("Cpus_allowed:\tff\n", "Cpus_allowed_list"), "");
  EXPECT_DOUBLE_EQ(cgroup2_cpu_quota("150000 100000").value_or(0), 1.5);
  EXPECT_FALSE(cgroup2_cpu_quota("max 100000").has_value());
  EXPECT_FALSE(cgroup2_cpu_quota("garbage").has_value());
  EXPECT_DOUBLE_EQ(cgroup1_cpu_quota("50000", "100000").value_or(0), 0.5);
  EXPECT_FALSE(cgroup1_cpu_quota("-1", "100000").has_value());
  EXPECT_EQ(cgroup_memory_limit("1073741824\n"), 1073741824ull);
  EXPECT_FALSE(cgroup_memory_limit("max").has_value());
  EXPECT_FALSE(cgroup_memory_limit("9223372036854771712").has_value());
  EXPECT_EQ(cgroup_path("0::/a/b\n"), "/a/b");
  EXPECT_EQ(cgroup_path("4:memory:/m\n1:cpu,cpuacct:/c\n0::/\n", "cpu"), "/c");
  EXPECT_EQ(cgroup_path("4:memory:/m\n", "memory"), "/m");
  EXPECT_FALSE(cgroup_path("4:memory:/m\n", "cpu").has_value());
}

TEST(ProbeHost, NonexistentRootSaysWhyAndDoesNotThrow) {
  ACCEL_SKIP_ON_WINDOWS("probe_host reads /proc and /sys only on Linux");
  HostInfo h;
  EXPECT_NO_THROW(h = probe_host(ProbeRoots::under("/nonexistent/accel-doctor")));
  EXPECT_TRUE(h.os.empty());
  EXPECT_TRUE(h.cpu_model.empty());
  for (const char* f : {"os", "cpu_model", "logical_cores", "simd", "memory_total_bytes", "cpu_max_mhz"}) {
    ASSERT_EQ(h.not_collected.count(f), 1u) << f;
  }
  EXPECT_NE(h.not_collected.at("os").find("/nonexistent/accel-doctor/etc/os-release"), std::string::npos);
  EXPECT_FALSE(h.kernel.empty());  // falls back to uname(2)
}

TEST(HostParsers, OsReleaseQuotingAndFallback) {
  const auto kv =
      detail::parse_os_release("# c\nNAME='Arch Linux'\nPRETTY_NAME=\"A \\\"quoted\\\" OS\"\nID=arch\n");
  EXPECT_EQ(kv.at("NAME"), "Arch Linux");
  EXPECT_EQ(kv.at("PRETTY_NAME"), "A \"quoted\" OS");
  EXPECT_EQ(kv.at("ID"), "arch");
}

TEST(HostParsers, CpuinfoArm64) {
  const auto c = detail::parse_cpuinfo(
      "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: fp asimd evtstrm aes sha1 asimdhp asimddp sve sve2 "
      "bf16 i8mm\n"
      "CPU implementer\t: 0x41\nCPU part\t: 0xd4f\n\nprocessor\t: 1\nFeatures\t: fp asimd\nCPU "
      "implementer\t: 0x41\n"
      "CPU part\t: 0xd4f\n");
  EXPECT_EQ(c.logical, 2);
  EXPECT_FALSE(c.physical.has_value());
  EXPECT_EQ(c.model, "ARM CPU (implementer 0x41, part 0xd4f)");
  const auto simd = detail::simd_flags_of_interest(c.flags);
  EXPECT_EQ(simd, (std::vector<std::string>{"asimd", "asimdhp", "asimddp", "sve", "sve2", "bf16", "i8mm"}));
}

TEST(HostParsers, Meminfo) {
  const std::string t = "MemTotal:       1000 kB\nMemAvailable:    500 kB\nHugePages_Total:       4\n";
  EXPECT_EQ(detail::meminfo_bytes(t, "MemTotal"), 1024000u);
  EXPECT_EQ(detail::meminfo_bytes(t, "MemAvailable"), 512000u);
  EXPECT_EQ(detail::meminfo_bytes(t, "HugePages_Total"), 4u);  // no unit: a count
  EXPECT_FALSE(detail::meminfo_bytes(t, "MemFree").has_value());
}

TEST(ProbeHost, LiveMachineDoesNotThrow) {
  HostInfo h;
  EXPECT_NO_THROW(h = probe_host());
#if defined(__linux__)
  EXPECT_FALSE(h.os.empty());
  EXPECT_GT(h.logical_cores.value_or(0), 0);
  EXPECT_GT(h.memory_total_bytes.value_or(0), 0u);
#endif
}

TEST(ProbeHost, SelfAnonymousRssSeesTouchedHeapMemory) {
#if defined(__linux__) || defined(_WIN32)  // RssAnon; Windows: private bytes
  const auto before = platform::self_anonymous_rss_bytes();
#if defined(_WIN32)
  if (!before) GTEST_SKIP() << "no private-bytes figure here (Wine reports 0)";
#endif
  ASSERT_TRUE(before.has_value());
  std::vector<char> block(64u << 20);
  for (std::size_t i = 0; i < block.size(); i += 4096) block[i] = 1;  // touch every page
  const auto after = platform::self_anonymous_rss_bytes();
  ASSERT_TRUE(after.has_value());
  EXPECT_GT(*after, *before + (48u << 20)) << "64 MiB touched";
  EXPECT_EQ(block[4096], 1);
#else
  EXPECT_FALSE(platform::self_anonymous_rss_bytes().has_value());
#endif
}
}  // namespace
}  // namespace accel::platform
