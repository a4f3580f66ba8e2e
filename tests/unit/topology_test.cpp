// platform/topology*.cpp: the pure parsers on strings and bytes, and
// probe_topology on the recorded-layout trees of tests/fixtures/sysfs/
// (dual-gpu-acs-x4, dual-gpu-healthy, amd-dual-xgmi: written from the
// kernel's documented formats by make_topology_fixtures.py; nvidia-server:
// recorded on the H200 machine, one GPU).
#include <gtest/gtest.h>

#include "platform/probes.hpp"
#include "platform/topology_detail.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

using namespace detail;

std::string config_with_acs(std::uint16_t ctl) {
  std::string b(4096, '\0');
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i)
      b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  put32(0x100, 0x0001 | (1u << 16) | (0x148u << 20));  // AER -> 0x148
  put32(0x148, 0x000D | (1u << 16));                   // ACS, last
  b[0x14e] = static_cast<char>(ctl & 0xff);
  b[0x14f] = static_cast<char>(ctl >> 8);
  return b;
}

TEST(TopologyParse, AcsControlBits) {
  const auto a = parse_acs_config("0000:02:08.0", config_with_acs(0x1d));
  EXPECT_TRUE(a.has_acs);
  EXPECT_TRUE(a.redirects);
  EXPECT_EQ(a.enabled, (std::vector<std::string>{"SrcValid", "ReqRedir", "CmpltRedir", "UpstreamFwd"}));
  const auto sv_only = parse_acs_config("x", config_with_acs(0x01));
  EXPECT_TRUE(sv_only.has_acs);
  EXPECT_FALSE(sv_only.redirects);
}

TEST(TopologyParse, AcsNeedsTheExtendedSpace) {
  const auto a = parse_acs_config("x", std::string(64, '\0'));
  EXPECT_FALSE(a.has_acs);
  EXPECT_NE(a.error.find("needs root"), std::string::npos);
  std::string no_acs(4096, '\0');
  no_acs[0x100] = 0x01;  // AER, no next
  const auto b = parse_acs_config("x", no_acs);
  EXPECT_FALSE(b.has_acs);
  EXPECT_TRUE(b.error.empty());
  std::string loop(4096, '\0');
  loop[0x100] = 0x01;
  loop[0x102] = 0x00;
  loop[0x103] = 0x10;                                 // next = 0x100: itself
  EXPECT_FALSE(parse_acs_config("x", loop).has_acs);  // no endless walk
}

TEST(TopologyParse, ShmMountinfo) {
  const auto m = parse_shm_mountinfo(
      "25 1 0:52 / / rw - overlay overlay rw\n"
      "31 25 0:57 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k\n");
  EXPECT_TRUE(m.found);
  EXPECT_EQ(m.fstype, "tmpfs");
  EXPECT_EQ(m.size_bytes, 64ull << 20);
  const auto d =
      parse_shm_mountinfo("28 25 0:24 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64\n");
  EXPECT_TRUE(d.found);
  EXPECT_FALSE(d.size_bytes);  // tmpfs' default: half of RAM
  EXPECT_FALSE(parse_shm_mountinfo("26 1 259:2 / / rw - ext4 /dev/sda1 rw\n").found);
}

TEST(TopologyParse, ContainerAndCmdline) {
  std::string basis;
  EXPECT_EQ(container_from_proc("1 0 0:52 / / rw - overlay overlay rw\n", "", basis), true);
  EXPECT_EQ(container_from_proc("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n", "0::/kubepods.slice/pod1\n", basis),
            true);
  EXPECT_EQ(container_from_proc("1 0 8:1 / / rw - ext4 /dev/sda1 rw\n", "0::/user.slice\n", basis), false);
  EXPECT_FALSE(container_from_proc("", "", basis));
  EXPECT_EQ(
      iommu_cmdline_params("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on quiet iommu=pt pci=noats"),
      "intel_iommu=on iommu=pt pci=noats");
  EXPECT_EQ(iommu_cmdline_params("root=/dev/sda1 quiet"), "");
}

TEST(TopologyParse, IommuModes) {
  std::string basis;
  EXPECT_EQ(classify_iommu({}, {}, "", basis), "off");
  EXPECT_EQ(classify_iommu({"dmar0"}, {"DMA-FQ", "DMA"}, "intel_iommu=on", basis), "translated");
  EXPECT_NE(basis.find("DMA-FQ"), std::string::npos);
  EXPECT_EQ(classify_iommu({"ivhd0"}, {"identity"}, "iommu=pt", basis), "passthrough");
  EXPECT_EQ(classify_iommu({"dmar0"}, {}, "iommu=pt", basis), "passthrough");
  EXPECT_EQ(classify_iommu({"dmar0"}, {}, "", basis), "unknown");
}

