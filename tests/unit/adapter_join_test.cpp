// The one join of GPU index lists (core/adapter_join.hpp) and its rows in
// env, Markdown and HTML (core/report/gpu_index_rows.hpp), on report fixtures.
#include <gtest/gtest.h>

#include "core/adapter_join.hpp"
#include "core/report/console.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/html.hpp"
#include "core/report/markdown.hpp"
#include "rules_test_util.hpp"

using namespace accel;

namespace {
Report windows_fixture(const std::string& name) {
  return read_report_file(std::string(ACCEL_TEST_FIXTURES) + "/windows/" + name);
}
}  // namespace

TEST(AdapterJoin, TorchDirectmlIndexIsTheDxgiOrder) {
  const Report r = windows_fixture("windows-dml-igpu-measured.json");
  const auto a = join_adapter_indices(r.context.environment, r.results);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].name, "AMD Radeon(TM) Graphics");
  EXPECT_EQ(a[0].dxgi_index, 0);
  EXPECT_EQ(a[0].high_performance_index, 1);
  ASSERT_EQ(a[0].torch.size(), 1u);
  EXPECT_EQ(a[0].torch[0], "privateuseone:0");
  EXPECT_EQ(a[1].torch.at(0), "privateuseone:1");
  EXPECT_EQ(a[1].luid, "0x00000000:0x0000d1a3");
  EXPECT_TRUE(a[2].torch.empty());  // the Basic Render Driver
  EXPECT_EQ(indices_text(a[1]), "DXGI 1, high-performance 0, torch privateuseone:1");
  ASSERT_FALSE(a[1].joined_by.empty());
  EXPECT_NE(a[1].joined_by[0].find("DXGI order"), std::string::npos) << a[1].joined_by[0];
}

TEST(AdapterJoin, PciAddressesAndAHipIndexOnLinux) {
  const Report r = accel::testing::load_report("laptop-igpu-selected.json");
  const auto a = join_adapter_indices(r.context.environment, r.results);
  ASSERT_EQ(a.size(), 2u);
  // Base list: the PCI GPUs (in their order); torch's cuda:N joined by address, HIP index = N (ROCm).
  EXPECT_EQ(a[0].pci_address, "0000:0b:00.0");
  EXPECT_EQ(a[0].torch.at(0), "cuda:1");
  EXPECT_EQ(a[0].hip_index, 1);
  EXPECT_EQ(a[1].torch.at(0), "cuda:0");
  EXPECT_EQ(a[1].hip_index, 0);
  EXPECT_FALSE(a[0].dxgi_index.has_value());
  EXPECT_EQ(indices_text(a[0]), "torch cuda:1, HIP 1");
  // Two GPUs with framework indices: env shows the rows on Linux too.
  const auto rows = gpu_index_rows(r.context.environment, r.results);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0].value.find("PCI 0000:0b:00.0"), std::string::npos) << rows[0].value;
}

TEST(AdapterJoin, VulkanDevicesByPciAndLuid) {
  const Report r = accel::testing::load_report("h200-vulkan-healthy.json");
  const auto a = join_adapter_indices(r.context.environment, r.results);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].vulkan_index, 0);
  EXPECT_EQ(a[0].torch.at(0), "cuda:0");
  // One GPU: nothing to confuse, no rows outside Windows.
  EXPECT_TRUE(gpu_index_rows(r.context.environment, r.results).empty());
  // Vulkan's deviceLUID bytes (LowPart then HighPart, little-endian) in DXGI's form.
  EXPECT_EQ(luid_from_vulkan_hex("a3d1000000000000"), "0x00000000:0x0000d1a3");
  EXPECT_EQ(luid_from_vulkan_hex("A3D1000001000000"), "0x00000001:0x0000d1a3");
  EXPECT_EQ(luid_from_vulkan_hex("a3d10000"), "");
  EXPECT_EQ(luid_from_vulkan_hex("zzd1000000000000"), "");
  // A Vulkan row on the Windows fixture's dGPU, identified by LUID only.
  Report w = windows_fixture("windows-dml-igpu-measured.json");
  Result v;
  v.key = "bench/vulkan/compute/fma/fp32";
  v.kind = ResultKind::bench;
  v.device = "vulkan:3";
  v.evidence["vulkan_device"] = {{"name", "AMD Radeon RX 6650 XT"},
                                 {"type", "discrete_gpu"},
                                 {"device_luid", "a3d1000000000000"},
                                 {"software", false}};
  w.results.push_back(v);
  const auto j = join_adapter_indices(w.context.environment, w.results);
  EXPECT_EQ(j[1].vulkan_index, 3);
  EXPECT_NE(indices_text(j[1]).find("Vulkan 3"), std::string::npos);
}

// ONNX Runtime's EP devices join by LUID (the index is their place in
// GetEpDevices' list); a DirectML device whose LUID the DirectML join set
// joins by it, whatever its torch-directml index says.
TEST(AdapterJoin, OnnxRuntimeEpDevicesAndDirectmlLuids) {
  Report r = windows_fixture("windows-dml-igpu-measured.json");
  Environment& env = r.context.environment;
  OnnxRuntimeInfo ort;
  OrtEpDevice cpu, gpu;
  cpu.type = "cpu";
  gpu.type = "gpu";
  gpu.ep_name = "DmlExecutionProvider";
  gpu.luid = env.windows->adapters.at(1).luid;
  ort.ep_devices = {cpu, gpu};
  env.onnxruntime = ort;
  for (auto& d : env.devices) {
    if (d.id == "privateuseone:0") d.luid = env.windows->adapters.at(1).luid;  // the join said: adapter 1
    if (d.id == "privateuseone:1") d.luid = env.windows->adapters.at(0).luid;
  }
  const auto a = join_adapter_indices(env, r.results);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_FALSE(a[0].onnxruntime_index.has_value());
  EXPECT_EQ(a[1].onnxruntime_index, 1);
  EXPECT_EQ(a[1].torch.at(0), "privateuseone:0");
  EXPECT_EQ(a[0].torch.at(0), "privateuseone:1");
  EXPECT_NE(indices_text(a[1]).find("ONNX Runtime 1"), std::string::npos) << indices_text(a[1]);
}

TEST(AdapterJoin, ShownByEnvMarkdownAndHtml) {
  const Report r = windows_fixture("windows-dml-igpu-measured.json");
  ConsoleStyle style;
  style.width = 220;
  const std::string text = render_environment(r.context.environment, style);
  EXPECT_NE(text.find("GPU indices"), std::string::npos) << text;
  EXPECT_NE(text.find("DXGI 1, high-performance 0, torch privateuseone:1"), std::string::npos) << text;
  EXPECT_NE(render_markdown(r).find("### GPU indices"), std::string::npos);
  EXPECT_NE(render_html(r).find("<h3>GPU indices</h3>"), std::string::npos);
}
