// probe_gpus on the recorded machine trees: devices found, vendor, integrated
// and why, gfx targets matched to PCI through the KFD, PCIe links.
#include <gtest/gtest.h>

#include "platform/detail.hpp"
#include "platform/probes.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

const GpuHardware* at(const std::vector<GpuHardware>& gpus, const std::string& address) {
  for (const auto& g : gpus) {
    if (g.pci_address == address) return &g;
  }
  return nullptr;
}

TEST(ProbeGpus, AmdLaptopDiscretePlusApu) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  NotCollected nc;
  const auto gpus = probe_gpus(test::recorded("amd-laptop-dgpu-igpu"), &nc);
  ASSERT_EQ(gpus.size(), 2u);  // the dGPU's HDMI audio function and the bridges are not display devices
  EXPECT_TRUE(nc.empty()) << nc.begin()->first << ": " << nc.begin()->second;

  const GpuHardware* d = at(gpus, "0000:03:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->vendor, "amd");
  EXPECT_EQ(d->vendor_id, "0x1002");
  EXPECT_EQ(d->device_id, "0x73ff");
  EXPECT_EQ(d->driver, "amdgpu");
  EXPECT_EQ(d->gfx_target, "gfx1032");
  EXPECT_EQ(d->name, "Navi 23 [Radeon RX 6600/6600 XT/6600M]");
  ASSERT_TRUE(d->integrated.has_value());
  EXPECT_FALSE(*d->integrated);
  EXPECT_NE(d->integrated_basis.find("gfx1032 is not an APU target"), std::string::npos)
      << d->integrated_basis;
  EXPECT_EQ(d->boot_vga, false);  // class 0x0380: never the boot display
  ASSERT_TRUE(d->vram_bytes.has_value());
  EXPECT_EQ(*d->vram_bytes, 8573157376u);
  ASSERT_TRUE(d->link.has_value());
  EXPECT_EQ(d->link->current_speed, "2.5 GT/s PCIe");  // idling: downclocked from 16 GT/s
  EXPECT_EQ(d->link->max_speed, "16.0 GT/s PCIe");
  EXPECT_EQ(d->link->current_width, 8);
  EXPECT_EQ(d->link->max_width, 8);
  EXPECT_EQ(d->vendor_info["kfd"]["node"], 1);
  EXPECT_EQ(d->vendor_info["kfd"]["compute_units"], 28);
  EXPECT_EQ(d->vendor_info["amdgpu"]["gpu_busy_percent"], 0);
  EXPECT_EQ(d->vendor_info["pci"]["subsystem_vendor_id"], "0x17aa");
  // The link to the slot is on the upstream port of the board's own switch.
  EXPECT_EQ(d->vendor_info["pci"]["slot_link"]["address"], "0000:01:00.0");
  EXPECT_EQ(d->vendor_info["pci"]["slot_link"]["max_width"], 8);

  const GpuHardware* i = at(gpus, "0000:06:00.0");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->gfx_target, "gfx90c");
  ASSERT_TRUE(i->integrated.has_value());
  EXPECT_TRUE(*i->integrated);
  EXPECT_NE(i->integrated_basis.find("gfx90c"), std::string::npos) << i->integrated_basis;
  EXPECT_EQ(i->boot_vga, true);
  EXPECT_EQ(i->vendor_info["kfd"]["node"], 2);
  EXPECT_EQ(*i->vram_bytes, 512u << 20);
  EXPECT_FALSE(i->vendor_info["pci"].contains("slot_link"));  // its bridge is the CPU's (0x1022)
}

TEST(ProbeGpus, NvidiaServerFromSysfsOnly) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  NotCollected nc;
  const auto gpus = probe_gpus(test::recorded("nvidia-server"), &nc);
  ASSERT_EQ(gpus.size(), 1u);
  const GpuHardware& g = gpus[0];
  EXPECT_EQ(g.pci_address, "0000:00:06.0");
  EXPECT_EQ(g.vendor, "nvidia");
  EXPECT_EQ(g.device_id, "0x2335");
  EXPECT_EQ(g.driver, "nvidia");
  EXPECT_EQ(g.name, "GH100 [H200 SXM 141GB]");
  EXPECT_EQ(g.integrated, false);
  EXPECT_NE(g.integrated_basis.find("NVIDIA"), std::string::npos);
  EXPECT_EQ(g.boot_vga, false);  // 3D controller
  ASSERT_TRUE(g.link.has_value());
  EXPECT_EQ(g.link->current_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(g.link->current_width, 16);
  EXPECT_EQ(g.link->max_width, 16);
  EXPECT_TRUE(g.gfx_target.empty());
  EXPECT_TRUE(g.compute_capability.empty());  // NVML is off in fixture tests
  EXPECT_EQ(g.not_collected.count("nvml"), 1u);
  EXPECT_EQ(g.not_collected.count("vram_bytes"), 1u);
  EXPECT_EQ(nc.count("kfd"), 0u);  // no AMD device, so no KFD complaint
}

