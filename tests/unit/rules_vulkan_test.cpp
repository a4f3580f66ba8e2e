// Rules on the Vulkan ceiling (src/core/rules/rules_vulkan.cpp): the
// framework far under the ceiling on the same card, fast fp16 left unused,
// a GPU the Vulkan driver sees and the framework does not. Fixtures:
// rx6650xt-vulkan-ceiling.json (fires), h200-vulkan-healthy.json (silent; it
// also holds a lavapipe device, which must never count as a GPU).
#include <gtest/gtest.h>

#include "core/vulkan_join.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

Result* find_row(Report& r, const std::string& key, const std::string& device) {
  for (auto& x : r.results) {
    if (x.key == key && x.device == device) return &x;
  }
  return nullptr;
}

TEST(RulesVulkan, HealthyH200StaysSilent) {
  const auto fs = run_rules(load_report("h200-vulkan-healthy.json"));
  for (const char* id :
       {"framework_under_vulkan_ceiling", "fp16_unused_fast_fp16", "framework_misses_vulkan_gpu"})
    EXPECT_FALSE(has(fs, id)) << id << " in " << ids(fs);
}

TEST(RulesVulkan, FrameworkFarUnderTheCeilingNamesTheGemmLibrary) {
  const auto fs = run_rules(load_report("rx6650xt-vulkan-ceiling.json"));
  const Finding f = only(fs, "framework_under_vulkan_ceiling");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "31%")) << f.title;  // 3.1 of 10.1 TFLOP/s
  EXPECT_TRUE(mentions(f, "joined by pci_address")) << f.evidence;
  EXPECT_TRUE(mentions(f, "rocBLAS/hipBLASLt")) << f.why;  // memory close to the ceiling: the GEMM library
  EXPECT_FALSE(mentions(f, "memory/copy/fp32/rotating reaches")) << f.evidence;
  EXPECT_TRUE(mentions(f, "AMD Radeon RX 6650 XT")) << f.title;
}

TEST(RulesVulkan, GemmAndMemoryLowBlameTheRuntime) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  find_row(r, "bench/cuda/memory/copy/fp32/rotating", "cuda:0")->metrics["gbps"] = 80;
  r.context.environment.env_vars.push_back(testing::env_var("HSA_OVERRIDE_GFX_VERSION", "10.3.0"));
  const Finding f = only(run_rules(r), "framework_under_vulkan_ceiling");
  EXPECT_TRUE(mentions(f, "memory/copy/fp32/rotating reaches 33%")) << f.evidence;
  EXPECT_TRUE(mentions(f, "compute runtime as a whole")) << f.why;
  EXPECT_TRUE(mentions(f, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << f.why;
}

TEST(RulesVulkan, JoinsBySavedReportAndNeverBySoftwareDevice) {
  // The ratio is computed from the report's rows, not only the one bench --vulkan attached.
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  for (auto& x : r.results) x.metrics.erase("framework_ratio");
  EXPECT_TRUE(has(run_rules(r), "framework_under_vulkan_ceiling"));
  // The same figures on a software device: no ceiling, no finding.
  for (auto& x : r.results) {
    if (!vulkan::is_vulkan_key(x.key)) continue;
    x.evidence["vulkan_device"]["software"] = true;
    x.evidence["vulkan_device"]["type"] = "cpu";
  }
  const auto fs = run_rules(r);
  for (const char* id :
       {"framework_under_vulkan_ceiling", "fp16_unused_fast_fp16", "framework_misses_vulkan_gpu"})
    EXPECT_FALSE(has(fs, id)) << id << " in " << ids(fs);
}

TEST(RulesVulkan, AnotherCardIsNotJoined) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  for (auto& x : r.results) {
    if (x.device == "vulkan:0") x.evidence["vulkan_device"]["pci_address"] = "0000:2d:00.0";
  }
  EXPECT_FALSE(has(run_rules(r), "framework_under_vulkan_ceiling"));
}

TEST(RulesVulkan, PackedFp16UnusedByTheFramework) {
  const auto fs = run_rules(load_report("rx6650xt-vulkan-ceiling.json"));
  const Finding f = only(fs, "fp16_unused_fast_fp16");
  EXPECT_TRUE(mentions(f, "fp16 GEMM 4 TFLOP/s vs fp32 3.1 TFLOP/s (only 1.3x)")) << f.evidence;
  EXPECT_TRUE(mentions(f, "packed math")) << f.why;
}

TEST(RulesVulkan, Fp16AllFp32Work) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  std::vector<Result> kept;
  for (auto& x : r.results) {
    if (x.device == "cuda:0" && x.dtype != "fp32") continue;  // the framework measured only fp32
    kept.push_back(x);
  }
  r.results = kept;
  const Finding f = only(run_rules(r), "fp16_unused_fast_fp16");
  EXPECT_TRUE(mentions(f, "ran in fp32")) << f.evidence;
  EXPECT_TRUE(mentions(f, "autocast")) << f.fix;
}

TEST(RulesVulkan, Fp16SilentWhenTheCardHasNoFastFp16) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  find_row(r, "bench/vulkan/compute/fma/fp16/chains32", "vulkan:0")->metrics["tflops"] = 10.2;
  EXPECT_FALSE(has(run_rules(r), "fp16_unused_fast_fp16"));
}

TEST(RulesVulkan, GpuTheFrameworkMisses) {
  const auto fs = run_rules(load_report("rx6650xt-vulkan-ceiling.json"));
  const Finding f = only(fs, "framework_misses_vulkan_gpu");
  EXPECT_EQ(to_string(f.severity), "info");  // an iGPU beside a dGPU the framework sees
  EXPECT_TRUE(mentions(f, "AMD Radeon(TM) Graphics")) << f.title;
  EXPECT_TRUE(mentions(f, "PCI 0000:10:00.0")) << f.evidence;
  EXPECT_TRUE(mentions(f, "cuda:0 AMD Radeon RX 6650 XT")) << f.evidence;
}

TEST(RulesVulkan, DiscreteGpuTheFrameworkMissesIsAWarning) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  r.context.environment.devices.clear();  // torch sees no GPU; the probes did not find the card either
  r.context.environment.gpus.clear();
  const auto fs = run_rules(r);
  const auto found = testing::with_id(fs, "framework_misses_vulkan_gpu");
  ASSERT_EQ(found.size(), 2u) << ids(fs);
  for (const auto& f : found) EXPECT_EQ(to_string(f.severity), "warning") << f.title;
}

TEST(RulesVulkan, NoFrameworkListNoDisagreement) {
  Report r = load_report("rx6650xt-vulkan-ceiling.json");
  r.context.environment.torch = TorchInfo{};
  r.context.environment.torch.not_collected["engine"] = "no torch engine";
  EXPECT_FALSE(has(run_rules(r), "framework_misses_vulkan_gpu"));
}

}  // namespace
}  // namespace accel
