// Device choice for ONNX Runtime on recorded values: the --device grammar,
// the EP-device metadata ONNX Runtime writes on Windows (Description, LUID as
// the decimal of HighPart << 32 | LowPart, Discrete, DxgiAdapterNumber,
// DxgiHighPerformanceIndex, DxgiVideoMemory: device_discovery.cc), the LUID
// join with the DXGI adapters, and the candidates in order with their reasons.
#include <gtest/gtest.h>

#include "engines/onnxruntime/devices.hpp"

namespace {

using namespace accel;
using namespace accel::ort;

TEST(OrtDevices, ParsesTheDeviceGrammar) {
  using K = DeviceRequest::Kind;
  EXPECT_EQ(parse_device_request("auto")->kind, K::automatic);
  EXPECT_EQ(parse_device_request("CPU")->kind, K::cpu);
  EXPECT_EQ(parse_device_request("gpu")->kind, K::gpu);
  const auto d = parse_device_request("dml:1");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, K::dml);
  EXPECT_EQ(d->index, 1);
  EXPECT_FALSE(parse_device_request("dml")->index.has_value());
  EXPECT_EQ(parse_device_request("directml:0")->kind, K::dml);
  EXPECT_EQ(parse_device_request("cuda:2")->index, 2);
  EXPECT_EQ(parse_device_request("webgpu")->kind, K::webgpu);
  for (const char* bad : {"", "rocm", "dml:", "dml:x", "cpu:0", "dml:-1", "cuda:99", "gpu:1"}) {
    EXPECT_FALSE(parse_device_request(bad).has_value()) << bad;
  }
}

TEST(OrtDevices, LuidFromMetadata) {
  // HighPart 0, LowPart 0xd1a3 = 53667.
  EXPECT_EQ(luid_from_metadata("53667"), "0x00000000:0x0000d1a3");
  // HighPart 1, LowPart 2: 4294967298.
  EXPECT_EQ(luid_from_metadata("4294967298"), "0x00000001:0x00000002");
  EXPECT_EQ(luid_from_metadata("0x100000002"), "0x00000001:0x00000002");
  EXPECT_EQ(luid_from_metadata("0x00000000:0x0000D1A3"), "0x00000000:0x0000d1a3");
  EXPECT_EQ(luid_from_metadata("12ab"), "");
  EXPECT_EQ(luid_from_metadata(""), "");
}

TEST(OrtDevices, VideoMemory) {
  EXPECT_EQ(video_memory_bytes("8176 MB"), 8176ull << 20);
  EXPECT_EQ(video_memory_bytes("512 MB"), 512ull << 20);
  EXPECT_EQ(video_memory_bytes("2 GB"), 2ull << 30);
  EXPECT_FALSE(video_memory_bytes("lots").has_value());
}

/// A Ryzen laptop: the Radeon 680M drives the display (DXGI adapter 0), the
/// RX 6650M is adapter 1 and first in the high-performance order.
std::vector<OrtEpDevice> laptop_devices() {
  OrtEpDevice cpu;
  cpu.ep_name = "CPUExecutionProvider";
  cpu.type = "cpu";
  cpu.vendor = "AuthenticAMD";
  cpu.metadata = {{"Description", "AMD Ryzen 7 6800H"}};
  OrtEpDevice igpu;
  igpu.ep_name = "DmlExecutionProvider";
  igpu.type = "gpu";
  igpu.vendor = "Advanced Micro Devices, Inc.";
  igpu.vendor_id = "0x1002";
  igpu.device_id = "0x1681";
  igpu.metadata = {{"Description", "AMD Radeon(TM) Graphics"},
                   {"LUID", "53667"},
                   {"Discrete", "0"},
                   {"DxgiAdapterNumber", "0"},
                   {"DxgiHighPerformanceIndex", "1"},
                   {"DxgiVideoMemory", "512 MB"}};
  OrtEpDevice dgpu = igpu;
  dgpu.device_id = "0x73ef";
  dgpu.metadata = {{"Description", "AMD Radeon RX 6650M"},
                   {"LUID", "61044"},
                   {"Discrete", "1"},
                   {"DxgiAdapterNumber", "1"},
                   {"DxgiHighPerformanceIndex", "0"},
                   {"DxgiVideoMemory", "8176 MB"}};
  std::vector<OrtEpDevice> v{cpu, igpu, dgpu};
  for (auto& d : v) fill_from_metadata(d);
  return v;
}

WindowsInfo laptop_windows() {
  WindowsInfo w;
  WindowsAdapter a0;
  a0.dxgi_index = 0;
  a0.high_performance_index = 1;
  a0.name = "AMD Radeon(TM) Graphics";
  a0.luid = "0x00000000:0x0000d1a3";
  a0.integrated = true;
  WindowsAdapter a1;
  a1.dxgi_index = 1;
  a1.high_performance_index = 0;
  a1.name = "AMD Radeon RX 6650M";
  a1.luid = "0x00000000:0x0000ee74";
  a1.integrated = false;
  WindowsAdapter warp;
  warp.dxgi_index = 2;
  warp.name = "Microsoft Basic Render Driver";
  warp.software = true;
  w.adapters = {a0, a1, warp};
  return w;
}