TEST(ProbeGpus, IntelIgpuPlusArc) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  const auto gpus = probe_gpus(test::recorded("intel-arc-desktop"));
  ASSERT_EQ(gpus.size(), 2u);
  const GpuHardware* igpu = at(gpus, "0000:00:02.0");
  ASSERT_NE(igpu, nullptr);
  EXPECT_EQ(igpu->vendor, "intel");
  EXPECT_EQ(igpu->driver, "i915");
  EXPECT_EQ(igpu->integrated, true);
  EXPECT_NE(igpu->integrated_basis.find("00:02.0"), std::string::npos);
  EXPECT_FALSE(igpu->link.has_value());
  EXPECT_EQ(igpu->not_collected.count("link"), 1u);
  EXPECT_EQ(igpu->boot_vga, true);

  const GpuHardware* arc = at(gpus, "0000:03:00.0");
  ASSERT_NE(arc, nullptr);
  EXPECT_EQ(arc->device_id, "0x56a0");
  EXPECT_EQ(arc->name, "DG2 [Arc A770]");
  EXPECT_EQ(arc->integrated, false);
  EXPECT_NE(arc->integrated_basis.find("0x56a0"), std::string::npos);
  ASSERT_TRUE(arc->link.has_value());
  EXPECT_EQ(arc->link->current_width, 1);  // the endpoint's link is internal to the card
  EXPECT_EQ(arc->vendor_info["pci"]["slot_link"]["address"], "0000:01:00.0");
  EXPECT_EQ(arc->vendor_info["pci"]["slot_link"]["current_width"], 16);
  EXPECT_EQ(arc->vendor_info["pci"]["slot_link"]["current_speed"], "16.0 GT/s PCIe");
}

TEST(ProbeGpus, CpuOnlyHasNone) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  NotCollected nc;
  const auto gpus = probe_gpus(test::recorded("cpu-only"), &nc);
  EXPECT_TRUE(gpus.empty());
  EXPECT_EQ(nc.count("pci"), 0u);  // it looked and found none
}

TEST(ProbeGpus, NonexistentRootSaysWhy) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  NotCollected nc;
  std::vector<GpuHardware> gpus;
  EXPECT_NO_THROW(gpus = probe_gpus(ProbeRoots::under("/nonexistent/accel-doctor"), &nc));
  EXPECT_TRUE(gpus.empty());
  ASSERT_EQ(nc.count("pci"), 1u);
  EXPECT_NE(nc["pci"].find("/nonexistent/accel-doctor/sys/bus/pci/devices"), std::string::npos) << nc["pci"];
}

TEST(ProbeGpus, ApuWithCombinedKfdNode) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  // Older kernels and BIOS CRAT tables describe an APU as one node with both
  // CPU cores and SIMDs; the device id is deliberately not in the APU table.
  test::TempTree t("apu");
  const std::string dev = "sys/bus/pci/devices/0000:05:00.0/";
  t.write(dev + "class", "0x030000\n");
  t.write(dev + "vendor", "0x1002\n");
  t.write(dev + "device", "0x9999\n");
  t.write(dev + "uevent", "DRIVER=amdgpu\n");
  t.write(dev + "mem_info_vram_total", "2147483648\n");
  t.write("sys/class/kfd/kfd/topology/nodes/0/properties",
          "cpu_cores_count 8\nsimd_count 44\ngfx_target_version 90002\nvendor_id 4098\ndevice_id 39321\n"
          "location_id 1280\n");
  const auto gpus = probe_gpus(ProbeRoots::under(t.path()));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].driver, "amdgpu");
  EXPECT_EQ(gpus[0].gfx_target, "gfx902");
  EXPECT_EQ(gpus[0].integrated, true);
  EXPECT_NE(gpus[0].integrated_basis.find("both CPU cores (8) and SIMDs (44)"), std::string::npos)
      << gpus[0].integrated_basis;
}

TEST(ProbeGpus, BmcDisplayIsNotAComputeDevice) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  test::TempTree t("bmc");
  const std::string dev = "sys/bus/pci/devices/0000:02:00.0/";
  t.write(dev + "class", "0x030000\n");
  t.write(dev + "vendor", "0x1a03\n");
  t.write(dev + "device", "0x2000\n");
  t.write(dev + "boot_vga", "1\n");
  t.write(dev + "uevent", "DRIVER=ast\n");
  const auto gpus = probe_gpus(ProbeRoots::under(t.path()));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].vendor, "aspeed");
  EXPECT_FALSE(gpus[0].integrated.has_value());
  EXPECT_NE(gpus[0].integrated_basis.find("not a compute device"), std::string::npos);
  EXPECT_EQ(gpus[0].vendor_info["display_only"], true);
  EXPECT_EQ(gpus[0].not_collected.count("name"), 1u);  // no pci.ids in the scratch tree
}

TEST(ProbeGpus, UnboundDeviceAndMissingKfdAreExplained) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI/KFD scan is Linux only");
  test::TempTree t("unbound");
  const std::string dev = "sys/bus/pci/devices/0000:0a:00.0/";
  t.write(dev + "class", "0x030000\n");
  t.write(dev + "vendor", "0x1002\n");
  t.write(dev + "device", "0x744c\n");
  NotCollected nc;
  const auto gpus = probe_gpus(ProbeRoots::under(t.path()), &nc);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_TRUE(gpus[0].driver.empty());
  EXPECT_NE(gpus[0].not_collected.at("driver").find("no kernel driver"), std::string::npos);
  EXPECT_EQ(gpus[0].not_collected.count("gfx_target"), 1u);
  EXPECT_EQ(nc.count("kfd"), 1u);
  EXPECT_FALSE(gpus[0].integrated.has_value());
  EXPECT_EQ(gpus[0].not_collected.count("integrated"), 1u);
}

}  // namespace
}  // namespace accel::platform