TEST(TopologyParse, UpstreamBridges) {
  const std::string p = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0";
  EXPECT_EQ(upstream_bridges(p), (std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:02:08.0"}));
  EXPECT_EQ(host_bridge_of(p), "pci0000:00");
  EXPECT_TRUE(upstream_bridges("/sys/devices/pci0000:00/0000:00:06.0").empty());
}

TEST(TopologyParse, NvmlAndKfdNames) {
  // nvml.h: nvmlGpuTopologyLevel_t, nvmlGpuP2PStatus_t; kfd_crat.h: CRAT_IOLINK_TYPE_*.
  EXPECT_EQ(nvml_topology_level_name(10), "SINGLE");
  EXPECT_EQ(nvml_topology_level_name(50), "SYSTEM");
  EXPECT_EQ(nvml_topology_level_name(7), "");
  EXPECT_EQ(nvml_p2p_status_name(0), "ok");
  EXPECT_EQ(nvml_p2p_status_name(3), "ioh_topology_not_supported");
  EXPECT_EQ(nvml_p2p_status_name(9), "status 9");
  EXPECT_EQ(kfd_link_type_name(11), "xgmi");
  EXPECT_EQ(kfd_link_type_name(2), "pcie");
  EXPECT_EQ(kfd_link_type_name(13), "type 13");
}

const GpuPair* pair_of(const Topology& t, const std::string& a, const std::string& b) {
  for (const auto& p : t.pairs) {
    if (p.a == a && p.b == b) return &p;
  }
  return nullptr;
}

TEST(TopologyProbe, SwitchWithAcsTranslatingIommuAndANarrowLink) {
  ACCEL_SKIP_ON_WINDOWS("sysfs layout");
  const auto roots = test::recorded("dual-gpu-acs-x4");
  const auto gpus = probe_gpus(roots);
  ASSERT_EQ(compute_gpus(gpus).size(), 3u);
  const Topology t = probe_topology(roots, gpus);
  ASSERT_EQ(t.gpus.size(), 3u);
  EXPECT_EQ(t.gpus[0].upstream, (std::vector<std::string>{"0000:00:01.0", "0000:01:00.0", "0000:02:08.0"}));
  EXPECT_EQ(t.gpus[0].iommu_group, 12);
  EXPECT_EQ(t.gpus[0].iommu_group_type, "DMA-FQ");
  EXPECT_EQ(t.gpus[2].link_width, 4);
  EXPECT_EQ(t.gpus[2].link_max_width, 16);
  EXPECT_NEAR(*t.gpus[0].pcie_bound_gbps, 31.5, 0.1);
  ASSERT_EQ(t.pairs.size(), 3u);
  const GpuPair* sw = pair_of(t, "0000:03:00.0", "0000:04:00.0");
  ASSERT_NE(sw, nullptr);
  EXPECT_EQ(sw->link, "pcie_switch");
  EXPECT_EQ(sw->common_bridge, "0000:01:00.0");
  EXPECT_EQ(sw->acs_redirecting, (std::vector<std::string>{"0000:02:08.0", "0000:02:10.0"}));
  EXPECT_NEAR(*sw->bound_gbps, 31.5, 0.1);
  const GpuPair* hb = pair_of(t, "0000:03:00.0", "0000:05:00.0");
  ASSERT_NE(hb, nullptr);
  EXPECT_EQ(hb->link, "pcie_host_bridge");
  EXPECT_EQ(hb->common_bridge, "");
  EXPECT_NEAR(*hb->bound_gbps, 3.94, 0.01);  // the x4 Gen3 GPU
  EXPECT_EQ(t.iommu, "translated");
  EXPECT_EQ(t.kernel_cmdline, "intel_iommu=on");
  EXPECT_EQ(t.shm_bytes, 64ull << 20);
  EXPECT_EQ(t.container, true);
  // Every bridge above a GPU, each once, with its ACS state.
  EXPECT_EQ(t.bridges.size(), 5u);
}

TEST(TopologyProbe, HealthyPairAcrossSockets) {
  ACCEL_SKIP_ON_WINDOWS("sysfs layout");
  const auto roots = test::recorded("dual-gpu-healthy");
  const Topology t = probe_topology(roots, probe_gpus(roots));
  ASSERT_EQ(t.pairs.size(), 1u);
  EXPECT_EQ(t.pairs[0].link, "cross_numa");
  EXPECT_TRUE(t.pairs[0].acs_redirecting.empty());
  EXPECT_NEAR(*t.pairs[0].bound_gbps, 63.0, 0.1);
  EXPECT_EQ(t.iommu, "off");
  EXPECT_EQ(t.container, false);
  EXPECT_EQ(t.shm_bytes, 528000000ull * 1024 / 2);  // tmpfs default: half of MemTotal
  for (const auto& b : t.bridges) EXPECT_FALSE(b.redirects) << b.address;
}

TEST(TopologyProbe, AmdXgmiFromTheKfd) {
  ACCEL_SKIP_ON_WINDOWS("sysfs layout");
  const auto roots = test::recorded("amd-dual-xgmi");
  const auto gpus = probe_gpus(roots);
  const Topology t = probe_topology(roots, gpus);
  ASSERT_EQ(t.pairs.size(), 1u);
  EXPECT_EQ(t.pairs[0].link, "xgmi");
  EXPECT_EQ(t.pairs[0].kfd_link, "xgmi");
  EXPECT_EQ(t.pairs[0].kfd_weight, 15);
  EXPECT_EQ(t.pairs[0].p2p_status, "ok");
  EXPECT_NEAR(*t.pairs[0].bound_gbps, 50.0, 1e-9);
  EXPECT_EQ(t.iommu, "passthrough");
  const auto links = read_kfd_io_links(roots.sys);
  EXPECT_EQ(links.size(), 4u);
}

TEST(TopologyProbe, OneGpuHasNoPairs) {
  ACCEL_SKIP_ON_WINDOWS("sysfs layout");
  const auto roots = test::recorded("nvidia-server");
  const auto gpus = probe_gpus(roots);
  EXPECT_LE(compute_gpus(gpus).size(), 1u);
  const Topology t = probe_topology(roots, gpus);
  EXPECT_TRUE(t.pairs.empty());
}

}  // namespace
}  // namespace accel::platform