TEST(OrtDevices, MetadataFillsTheFields) {
  const auto v = laptop_devices();
  const OrtEpDevice& d = v[2];
  EXPECT_EQ(d.name, "AMD Radeon RX 6650M");
  EXPECT_EQ(d.luid, "0x00000000:0x0000ee74");
  EXPECT_EQ(d.discrete, true);
  EXPECT_EQ(d.dxgi_adapter_number, 1);
  EXPECT_EQ(d.dxgi_high_performance_index, 0);
  EXPECT_EQ(d.memory_bytes, 8176ull << 20);
  EXPECT_EQ(v[0].name, "AMD Ryzen 7 6800H");
  EXPECT_FALSE(v[0].dxgi_adapter_number.has_value());
}

TEST(OrtDevices, JoinsTheDxgiAdaptersByLuid) {
  auto v = laptop_devices();
  const WindowsInfo w = laptop_windows();
  join_windows_adapters(v, &w);
  EXPECT_FALSE(v[0].windows_adapter.has_value());
  EXPECT_EQ(v[1].windows_adapter, 0);
  EXPECT_EQ(v[2].windows_adapter, 1);
  join_windows_adapters(v, nullptr);  // no Windows section: unchanged, no crash
}

TEST(OrtDevices, AutoPicksTheDiscreteGpuAndWarnsAboutDeviceZero) {
  auto v = laptop_devices();
  const WindowsInfo w = laptop_windows();
  join_windows_adapters(v, &w);
  std::string error;
  const auto c =
      device_candidates(DeviceRequest{}, {"DmlExecutionProvider", "CPUExecutionProvider"}, v, &w, &error);
  ASSERT_EQ(c.size(), 3u);  // dml:1, dml:0, then the CPU
  EXPECT_EQ(c[0].device, "dml:1");
  EXPECT_EQ(c[0].ep_device_index, 2);
  EXPECT_TRUE(c[0].is_gpu);
  EXPECT_NE(c[0].reason.find("the discrete GPU"), std::string::npos) << c[0].reason;
  EXPECT_NE(c[0].reason.find("RX 6650M"), std::string::npos) << c[0].reason;
  ASSERT_FALSE(c[0].warnings.empty());
  EXPECT_NE(c[0].warnings[0].find("device_id 0"), std::string::npos) << c[0].warnings[0];
  EXPECT_NE(c[0].warnings[0].find("integrated"), std::string::npos);
  EXPECT_EQ(c[1].device, "dml:0");
  EXPECT_EQ(c[2].device, "cpu");
  EXPECT_TRUE(error.empty());
}

TEST(OrtDevices, AskingForDeviceZeroOnTheLaptopWarns) {
  auto v = laptop_devices();
  const WindowsInfo w = laptop_windows();
  join_windows_adapters(v, &w);
  const auto c = device_candidates(*parse_device_request("dml:0"), {"DmlExecutionProvider"}, v, &w, nullptr);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].device_id, 0);
  EXPECT_EQ(c[0].ep_device_index, 1);
  ASSERT_FALSE(c[0].warnings.empty());
  EXPECT_NE(c[0].warnings[0].find("integrated GPU"), std::string::npos) << c[0].warnings[0];
  EXPECT_NE(c[0].warnings[0].find("RX 6650M"), std::string::npos) << c[0].warnings[0];
}

TEST(OrtDevices, WithoutEpDevicesTheDxgiAdaptersDecide) {
  // ONNX Runtime older than 1.22: no EP devices, the platform's adapter list.
  const WindowsInfo w = laptop_windows();
  const auto c = device_candidates(*parse_device_request("gpu"), {"DmlExecutionProvider"}, {}, &w, nullptr);
  ASSERT_EQ(c.size(), 2u);  // the software adapter is never a candidate
  EXPECT_EQ(c[0].device, "dml:1");
  EXPECT_EQ(c[0].ep_device_index, -1);
  EXPECT_NE(c[0].reason.find("by DXGI"), std::string::npos) << c[0].reason;
}

TEST(OrtDevices, MissingProvidersAreSaid) {
  std::string error;
  EXPECT_TRUE(
      device_candidates(*parse_device_request("dml"), {"CPUExecutionProvider"}, {}, nullptr, &error).empty());
  EXPECT_EQ(error, "this ONNX Runtime has no DmlExecutionProvider; it has: CPUExecutionProvider");
  error.clear();
  EXPECT_TRUE(
      device_candidates(*parse_device_request("gpu"), {"CPUExecutionProvider"}, {}, nullptr, &error).empty());
  EXPECT_NE(error.find("no GPU execution provider"), std::string::npos);
  // auto falls back to the CPU with the reason.
  const auto c = device_candidates(DeviceRequest{}, {"CPUExecutionProvider"}, {}, nullptr, &error);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].device, "cpu");
  EXPECT_EQ(c[0].reason, "no GPU execution provider in this ONNX Runtime");
}

TEST(OrtDevices, CudaListedComesBeforeTheCpu) {
  // onnxruntime-node's Linux build lists CUDA and TensorRT (provider bridge)
  // whose libraries it does not ship: a candidate the engine then probes.
  const auto c = device_candidates(
      DeviceRequest{}, {"TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"}, {},
      nullptr, nullptr);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].device, "cuda:0");
  EXPECT_EQ(c[1].device, "cpu");
  EXPECT_EQ(c[1].reason, "no GPU provider could create a session");
}

TEST(OrtDevices, NoWarningWithoutAnIntegratedAdapterZero) {
  auto v = laptop_devices();
  v.erase(v.begin() + 1);  // only the discrete one
  EXPECT_EQ(device_zero_warning(v, nullptr), "");
}

}  // namespace
