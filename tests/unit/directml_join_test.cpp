// torch-directml's devices joined to the Windows adapters (core/directml_join.hpp),
// on adapter lists as DXGI reports them (evidence.hpp WindowsAdapter).
#include <gtest/gtest.h>

#include "core/directml_join.hpp"

using namespace accel;

namespace {
WindowsAdapter adapter(int index, const std::string& name, double gib, const std::string& luid,
                       bool integrated = false, bool software = false) {
  WindowsAdapter a;
  a.dxgi_index = index;
  a.name = name;
  a.luid = luid;
  a.dedicated_video_memory_bytes = static_cast<std::uint64_t>(gib * 1073741824.0);
  a.integrated = integrated;
  a.software = software;
  return a;
}

DeviceInfo dml(int index, const std::string& name) {
  DeviceInfo d;
  d.id = "privateuseone:" + std::to_string(index);
  d.index = index;
  d.type = "privateuseone";
  d.backend = "dml";
  d.plugin = "torch_directml";
  d.name = name;
  return d;
}
}  // namespace

TEST(AdapterJoin, ByNameTakesLuidMemoryAndIntegrated) {
  // The seeds' machine: the RX 6650 XT drives the display, the Ryzen iGPU second.
  const std::vector<WindowsAdapter> adapters{
      adapter(0, "AMD Radeon RX 6650 XT", 7.98, "0x00000000:0x0000d1a3"),
      adapter(1, "AMD Radeon(TM) Graphics", 0.5, "0x00000000:0x0000e2b4", true),
      adapter(2, "Microsoft Basic Render Driver", 0, "0x00000000:0x0000f00d", false, true)};
  std::vector<DeviceInfo> devices{dml(0, "AMD Radeon RX 6650 XT"), dml(1, " amd radeon(tm) graphics ")};
  join_windows_adapters(devices, adapters);
  EXPECT_EQ(devices[0].luid, "0x00000000:0x0000d1a3");
  EXPECT_EQ(devices[0].dxgi_index, 0);
  EXPECT_EQ(devices[0].adapter_join, "name");
  ASSERT_TRUE(devices[0].total_memory_bytes);
  EXPECT_GT(*devices[0].total_memory_bytes, 7ull << 30);
  EXPECT_EQ(devices[1].luid, "0x00000000:0x0000e2b4");
  EXPECT_EQ(devices[1].integrated, true);
}

TEST(AdapterJoin, SameNameJoinsByOrderAndSaysSo) {
  const std::vector<WindowsAdapter> adapters{adapter(0, "NVIDIA GeForce RTX 3090", 24, "L0"),
                                             adapter(1, "NVIDIA GeForce RTX 3090", 24, "L1")};
  std::vector<DeviceInfo> devices{dml(0, "NVIDIA GeForce RTX 3090"), dml(1, "NVIDIA GeForce RTX 3090")};
  join_windows_adapters(devices, adapters);
  EXPECT_EQ(devices[0].luid, "L0");
  EXPECT_EQ(devices[1].luid, "L1");
  EXPECT_NE(devices[1].adapter_join.find("the 2nd of 2 adapters named"), std::string::npos)
      << devices[1].adapter_join;
}

TEST(AdapterJoin, SameNameJoinsByMemoryWhenTheDeviceHasIt) {
  const std::vector<WindowsAdapter> adapters{adapter(0, "Intel(R) Arc(TM) Graphics", 16, "L0"),
                                             adapter(1, "Intel(R) Arc(TM) Graphics", 8, "L1")};
  std::vector<DeviceInfo> devices{dml(0, "Intel(R) Arc(TM) Graphics")};
  devices[0].total_memory_bytes = 8ull << 30;
  join_windows_adapters(devices, adapters);
  EXPECT_EQ(devices[0].luid, "L1");
  EXPECT_EQ(devices[0].dxgi_index, 1);
  EXPECT_NE(devices[0].adapter_join.find("name and memory"), std::string::npos);
  EXPECT_NE(devices[0].adapter_join.find("is DXGI adapter 1, not 0"), std::string::npos)
      << devices[0].adapter_join;
}

TEST(AdapterJoin, NoMatchSaysWhichAdaptersThereAre) {
  std::vector<DeviceInfo> devices{dml(0, "Some GPU"), dml(1, "Microsoft Basic Render Driver")};
  join_windows_adapters(devices, {adapter(0, "AMD Radeon RX 6650 XT", 8, "L0"),
                                  adapter(1, "Microsoft Basic Render Driver", 0, "L1", false, true)});
  EXPECT_TRUE(devices[0].luid.empty());
  EXPECT_NE(devices[0].not_collected["adapter"].find("no hardware adapter named 'Some GPU'"),
            std::string::npos);
  EXPECT_NE(devices[0].not_collected["adapter"].find("0 'AMD Radeon RX 6650 XT'"), std::string::npos);
  EXPECT_TRUE(devices[1].luid.empty()) << "a software adapter never joins";
}

TEST(AdapterJoin, OtherDevicesAreLeftAlone) {
  DeviceInfo cuda;
  cuda.id = "cuda:0";
  cuda.name = "AMD Radeon RX 6650 XT";
  std::vector<DeviceInfo> devices{cuda};
  join_windows_adapters(devices, {adapter(0, "AMD Radeon RX 6650 XT", 8, "L0")});
  EXPECT_TRUE(devices[0].luid.empty());
  EXPECT_TRUE(devices[0].not_collected.empty());
}
