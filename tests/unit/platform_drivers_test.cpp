// probe_drivers on recorded trees, and the pieces it reports with.
#include <gtest/gtest.h>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <algorithm>

#include "platform/detail.hpp"
#include "platform/probes.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

bool any_starts(const std::vector<std::string>& v, const std::string& prefix) {
  return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.rfind(prefix, 0) == 0; });
}

TEST(ProbeDrivers, AmdLaptop) {
  ACCEL_SKIP_ON_WINDOWS("device nodes are POSIX only");
  const ProbeRoots r = test::recorded("amd-laptop-dgpu-igpu");
  const DriverInfo d = probe_drivers(r);
  EXPECT_EQ(d.rocm_version, "6.2.4-120");
  EXPECT_EQ(d.amdgpu_driver.rfind("in-tree", 0), 0u) << d.amdgpu_driver;
  EXPECT_TRUE(d.nvidia_driver.empty());
  EXPECT_EQ(d.not_collected.count("nvidia_driver"), 1u);
  EXPECT_EQ(d.not_collected.count("cuda_driver_api"), 1u);  // vendor libraries off
  ASSERT_EQ(d.device_nodes.size(), 3u);
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/kfd: "));
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/dri/renderD128: "));
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/dri/renderD129: "));
}

TEST(ProbeDrivers, NvidiaServerFromKernelModule) {
  ACCEL_SKIP_ON_WINDOWS("device nodes are POSIX only");
  const ProbeRoots r = test::recorded("nvidia-server");
  const DriverInfo d = probe_drivers(r);
  EXPECT_EQ(d.nvidia_driver, "580.159.04");
  EXPECT_EQ(d.not_collected.count("rocm_version"), 1u);
  EXPECT_EQ(d.not_collected.count("amdgpu_driver"), 1u);
  // nvidiactl, nvidia-uvm, nvidia0; not nvidia-uvm-tools or nvidia-caps.
  ASSERT_EQ(d.device_nodes.size(), 3u) << d.device_nodes.front();
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/nvidia0: "));
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/nvidiactl: "));
  EXPECT_TRUE(any_starts(d.device_nodes, r.dev + "/nvidia-uvm: "));
}

TEST(ProbeDrivers, CpuOnlyAndNonexistentRoot) {
  const DriverInfo c = probe_drivers(test::recorded("cpu-only"));
  EXPECT_TRUE(c.device_nodes.empty());
  EXPECT_EQ(c.not_collected.count("device_nodes"), 1u);

  DriverInfo d;
  EXPECT_NO_THROW(d = probe_drivers(ProbeRoots::under("/nonexistent/accel-doctor")));
  for (const char* f :
       {"nvidia_driver", "cuda_driver_api", "rocm_version", "amdgpu_driver", "device_nodes"}) {
    EXPECT_EQ(d.not_collected.count(f), 1u) << f;
  }
}

TEST(ProbeDrivers, NodeWithoutAccessSaysWhichGroup) {
  detail::NodeAccess a;
  a.path = "/dev/kfd";
  a.owner_group = "render";
  a.mode = 0660;
  a.readable_writable = false;
  a.user_in_group = false;
  const std::string s = detail::describe_node_access(a);
  EXPECT_NE(s.find("NO read/write access"), std::string::npos) << s;
  EXPECT_NE(s.find("usermod -aG render"), std::string::npos) << s;
  a.readable_writable = true;
  EXPECT_EQ(detail::describe_node_access(a), "/dev/kfd: read/write ok (group render, mode 0660)");
}

#if !defined(_WIN32)  // device nodes and their permissions are POSIX
TEST(ProbeDrivers, UnreadableNodeIsReported) {
  if (geteuid() == 0) GTEST_SKIP() << "root may open any node";
  test::TempTree t("nodes");
  t.write("dev/kfd", "");
  ASSERT_EQ(::chmod(t.path("dev/kfd").c_str(), 0), 0);
  const DriverInfo d = probe_drivers(ProbeRoots::under(t.path()));
  ASSERT_EQ(d.device_nodes.size(), 1u);
  EXPECT_NE(d.device_nodes[0].find("NO read/write access"), std::string::npos) << d.device_nodes[0];
}
#endif

TEST(CudaDriver, ResultNamesAndVersions) {
  EXPECT_EQ(detail::cuda_result_name(100), "CUDA_ERROR_NO_DEVICE");
  EXPECT_EQ(detail::cuda_result_name(999), "CUDA_ERROR_UNKNOWN");
  EXPECT_EQ(detail::cuda_result_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_EQ(detail::cuda_result_name(34), "CUDA_ERROR_STUB_LIBRARY");
  EXPECT_EQ(detail::cuda_result_name(12345), "CUDA_ERROR_12345");
  EXPECT_EQ(detail::cuda_version_string(13000), "13.0");
  EXPECT_EQ(detail::cuda_version_string(12040), "12.4");
  EXPECT_EQ(detail::cuda_version_string(0), "");
}

TEST(Nvml, ThrottleReasons) {
  EXPECT_EQ(detail::decode_throttle_reasons(0x1), (std::vector<std::string>{"gpu_idle"}));
  EXPECT_EQ(detail::decode_throttle_reasons(0x4 | 0x40),
            (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(detail::decode_throttle_reasons(0), std::vector<std::string>{});
  EXPECT_EQ(detail::decode_throttle_reasons(0x1000), (std::vector<std::string>{"unknown_0x1000"}));
}

TEST(ProbeDrivers, LiveDoesNotThrow) {
  DriverInfo d;
  EXPECT_NO_THROW(d = probe_drivers());
  EXPECT_TRUE(!d.nvidia_driver.empty() || d.not_collected.count("nvidia_driver") == 1);
}

}  // namespace
}  // namespace accel::platform
