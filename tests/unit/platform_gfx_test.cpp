// gfx target names, PCI addresses and the KFD properties parser.
#include <gtest/gtest.h>

#include "platform/detail.hpp"
#include "platform/probes.hpp"

namespace accel::platform {
namespace {

TEST(GfxName, FromTargetVersion) {
  EXPECT_EQ(gfx_name_from_target_version(100302), "gfx1032");
  EXPECT_EQ(gfx_name_from_target_version(90010), "gfx90a");
  EXPECT_EQ(gfx_name_from_target_version(90012), "gfx90c");
  EXPECT_EQ(gfx_name_from_target_version(110001), "gfx1101");
  EXPECT_EQ(gfx_name_from_target_version(100300), "gfx1030");
  EXPECT_EQ(gfx_name_from_target_version(90402), "gfx942");
  EXPECT_EQ(gfx_name_from_target_version(110501), "gfx1151");
  EXPECT_EQ(gfx_name_from_target_version(120001), "gfx1201");
  EXPECT_EQ(gfx_name_from_target_version(80003), "gfx803");
  EXPECT_EQ(gfx_name_from_target_version(0), "");
}

TEST(GfxName, ApuOnlyTargets) {
  EXPECT_TRUE(detail::is_apu_only_gfx_target("gfx90c"));
  EXPECT_TRUE(detail::is_apu_only_gfx_target("gfx1035"));
  EXPECT_TRUE(detail::is_apu_only_gfx_target("gfx1151"));
  EXPECT_FALSE(detail::is_apu_only_gfx_target("gfx1032"));
  EXPECT_FALSE(detail::is_apu_only_gfx_target("gfx942"));  // MI300X and MI300A share it
  EXPECT_FALSE(detail::is_apu_only_gfx_target(""));
}

TEST(PciAddress, ParsesSysfsAndNvmlForms) {
  auto a = detail::parse_pci_address("0000:03:00.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bus, 3u);
  EXPECT_EQ(a->location_id(), 768u);  // KFD location_id = bus << 8 | devfn
  EXPECT_EQ(a->str(), "0000:03:00.0");

  auto n = detail::parse_pci_address("00000000:19:00.0");  // NVML's 8-digit domain
  ASSERT_TRUE(n);
  EXPECT_EQ(n->str(), "0000:19:00.0");

  auto f = detail::parse_pci_address("0001:C1:1F.7");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->domain, 1u);
  EXPECT_EQ(f->location_id(), (0xc1u << 8) | (0x1fu << 3) | 7u);
  EXPECT_EQ(f->str(), "0001:c1:1f.7");

  EXPECT_TRUE(detail::parse_pci_address("06:00.0"));  // lspci's short form
  EXPECT_FALSE(detail::parse_pci_address("0000:03:00"));
  EXPECT_FALSE(detail::parse_pci_address("0000:03:20.0"));  // device > 0x1f
  EXPECT_FALSE(detail::parse_pci_address(""));
  EXPECT_FALSE(detail::parse_pci_address("driver"));
  EXPECT_FALSE(detail::parse_pci_address(":00.0"));
  EXPECT_FALSE(detail::parse_pci_address(":03:00.0"));
  EXPECT_FALSE(detail::parse_pci_address("pci0000:00"));
}

TEST(KfdProperties, ParsesNumbersOnly) {
  const auto p = detail::parse_kfd_properties(
      "cpu_cores_count 0\nsimd_count 56\ngfx_target_version 100302\nlocation_id 768\nbogus\nname gfx\n");
  EXPECT_EQ(p.at("simd_count"), 56u);
  EXPECT_EQ(p.at("gfx_target_version"), 100302u);
  EXPECT_EQ(p.at("location_id"), 768u);
  EXPECT_EQ(p.count("bogus"), 0u);
  EXPECT_EQ(p.count("name"), 0u);
}

TEST(PciIds, LooksUpDeviceInItsVendorOnly) {
  const std::string ids =
      "# comment\n"
      "1002  Advanced Micro Devices, Inc. [AMD/ATI]\n"
      "\t73ff  Navi 23 [Radeon RX 6600/6600 XT/6600M]\n"
      "\t\t1002 0e0e  subsystem name\n"
      "10de  NVIDIA Corporation\n"
      "\t73ff  not this one\n";
  EXPECT_EQ(detail::pci_ids_name(ids, 0x1002, 0x73ff), "Navi 23 [Radeon RX 6600/6600 XT/6600M]");
  EXPECT_EQ(detail::pci_ids_name(ids, 0x10de, 0x73ff), "not this one");
  EXPECT_EQ(detail::pci_ids_name(ids, 0x1002, 0x1234), "");
  EXPECT_EQ(detail::pci_ids_name(ids, 0x8086, 0x73ff), "");
}

}  // namespace
}  // namespace accel::platform
