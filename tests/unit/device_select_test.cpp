#include <gtest/gtest.h>

#include "core/device_select.hpp"

using namespace accel;

namespace {
DeviceInfo dev(int index, const std::string& name, double gib, bool integrated) {
  DeviceInfo d;
  d.index = index;
  d.id = "cuda:" + std::to_string(index);
  d.name = name;
  d.total_memory_bytes = static_cast<std::uint64_t>(gib * 1073741824.0);
  d.integrated = integrated;
  return d;
}
}  // namespace

TEST(DeviceSelect, AutoPrefersDiscreteOverIntegrated) {
  // The rocm-igpu-selected case: the Vega iGPU is device 0.
  const std::vector<DeviceInfo> devs{dev(0, "AMD Radeon Vega 11", 16, true),
                                     dev(1, "AMD Radeon RX 6600", 8, false)};
  const auto c = select_device("auto", devs);
  EXPECT_EQ(c.chosen, "cuda:1");
  EXPECT_NE(c.reason.find("discrete before integrated"), std::string::npos);
}

TEST(DeviceSelect, AutoThenMostMemory) {
  const auto c = select_device("auto", {dev(0, "small", 8, false), dev(1, "big", 24, false)});
  EXPECT_EQ(c.chosen, "cuda:1");
}

TEST(DeviceSelect, AutoWithoutAcceleratorIsCpu) {
  const auto c = select_device("auto", {});
  EXPECT_EQ(c.chosen, "cpu");
  EXPECT_FALSE(c.reason.empty());
}

TEST(DeviceSelect, ExplicitForms) {
  const std::vector<DeviceInfo> devs{dev(0, "a", 8, false), dev(1, "b", 8, false)};
  EXPECT_EQ(select_device("cuda", devs).chosen, "cuda:0");
  EXPECT_EQ(select_device("cuda:1", devs).chosen, "cuda:1");
  EXPECT_EQ(select_device("hip:1", devs).chosen, "cuda:1");
  EXPECT_EQ(select_device("CPU", devs).chosen, "cpu");
}

TEST(DeviceSelect, ErrorsListTheDevicesThatExist) {
  const std::vector<DeviceInfo> devs{dev(0, "NVIDIA H200", 140, false)};
  try {
    select_device("cuda:3", devs);
    FAIL() << "expected an error";
  } catch (const DeviceSelectionError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("out of range"), std::string::npos) << msg;
    EXPECT_NE(msg.find("NVIDIA H200"), std::string::npos) << msg;
  }
  EXPECT_THROW(select_device("tpu", devs), DeviceSelectionError);
  EXPECT_THROW(select_device("cuda:x", devs), DeviceSelectionError);
  EXPECT_THROW(select_device("cuda:0", {}), DeviceSelectionError);
}

TEST(DeviceSelect, GpuRequestOnACpuOnlyTorchSaysTheBuildHasNoGpuSupport) {
  DeviceSelectionContext ctx;
  ctx.torch_backend = "cpu";
  ctx.torch_version = "2.4.0+cpu";
  ctx.gpus_found = {"AMD Radeon RX 6650 XT"};
  for (const char* request : {"cuda", "cuda:0", "hip"}) {
    try {
      select_device(request, {}, ctx);
      FAIL() << "expected an error for " << request;
    } catch (const DeviceSelectionError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("built without either (a CPU-only build)"), std::string::npos) << msg;
      EXPECT_NE(msg.find("2.4.0+cpu"), std::string::npos) << msg;
      EXPECT_NE(msg.find("RX 6650 XT"), std::string::npos) << msg;
    }
  }
  // A GPU build that sees no device keeps the plain message.
  ctx.torch_backend = "cuda";
  try {
    select_device("cuda", {}, ctx);
    FAIL();
  } catch (const DeviceSelectionError& e) {
    EXPECT_NE(std::string(e.what()).find("no cuda device is visible to torch"), std::string::npos);
  }
}

namespace {
DeviceInfo plugin_dev(int index, const std::string& backend, double gib) {
  DeviceInfo d;
  d.index = index;
  d.id = "privateuseone:" + std::to_string(index);
  d.type = "privateuseone";
  d.backend = backend;
  d.name = backend + " device";
  d.total_memory_bytes = static_cast<std::uint64_t>(gib * 1073741824.0);
  return d;
}
}  // namespace

TEST(DeviceSelect, DmlNamesTorchDirectmlsPrivateUse1Devices) {
  const std::vector<DeviceInfo> devs{plugin_dev(0, "dml", 8), plugin_dev(1, "dml", 0.5)};
  EXPECT_EQ(select_device("dml", devs).chosen, "privateuseone:0");
  EXPECT_EQ(select_device("dml:1", devs).chosen, "privateuseone:1");
  EXPECT_EQ(select_device("DirectML:1", devs).chosen, "privateuseone:1");
  EXPECT_EQ(select_device("privateuseone:1", devs).chosen, "privateuseone:1");
  EXPECT_EQ(select_device("auto", devs).chosen, "privateuseone:0");
}

TEST(DeviceSelect, DmlWithoutADirectmlDeviceSaysWhatToCheck) {
  try {
    select_device("dml", {plugin_dev(0, "testdev", 1)});
    FAIL() << "no dml device, no error";
  } catch (const DeviceSelectionError& e) {
    EXPECT_NE(std::string(e.what()).find("no DirectML device is visible"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("torch_directml"), std::string::npos) << e.what();
  }
}
