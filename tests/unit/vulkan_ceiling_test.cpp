// The Vulkan ceiling (engines/vulkan): the pure parts on made-up values, and
// the whole engine on Mesa's lavapipe (a CPU Vulkan device: CI has no GPU),
// where every shader runs and every checksum must hold.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "core/peaks.hpp"
#include "engines/vulkan/ceiling.hpp"

namespace accel::vulkan {
namespace {

TEST(VulkanCeiling, DeviceTypesAndSoftwareDevices) {
  EXPECT_EQ(device_type_name(2), "discrete_gpu");
  EXPECT_EQ(device_type_name(4), "cpu");
  EXPECT_EQ(device_type_name(99), "other");
  EXPECT_TRUE(is_software_device("cpu", "anything", ""));
  EXPECT_TRUE(is_software_device("other", "llvmpipe (LLVM 15.0.6, 256 bits)", "llvmpipe"));
  EXPECT_TRUE(is_software_device("integrated_gpu", "SwiftShader Device (Subzero)", ""));
  EXPECT_FALSE(is_software_device("discrete_gpu", "NVIDIA H200", "NVIDIA"));
  EXPECT_FALSE(is_software_device("integrated_gpu", "AMD Radeon Graphics (RADV GFX1036)", "radv"));
}

TEST(VulkanCeiling, IdentityStrings) {
  EXPECT_EQ(api_version_string((1u << 22) | (3u << 12) | 277u), "1.3.277");
  const unsigned char b[] = {0x00, 0xab, 0x10};
  EXPECT_EQ(hex_bytes(b, 3), "00ab10");
  EXPECT_EQ(pci_string(0, 0x19, 0, 0), "0000:19:00.0");
  EXPECT_EQ(normalize_pci("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(normalize_pci("0000:03:00.1"), "0000:03:00.1");
  EXPECT_EQ(normalize_pci("cuda:0"), "");
  EXPECT_EQ(key("compute", "fma", "fp32", "chains32"), "bench/vulkan/compute/fma/fp32/chains32");
}

TEST(VulkanCeiling, MemoryBuffersAreLargeOnGpusSmallOnSoftware) {
  DeviceInfo gpu;
  gpu.device_local_bytes = 141ull << 30;
  gpu.max_storage_buffer_range = 0xffffffffu;
  EXPECT_EQ(memory_buffer_bytes(gpu, false), 1ull << 30);                 // 8 x 128 MiB
  EXPECT_EQ(memory_buffer_bytes(gpu, false, 50ull << 20), 400ull << 20);  // 8 x a 50 MiB L2
  gpu.device_local_bytes = 2ull << 30;                                    // a quarter of a 2 GiB card
  EXPECT_EQ(memory_buffer_bytes(gpu, false), 512ull << 20);
  gpu.device_local_bytes = 141ull << 30;
  gpu.max_storage_buffer_range = 134217728;  // 128 MiB
  EXPECT_EQ(memory_buffer_bytes(gpu, false), 128ull << 20);
  DeviceInfo sw;
  sw.software = true;
  EXPECT_EQ(memory_buffer_bytes(sw, true), 4ull << 20);
  EXPECT_EQ(memory_buffer_bytes(sw, false), 16ull << 20);
}

TEST(VulkanCeiling, MemoryBuffersFollowTheKbLastLevelCache) {
  const GpuPeakTable table = GpuPeakTable::load(ACCEL_KB_DIR);
  DeviceInfo d;
  d.device_local_bytes = 192ull << 30;
  d.max_storage_buffer_range = 0xffffffffu;
  d.name = "AMD Instinct MI300X";  // 256 MiB Infinity Cache: 2 GiB, more than the 1 GiB default
  CacheSizing s = cache_sizing(d, &table);
  ASSERT_TRUE(s.llc_bytes.has_value()) << s.sizing;
  EXPECT_EQ(*s.llc_bytes, 256ull << 20);
  EXPECT_EQ(memory_buffer_bytes(d, false, s.llc_bytes), 2ull << 30);
  EXPECT_NE(s.sizing.find("256 MiB Infinity Cache"), std::string::npos) << s.sizing;
  EXPECT_NE(s.sizing.find("rocm.docs.amd.com"), std::string::npos) << s.sizing;
  d.name = "AMD Radeon RX 6650 XT (RADV NAVI23)";  // Mesa's name: the driver's parenthesis is dropped
  d.device_local_bytes = 8ull << 30;
  s = cache_sizing(d, &table);
  ASSERT_TRUE(s.llc_bytes.has_value()) << s.sizing;
  EXPECT_EQ(*s.llc_bytes, 32ull << 20);
  EXPECT_EQ(memory_buffer_bytes(d, false, s.llc_bytes), 256ull << 20);  // 8 x 32 MiB
  d.name = "NVIDIA H100 PCIe";
  d.device_local_bytes = 80ull << 30;
  s = cache_sizing(d, &table);
  ASSERT_TRUE(s.llc_bytes.has_value()) << s.sizing;
  EXPECT_EQ(memory_buffer_bytes(d, false, s.llc_bytes), 400ull << 20);  // 8 x 50 MiB L2
  d.name = "Some Future GPU 9000";
  s = cache_sizing(d, &table);
  EXPECT_FALSE(s.llc_bytes.has_value());
  EXPECT_NE(s.sizing.find("no row"), std::string::npos) << s.sizing;
  EXPECT_FALSE(cache_sizing(d, nullptr).llc_bytes.has_value());
  EXPECT_EQ(datasheet_name("Intel(R) Arc(tm) A770 Graphics (DG2)"), "Intel(R) Arc(tm) A770 Graphics");
  EXPECT_EQ(datasheet_name("NVIDIA H200"), "NVIDIA H200");
}

TEST(VulkanCeiling, Int8DotChecksumIsExact) {
  EXPECT_EQ(dot4_i8_packed(0x01020304, 0x01010101), 10);
  EXPECT_EQ(dot4_i8_packed(static_cast<std::int32_t>(0xFF7F8001u), static_cast<std::int32_t>(0x02020202u)),
            2 * (-1 + 127 - 128 + 1));
  const DotParams p = dot_params();
  EXPECT_EQ(dot4_i8_packed(0x00000001, p.b), 3);  // b's bytes are (3, -5, 7, -11)
  EXPECT_EQ(dot4_i8_packed(0x01000000, p.b), -11);
  // Brute force, step by step, against the cycle-skipping host checksum.
  for (const std::uint32_t lane : {0u, 1u, 2097151u}) {
    for (const std::uint32_t iterations : {0u, 1u, 7u, 5000u}) {
      std::uint32_t sum = 0;
      for (int k = 0; k < kDotChains; ++k) {
        std::uint32_t x = static_cast<std::uint32_t>(p.seed) + lane * 0x9E3779B1u +
                          static_cast<std::uint32_t>(k) * 0x01010101u;
        for (std::uint64_t s = 0; s < 4ull * iterations; ++s) {
          x = static_cast<std::uint32_t>(dot4_i8_packed(static_cast<std::int32_t>(x), p.b)) +
              static_cast<std::uint32_t>(p.c);
        }
        sum += x;
      }
      EXPECT_EQ(static_cast<std::uint32_t>(dot_lane_expected(p, lane, iterations)), sum)
          << "lane " << lane << " iterations " << iterations;
    }
  }
  // A trip count the growth can reach (2^24) stays cheap on the host.
  const auto t0 = std::chrono::steady_clock::now();
  (void)dot_lane_expected(p, 12345, 1u << 24);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
}

TEST(VulkanCeiling, DispatchGrowsUntilTheTarget) {
  EXPECT_FALSE(next_iterations(64, 120, 100).has_value());
  EXPECT_EQ(*next_iterations(64, 50, 100), 154u);     // 2 x 1.2, rounded up
  EXPECT_EQ(*next_iterations(64, 99, 100), 128u);     // at least 2x
  EXPECT_EQ(*next_iterations(64, 0.01, 100), 4096u);  // at most 64x
  EXPECT_FALSE(next_iterations(1u << 24, 1, 100).has_value());
  // From 64 trips at 0.5 ms, a few steps reach 100 ms.
  std::uint32_t it = 64;
  double ms = 0.5;
  int steps = 0;
  while (auto n = next_iterations(it, ms, 100)) {
    ms = ms * *n / it;
    it = *n;
    ++steps;
  }
  EXPECT_GE(ms, 100);
  EXPECT_LE(steps, 3);
}

TEST(VulkanCeiling, FmaChecksumClosedForm) {
  const FmaParams p = fma_params(false);
  // Zero trips: the sum of the 32 initial values (lane 0: 0.25 + 0.1 j + 0.4 k).
  EXPECT_NEAR(fma_lane_expected(p, 0, 0), 32 * 0.25 + 8 * (0.1 * 6) + 4 * (0.4 * 28), 1e-9);
  // Many trips: every chain at the fixed point c / (1 - b) = 1.
  EXPECT_NEAR(fma_lane_expected(p, 5, 1u << 20), 32.0 * p.c / (1.0 - p.b), 1e-9);
  // One trip = 4 steps of x <- b x + c, chain by chain.
  double sum = 0;
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 4; ++j) {
      double x = 0.25 + 3 * 0.0009765625 + 0.1 * j + 0.4 * k;
      for (int s = 0; s < 4; ++s) x = x * p.b + p.c;
      sum += x;
    }
  }
  EXPECT_NEAR(fma_lane_expected(p, 3, 1), sum, 1e-9);
  EXPECT_NEAR(fma_lane_expected(fma_params(true), 0, 1000), 32.0, 1e-9);
}

TEST(VulkanCeiling, ReadChecksumIsPositionWeighted) {
  std::uint32_t want = 0;
  for (std::uint32_t e = 0; e < 3; ++e) {
    std::uint32_t s = 0;
    for (std::uint32_t j = 0; j < 4; ++j) s += fill_word(e * 4 + j, 7);
    want += s * (e + 1);
  }
  EXPECT_EQ(read_checksum_expected(12, 7), want);
  EXPECT_NE(fill_word(1, 7), fill_word(2, 7));
}

TEST(VulkanCeiling, TimingCrossCheck) {
  EXPECT_EQ(timing_cross_check(100, 101), "");
  EXPECT_EQ(timing_cross_check(0.4, 0.5), "");  // short submits: host overhead is fine
  EXPECT_NE(timing_cross_check(100, 50), "");   // device longer than the host saw
  EXPECT_NE(timing_cross_check(10, 100), "");   // device a tenth of a long host wait
}

Result framework_row(const std::string& key, const std::string& device, const char* metric, double v) {
  Result r;
  r.key = key;
  r.kind = ResultKind::bench;
  r.device = device;
  r.status = Status::ok;
  r.metrics[metric] = v;
  return r;
}

DeviceInfo h200(int index = 0) {
  DeviceInfo d;
  d.index = index;
  d.name = "NVIDIA H200";
  d.type = "discrete_gpu";
  d.pci_address = "0000:19:00.0";
  return d;
}

TEST(VulkanCeiling, FrameworkRatioJoinsByPciAddress) {
  std::vector<Result> v;
  v.push_back(make_row(h200(), "memory", "copy", "u32", "large", {100, 100, 100}, Work{0, 4.4e8}));
  v.push_back(make_row(h200(), "compute", "fma", "fp32", "chains32", {1000}, Work{60e12 * 1e-3, 0}));
  EXPECT_NEAR(v[0].metrics.at("gbps"), 4400, 1e-6);
  Environment env;
  accel::DeviceInfo cuda0;
  cuda0.id = "cuda:0";
  cuda0.name = "NVIDIA H200";
  cuda0.pci_bus_id = "00000000:19:00.0";
  accel::DeviceInfo cuda1 = cuda0;
  cuda1.id = "cuda:1";
  cuda1.pci_bus_id = "00000000:2A:00.0";
  env.devices = {cuda0, cuda1};
  const std::vector<Result> fw = {
      framework_row("bench/cuda/memory/copy/fp32/rotating", "cuda:1", "gbps", 1000),  // another card
      framework_row("bench/cuda/memory/copy/fp32/rotating", "cuda:0", "gbps", 4180),
      framework_row("bench/cuda/gemm/square/fp32/4096x4096x4096", "cuda:0", "tflops", 51)};
  attach_framework_ratios(v, fw, env);
  EXPECT_NEAR(v[0].metrics.at("framework_ratio"), 0.95, 1e-9);
  EXPECT_EQ(v[0].evidence["framework"]["device"], "cuda:0");
  EXPECT_EQ(v[0].evidence["framework"]["joined_by"], "pci_address");
  EXPECT_NEAR(v[1].metrics.at("framework_ratio"), 0.85, 1e-9);
}

TEST(VulkanCeiling, SoftwareDeviceIsNeverACeiling) {
  DeviceInfo sw;
  sw.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  sw.type = "cpu";
  sw.software = true;
  std::vector<Result> v{make_row(sw, "memory", "copy", "u32", "large", {100}, Work{0, 1e6})};
  ASSERT_FALSE(v[0].warnings.empty());
  EXPECT_NE(v[0].warnings[0].find("not a GPU ceiling"), std::string::npos);
  Environment env;
  accel::DeviceInfo cpu;
  cpu.id = "cpu";
  cpu.name = "llvmpipe";
  env.devices = {cpu};
  attach_framework_ratios(v, {framework_row("bench/cpu/memory/copy/fp32/rotating", "cpu", "gbps", 5)}, env);
  EXPECT_EQ(v[0].metrics.count("framework_ratio"), 0u);
  vulkan::Run run;
  run.devices = {sw};
  run.results = v;
  EXPECT_NE(render(run).find("SOFTWARE"), std::string::npos);
}

TEST(VulkanCeiling, DatasheetFp32IsTheVectorRate) {
  const GpuPeakTable table = GpuPeakTable::load(ACCEL_KB_DIR);
  std::vector<Result> v{
      make_row(h200(), "compute", "fma", "fp32", "chains32", {1000}, Work{60e12 * 1e-3, 0}),
      make_row(h200(), "memory", "copy", "u32", "large", {1000}, Work{0, 4.32e9}),
      make_row(h200(), "compute", "fma", "fp16", "chains32", {1000}, Work{120e12 * 1e-3, 0})};
  attach_datasheet(v, table);
  ASSERT_TRUE(v[0].roofline.has_value());
  EXPECT_DOUBLE_EQ(v[0].roofline->peak_tflops, 67);
  EXPECT_NEAR(v[0].roofline->percent_of_bound, 100 * 60 / 67.0, 1e-6);
  ASSERT_TRUE(v[1].roofline.has_value());
  EXPECT_NEAR(v[1].roofline->percent_of_bound, 90, 1e-6);  // 4320 of 4800 GB/s
  EXPECT_FALSE(v[2].roofline.has_value());                 // the table's fp16 is the tensor-core rate
}

TEST(VulkanCeiling, NoLoaderIsAClearError) {
  Options o;
  o.loader_names = {"libaccel-no-such-vulkan.so.1"};
  const vulkan::Run run = vulkan::run(o);
  EXPECT_TRUE(run.devices.empty());
  EXPECT_TRUE(run.results.empty());
  if (run.built) {
    EXPECT_NE(run.error.find("no Vulkan loader"), std::string::npos) << run.error;
  }
  EXPECT_NE(render(run).find("Vulkan ceiling:"), std::string::npos);
}

// Every shader on Mesa's lavapipe. Skipped when the engine is not built or no
// software device is installed, unless ACCEL_REQUIRE_VULKAN is set (CI).
TEST(VulkanCeiling, LavapipeRunsEveryShaderWithRightChecksums) {
  Options o;
  o.quick = true;
  const auto t0 = std::chrono::steady_clock::now();
  const vulkan::Run run = vulkan::run(o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const bool required = std::getenv("ACCEL_REQUIRE_VULKAN") != nullptr;
  const DeviceInfo* lvp = nullptr;
  for (const auto& d : run.devices) {
    if (d.name.find("llvmpipe") != std::string::npos) lvp = &d;
  }
  if (!lvp) {
    if (required) FAIL() << "no lavapipe device: " << run.error;
    GTEST_SKIP() << "no lavapipe (mesa-vulkan-drivers) device: " << run.error;
  }
  EXPECT_TRUE(lvp->software);
  EXPECT_EQ(lvp->type, "cpu");
  EXPECT_LT(seconds, 30);
  const std::string device = "vulkan:" + std::to_string(lvp->index);
  std::map<std::string, const Result*> rows;
  for (const auto& r : run.results) {
    if (r.device == device) rows[r.key] = &r;
  }
  for (const char* k : {"bench/vulkan/compute/fma/fp32/chains32", "bench/vulkan/memory/copy/u32/large",
                        "bench/vulkan/memory/read/u32/large", "bench/vulkan/transfer/h2d/u8/8MiB",
                        "bench/vulkan/transfer/d2h/u8/8MiB"}) {
    ASSERT_TRUE(rows.count(k)) << k;
    const Result& r = *rows[k];
    EXPECT_EQ(r.status, Status::ok) << k << ": " << r.reason;
    ASSERT_TRUE(r.accuracy.has_value()) << k;
    ASSERT_TRUE(r.timing.has_value()) << k;
    EXPECT_GT(r.timing->median_us, 0) << k;
    EXPECT_TRUE(r.metrics.count("tflops") || r.metrics.count("gbps")) << k;
    EXPECT_TRUE(r.evidence["vulkan_device"]["software"].get<bool>()) << k;
    ASSERT_FALSE(r.warnings.empty()) << k;
    EXPECT_NE(r.warnings[0].find("not a GPU ceiling"), std::string::npos) << k;
  }
  if (lvp->fp16) {
    const auto it = rows.find("bench/vulkan/compute/fma/fp16/chains32");
    ASSERT_NE(it, rows.end());
    EXPECT_EQ(it->second->status, Status::ok) << it->second->reason;
  }
  // int8 dot product: lavapipe (Mesa 22.3) has VK_KHR_shader_integer_dot_product,
  // not accelerated; every build that has spirv-as measures it.
  const auto dot = rows.find("bench/vulkan/compute/dot/int8/chains32");
  ASSERT_NE(dot, rows.end());
  if (lvp->int8_dot) {
    EXPECT_EQ(dot->second->status, Status::ok) << dot->second->reason;
    EXPECT_GT(dot->second->metrics.at("tops"), 0);
    EXPECT_EQ(dot->second->metrics.count("tflops"), 0u);
    ASSERT_TRUE(dot->second->accuracy.has_value());
    EXPECT_EQ(dot->second->accuracy->rel_error, 0);
  } else {
    EXPECT_EQ(dot->second->status, Status::unavailable);
    EXPECT_FALSE(dot->second->reason.empty());
    if (required && int8_dot_built()) ADD_FAILURE() << "lavapipe's int8 row: " << dot->second->reason;
  }
  EXPECT_NE(render(run).find("SOFTWARE"), std::string::npos);
}

}  // namespace
}  // namespace accel::vulkan
