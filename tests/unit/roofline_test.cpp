// Roofline arithmetic on hand-computed cases (Williams, Waterman, Patterson,
// CACM 2009): compute-bound GEMM, memory-bound copy, the ridge point, the
// 105% rule, and inputs that must not produce NaN or inf.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/ceilings.hpp"
#include "core/json.hpp"
#include "core/peaks.hpp"
#include "core/roofline.hpp"

using namespace accel;

namespace {

Peak datasheet(double value, const std::string& unit, const std::string& source) {
  Peak p;
  p.value = value;
  p.unit = unit;
  p.basis = "datasheet";
  p.source = source;
  return p;
}

Peak h200_bf16() { return datasheet(989.5, "TFLOP/s", "NVIDIA H200 datasheet"); }
Peak h200_bw() { return datasheet(4800, "GB/s", "NVIDIA H200 datasheet"); }

Work work(double flops, double bytes) {
  Work w;
  w.flops = flops;
  w.bytes = bytes;
  return w;
}

void expect_all_finite(const Roofline& r) {
  for (double v : {r.intensity_flop_per_byte, r.peak_tflops, r.bandwidth_gbps, r.bound_tflops,
                   r.achieved_tflops, r.achieved_gbps, r.percent_of_bound}) {
    EXPECT_TRUE(std::isfinite(v)) << v;
  }
  const json j = r;  // nlohmann writes NaN/inf as null: JSON cannot hold them
  EXPECT_EQ(j.dump().find("null"), std::string::npos) << j.dump();
}

}  // namespace

TEST(Roofline, ComputeBoundGemm) {
  // bf16 4096^3 GEMM: 2*N^3 FLOP; A, B read once and C written once, 2 bytes each.
  const double n = 4096;
  const Work w = work(2 * n * n * n, 3 * n * n * 2);
  const Roofline r = make_roofline(w, 200.0, h200_bf16(), h200_bw());
  EXPECT_NEAR(r.intensity_flop_per_byte, 2 * n / 6, 1e-9);  // 1365.33 FLOP/byte
  // Memory roof 1365.33 x 4800 GB/s = 6553.6 TFLOP/s > 989.5: compute-bound.
  EXPECT_DOUBLE_EQ(r.bound_tflops, 989.5);
  EXPECT_EQ(roofline_limiter(r), "compute");
  EXPECT_NEAR(r.achieved_tflops, 137438953472.0 / 200 / 1e6, 1e-9);  // 687.19
  EXPECT_NEAR(r.achieved_gbps, 100663296.0 / 200 / 1e3, 1e-9);       // 503.3
  EXPECT_NEAR(r.percent_of_bound, 100 * 687.194767 / 989.5, 1e-4);   // 69.45 %
  EXPECT_FALSE(r.above_peak);
  EXPECT_DOUBLE_EQ(r.peak_tflops, 989.5);
  EXPECT_DOUBLE_EQ(r.bandwidth_gbps, 4800);
  EXPECT_EQ(r.peak_source, "datasheet: NVIDIA H200 datasheet");
  EXPECT_EQ(r.bandwidth_source, "datasheet: NVIDIA H200 datasheet");
  expect_all_finite(r);
}

TEST(Roofline, MemoryBoundCopyWithZeroFlops) {
  // 1 GiB device copy: 1 GiB read + 1 GiB written, no FLOPs.
  const double bytes = 2.0 * (1ull << 30);
  const Roofline r = make_roofline(work(0, bytes), 500.0, h200_bf16(), h200_bw());
  EXPECT_DOUBLE_EQ(r.intensity_flop_per_byte, 0);
  EXPECT_DOUBLE_EQ(r.achieved_tflops, 0);
  EXPECT_NEAR(r.achieved_gbps, bytes / 500 / 1e3, 1e-9);  // 4294.97 GB/s
  EXPECT_DOUBLE_EQ(r.bound_tflops, 0);
  EXPECT_NEAR(r.percent_of_bound, 100 * 4294.967296 / 4800, 1e-6);  // 89.48 % of the bandwidth
  EXPECT_FALSE(r.above_peak);
  EXPECT_EQ(roofline_limiter(r), "memory");
  expect_all_finite(r);
}

TEST(Roofline, MemoryBoundElementwise) {
  // fp32 add of 2^28 elements: 1 FLOP per element, 12 bytes per element.
  const double e = 1 << 28;
  const Roofline r = make_roofline(work(e, 12 * e), 1000.0, datasheet(67, "TFLOP/s", "x"), h200_bw());
  EXPECT_NEAR(r.intensity_flop_per_byte, 1.0 / 12, 1e-12);
  EXPECT_NEAR(r.bound_tflops, 4800.0 / 12 / 1e3, 1e-12);  // 0.4 TFLOP/s, far below 67
  EXPECT_EQ(roofline_limiter(r), "memory");
  EXPECT_NEAR(r.percent_of_bound, 100 * r.achieved_gbps / 4800, 1e-9);  // the same as % of bandwidth
}

TEST(Roofline, RidgePoint) {
  const Peak p = datasheet(100, "TFLOP/s", "p");
  const Peak w = datasheet(1000, "GB/s", "w");
  EXPECT_DOUBLE_EQ(ridge_point(p, w), 100);  // FLOP/byte where 100 TFLOP/s = I x 1 TB/s
  EXPECT_DOUBLE_EQ(ridge_point(p, Peak{}), 0);

  // Exactly at the ridge both roofs are 100 TFLOP/s; 1e9 FLOP in 10 us = 100 TFLOP/s.
  const Roofline at = make_roofline(work(1e9, 1e7), 10.0, p, w);
  EXPECT_DOUBLE_EQ(at.intensity_flop_per_byte, 100);
  EXPECT_DOUBLE_EQ(at.bound_tflops, 100);
  EXPECT_NEAR(at.percent_of_bound, 100, 1e-9);
  EXPECT_FALSE(at.above_peak);

  const Roofline below = make_roofline(work(1e9, 2e7), 10.0, p, w);  // I = 50
  EXPECT_DOUBLE_EQ(below.bound_tflops, 50);
  EXPECT_EQ(roofline_limiter(below), "memory");
  const Roofline above = make_roofline(work(1e9, 5e6), 10.0, p, w);  // I = 200
  EXPECT_DOUBLE_EQ(above.bound_tflops, 100);
  EXPECT_EQ(roofline_limiter(above), "compute");
}

TEST(Roofline, AbovePeakFlagAt106NotAt104) {
  EXPECT_DOUBLE_EQ(kAbovePeakFactor, 1.05);
  const Peak p = datasheet(100, "TFLOP/s", "p");
  // t = 1000 us: A = F / 1e9 TFLOP/s.
  const Roofline r106 = make_roofline(work(106e9, 0), 1000.0, p, Peak{});
  EXPECT_NEAR(r106.percent_of_bound, 106, 1e-9);
  EXPECT_TRUE(r106.above_peak);
  const Roofline r104 = make_roofline(work(104e9, 0), 1000.0, p, Peak{});
  EXPECT_NEAR(r104.percent_of_bound, 104, 1e-9);
  EXPECT_FALSE(r104.above_peak);

  // The same rule for bandwidth on bytes-only work: G = B / 1e6 GB/s at 1000 us.
  const Peak w = datasheet(1000, "GB/s", "w");
  EXPECT_TRUE(make_roofline(work(0, 1.06e9), 1000.0, p, w).above_peak);
  EXPECT_FALSE(make_roofline(work(0, 1.04e9), 1000.0, p, w).above_peak);
  // And on the memory roof of FLOP work (intensity 1, bound 1 TFLOP/s).
  EXPECT_TRUE(make_roofline(work(1.06e9, 1.06e9), 1000.0, p, w).above_peak);
  EXPECT_FALSE(make_roofline(work(1.04e9, 1.04e9), 1000.0, p, w).above_peak);
}

TEST(Roofline, FlopsWithoutBytesIsComputeOnly) {
  const Roofline r = make_roofline(work(1e12, 0), 1e6, datasheet(10, "TFLOP/s", "p"), h200_bw());
  EXPECT_DOUBLE_EQ(r.intensity_flop_per_byte, 0);  // undefined, reported as 0
  EXPECT_DOUBLE_EQ(r.bound_tflops, 10);
  EXPECT_DOUBLE_EQ(r.achieved_tflops, 1.0);  // 1e12 FLOP in 1 s = 1 TFLOP/s
  EXPECT_NEAR(r.percent_of_bound, 10, 1e-12);
  expect_all_finite(r);
}

TEST(Roofline, ZeroNegativeAndNonFiniteMediansNeverDivideByZero) {
  const Work w = work(2e12, 1e9);
  for (double t : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    SCOPED_TRACE(t);
    const Roofline r = make_roofline(w, t, h200_bf16(), h200_bw());
    EXPECT_DOUBLE_EQ(r.achieved_tflops, 0);
    EXPECT_DOUBLE_EQ(r.achieved_gbps, 0);
    EXPECT_DOUBLE_EQ(r.percent_of_bound, 0);
    EXPECT_FALSE(r.above_peak);
    EXPECT_GT(r.bound_tflops, 0);  // the bound does not depend on the time
    expect_all_finite(r);
    expect_all_finite(make_roofline(work(0, 1e9), t, h200_bf16(), h200_bw()));
  }
  // A denormal median would overflow to inf: reported as 0 and flagged, never inf.
  const Roofline tiny = make_roofline(w, 1e-320, h200_bf16(), h200_bw());
  expect_all_finite(tiny);
  EXPECT_TRUE(tiny.above_peak);
}

TEST(Roofline, BadWorkAndUnknownPeaks) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_all_finite(make_roofline(work(nan, nan), 10, h200_bf16(), h200_bw()));
  expect_all_finite(make_roofline(work(-1e9, -1e9), 10, h200_bf16(), h200_bw()));
  const Roofline empty = make_roofline(work(0, 0), 10, h200_bf16(), h200_bw());
  EXPECT_DOUBLE_EQ(empty.percent_of_bound, 0);
  EXPECT_FALSE(empty.above_peak);

  // Unknown compute peak: the memory roof alone bounds FLOP work.
  Peak unknown;
  unknown.unit = "TFLOP/s";
  unknown.basis = "unknown";
  unknown.source = "Intel Arc A770: XMX rate not verified";
  const Roofline mem_only = make_roofline(work(1e9, 1e7), 10, unknown, datasheet(1000, "GB/s", "w"));
  EXPECT_DOUBLE_EQ(mem_only.peak_tflops, 0);
  EXPECT_DOUBLE_EQ(mem_only.bound_tflops, 100);
  EXPECT_EQ(mem_only.peak_source, "unknown: Intel Arc A770: XMX rate not verified");

  // Nothing known: no bound, no percent, no flag.
  const Roofline none = make_roofline(work(1e9, 1e7), 10, unknown, Peak{});
  EXPECT_DOUBLE_EQ(none.bound_tflops, 0);
  EXPECT_DOUBLE_EQ(none.percent_of_bound, 0);
  EXPECT_FALSE(none.above_peak);
  EXPECT_EQ(roofline_limiter(none), "unknown");
  EXPECT_EQ(none.bandwidth_source, "unknown");
  expect_all_finite(none);

  // A peak whose value is not finite is unknown, not propagated.
  Peak broken = datasheet(std::numeric_limits<double>::infinity(), "TFLOP/s", "x");
  expect_all_finite(make_roofline(work(1e9, 1e7), 10, broken, broken));
}

TEST(Roofline, SourcesCarryBasisAndFormula) {
  Peak est;
  est.value = 66.9;
  est.unit = "TFLOP/s";
  est.basis = "estimated";
  est.source = "132 SMs x 128 FP32 lanes/SM x 2 FLOP/FMA x 1980 MHz = 66.9 TFLOP/s";
  const Roofline r = make_roofline(work(1e9, 1e6), 100, est, datasheet(4800, "GB/s", "H200 datasheet"));
  EXPECT_EQ(r.peak_source, "estimated: " + est.source);
  EXPECT_EQ(r.bandwidth_source, "datasheet: H200 datasheet");
}

namespace {
Result bench_row(const std::string& category, double flops, double bytes, double median_us) {
  Result r;
  r.kind = ResultKind::bench;
  r.category = category;
  r.device = "cpu";
  r.dtype = "fp32";
  r.status = Status::ok;
  r.work.flops = flops;
  r.work.bytes = bytes;
  Timing t;
  t.median_us = median_us;
  r.timing = t;
  return r;
}
}  // namespace

TEST(Ceilings, CpuBenchWithoutDatasheetBandwidth) {
  DeviceCeilings c;
  c.device = "cpu";
  c.compute["fp32"] = measured_peak(1.0, "TFLOP/s", "test compute peak");
  c.datasheet_bandwidth.basis = "unknown";
  c.measured_bandwidth = measured_peak(20.0, "GB/s", "copy measured in the test");
  // A GEMV (1x4096x4096 fp32): 33.5 MFLOP over 67 MB, 5 ms -> 13.4 GB/s of
  // 20 measured = 67%, not 0.7% of the compute peak.
  std::vector<Result> rs{bench_row("gemm", 2.0 * 4096 * 4096, 4.0 * 4096 * 4096, 5000),
                         bench_row("memory", 2.0 * (1 << 25), 12.0 * (1 << 25), 20000)};
  annotate_rooflines(rs, {c});
  ASSERT_TRUE(rs[0].roofline);
  EXPECT_NEAR(rs[0].roofline->percent_of_bound, 67.1, 0.5);
  // A memory benchmark has no bound without a datasheet bandwidth.
  EXPECT_FALSE(rs[1].roofline);
}

TEST(Ceilings, MemoryBoundWorkWithoutABandwidthGetsNoComputeOnlyBound) {
  // bench --filter gemm on a CPU: no memory row, no datasheet bandwidth. The
  // GEMV (0.5 FLOP/byte) must not read "3% of the compute peak" (issue 19);
  // the square GEMM (85 FLOP/byte) keeps its compute bound.
  DeviceCeilings c;
  c.device = "cpu";
  c.compute["fp32"] = measured_peak(1.0, "TFLOP/s", "test compute peak");
  c.datasheet_bandwidth.basis = "unknown";
  std::vector<Result> rs{bench_row("gemm", 2.0 * 4096 * 4096, 4.0 * 4096 * 4096, 5000),
                         bench_row("gemm", 2.0 * 512 * 512 * 512, 12.0 * 512 * 512, 2000)};
  annotate_rooflines(rs, {c});
  EXPECT_FALSE(rs[0].roofline);
  ASSERT_TRUE(rs[1].roofline);
  EXPECT_NEAR(rs[1].roofline->percent_of_bound, 100.0 * 0.134 / 1.0, 1);
}

TEST(Ceilings, LlmDecodeIsDrawnAgainstTheBenchRowItNames) {
  // The row's own % of the bandwidth (decode_roofline_pct) and its roofline
  // cite one figure, the bench row of the same report (issue 19: 9.45 GB/s
  // quoted next to a copy row of 10.32).
  DeviceCeilings c;
  c.device = "cpu";
  c.compute["fp32"] = measured_peak(1.0, "TFLOP/s", "test compute peak");
  c.datasheet_bandwidth.basis = "unknown";
  c.measured_bandwidth = measured_peak(11.34, "GB/s", "best memory benchmark (bench/cpu/memory/reduce)");
  Result decode = bench_row("llm", 2e6, 1e8, 1e4);  // 10 GB/s
  decode.kind = ResultKind::llm;
  decode.evidence["bandwidth_ceiling"] = {{"key", "bench/cpu/memory/copy/fp32/rotating"}, {"gbps", 10.32}};
  std::vector<Result> rs{decode};
  annotate_rooflines(rs, {c});
  ASSERT_TRUE(rs[0].roofline);
  EXPECT_DOUBLE_EQ(rs[0].roofline->bandwidth_gbps, 10.32);
  EXPECT_NE(rs[0].roofline->bandwidth_source.find("bench/cpu/memory/copy/fp32/rotating"), std::string::npos);
  EXPECT_NEAR(rs[0].roofline->percent_of_bound, 100 * 10 / 10.32, 0.1);
}

TEST(Ceilings, MeasuredBandwidthIsTheBestMemoryBenchmark) {
  // The H200 host, 2026-11-30: copy 102 GB/s (write-allocate), reduction
  // 150 GB/s: a GEMV reading 155 GB/s is bounded by the reduction.
  auto memory = [](const std::string& name, double gbps) {
    Result m = bench_row("memory", 0, 1e9, 1e9 / (gbps * 1e9) * 1e6);
    m.name = name;
    m.key = "bench/cpu/memory/" + name + "/fp32/rotating";
    m.metrics["gbps"] = gbps;
    return m;
  };
  const std::vector<Result> measured{memory("copy", 102), memory("reduce", 150), memory("triad", 120)};
  Environment env;
  const auto ceilings = build_ceilings(env, measured, measured, nullptr);
  ASSERT_EQ(ceilings.size(), 1u);
  ASSERT_TRUE(ceilings[0].measured_bandwidth);
  EXPECT_DOUBLE_EQ(ceilings[0].measured_bandwidth->value, 150);
  EXPECT_NE(ceilings[0].measured_bandwidth->source.find("reduce"), std::string::npos);
}

TEST(Ceilings, AStreamingGemvRaisesTheMeasuredBandwidthUpToTheDatasheet) {
  // The H200 host, 2026-11-30: a BLAS GEMV read its rotated matrix at 238
  // GB/s, the best memory benchmark (a reduction) 178 GB/s.
  auto gemv = [](const std::string& device, double gbps) {
    const double bytes = 4.0 * 4096 * 4096;
    Result g = bench_row("gemm", 2.0 * 4096 * 4096, bytes, bytes / (gbps * 1e3));
    g.device = device;
    g.key = "bench/" + device + "/gemm/llm_decode/fp32/1x4096x4096";
    g.evidence["rotating_b_copies"] = 4;
    return g;
  };
  Result reduce = bench_row("memory", 0, 1e9, 1e9 / 178e3);
  reduce.key = "bench/cpu/memory/reduce/fp32/rotating";
  reduce.metrics["gbps"] = 178;
  Result square = gemv("cpu", 900);  // a cache-resident product is no stream
  square.evidence.erase("rotating_b_copies");
  const std::vector<Result> measured{reduce, gemv("cpu", 238), square};
  Environment env;
  auto ceilings = build_ceilings(env, measured, measured, nullptr);
  ASSERT_EQ(ceilings.size(), 1u);
  ASSERT_TRUE(ceilings[0].measured_bandwidth);
  EXPECT_NEAR(ceilings[0].measured_bandwidth->value, 238, 1e-6);
  EXPECT_NE(ceilings[0].measured_bandwidth->source.find("GEMV"), std::string::npos);

  // Beyond 1.5x the best memory benchmark, a GEMV is a matrix the caches
  // still hold (or a timing error): it stays under the bound, to be flagged.
  const std::vector<Result> cached{reduce, gemv("cpu", 600)};
  ceilings = build_ceilings(env, cached, cached, nullptr);
  ASSERT_TRUE(ceilings[0].measured_bandwidth);
  EXPECT_DOUBLE_EQ(ceilings[0].measured_bandwidth->value, 178);
  // Without a memory benchmark or a datasheet figure, no anchor: no bound.
  const std::vector<Result> alone{gemv("cpu", 238)};
  ceilings = build_ceilings(env, alone, alone, nullptr);
  EXPECT_FALSE(ceilings[0].measured_bandwidth);

  // With a datasheet bandwidth (H200: 4800 GB/s), a GEMV above 105% of it
  // is a timing error, never the bound; one below it counts.
  const GpuPeakTable table = GpuPeakTable::load(ACCEL_KB_DIR);
  DeviceInfo h200;
  h200.id = "cuda:0";
  h200.name = "NVIDIA H200";
  h200.vendor = "nvidia";
  env.devices.push_back(h200);
  Result copy = bench_row("memory", 0, 1e9, 1e9 / 4200e3);
  copy.device = "cuda:0";
  copy.key = "bench/cuda/memory/copy/fp32/rotating";
  copy.metrics["gbps"] = 4200;
  for (const double gemv_gbps : {9000.0, 4500.0}) {
    const std::vector<Result> gpu{copy, gemv("cuda:0", gemv_gbps)};
    ceilings = build_ceilings(env, gpu, gpu, &table);
    ASSERT_EQ(ceilings.size(), 1u);
    ASSERT_TRUE(ceilings[0].datasheet_bandwidth.known());
    ASSERT_TRUE(ceilings[0].measured_bandwidth);
    EXPECT_NEAR(ceilings[0].measured_bandwidth->value, gemv_gbps > 6000 ? 4200 : 4500, 1e-6) << gemv_gbps;
  }
}

TEST(Ceilings, TransfersAreDrawnAgainstThePcieLink) {
  // The H200 machine: PCIe 5.0 x16 (32 GT/s, 128b/130b) = 63.0 GB/s per
  // direction; pinned copies measured 55.4 GB/s (2026-11-30).
  EXPECT_NEAR(pcie_lane_gbps(32), 3.938, 1e-3);
  EXPECT_NEAR(pcie_lane_gbps(5), 0.5, 1e-9);  // PCIe 2.0, 8b/10b
  EXPECT_EQ(pcie_lane_gbps(0), 0);
  Environment env;
  DeviceInfo h200;
  h200.id = "cuda:0";
  h200.name = "NVIDIA H200";
  h200.vendor = "nvidia";
  h200.pci_bus_id = "00000000:00:06.0";
  h200.integrated = false;
  env.devices.push_back(h200);
  GpuHardware hw;
  hw.pci_address = "0000:00:06.0";
  hw.link = PcieLink{"32.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16};
  env.gpus.push_back(hw);
  auto transfer = [](const std::string& name, double gbps) {
    const double bytes = 256.0 * 1024 * 1024;
    Result r = bench_row("transfer", 0, bytes, bytes / (gbps * 1e3));
    r.device = "cuda:0";
    r.key = "bench/cuda/transfer/" + name + "/fp32/256MiB";
    return r;
  };
  std::vector<Result> rs{transfer("h2d_pinned", 55.4), transfer("h2d_pageable", 9.2),
                         transfer("d2h_c2c", 300), bench_row("launch", 0, 0, 5)};
  rs.back().device = "cuda:0";
  const auto ceilings = build_ceilings(env, rs, rs, nullptr);
  ASSERT_EQ(ceilings.size(), 1u);
  ASSERT_TRUE(ceilings[0].host_link.known());
  EXPECT_NEAR(ceilings[0].host_link.value, 63.0, 0.05);
  EXPECT_NE(ceilings[0].host_link.source.find("x16"), std::string::npos);
  annotate_rooflines(rs, ceilings);
  ASSERT_TRUE(rs[0].roofline);
  EXPECT_NEAR(rs[0].roofline->percent_of_bound, 100 * 55.4 / 63.015, 0.1);
  EXPECT_FALSE(rs[0].roofline->above_peak);
  ASSERT_TRUE(rs[1].roofline);
  EXPECT_NEAR(rs[1].roofline->percent_of_bound, 100 * 9.2 / 63.015, 0.1);
  // Faster than the link found: another path (NVLink-C2C), no bound, said why.
  EXPECT_FALSE(rs[2].roofline);
  EXPECT_TRUE(rs[2].evidence.contains("host_link_note"));
  EXPECT_FALSE(rs[3].roofline);  // launch latency has no roofline

  // An integrated GPU, or no link found, or an unreadable maximum speed
  // (the current one may be an idle 2.5 GT/s): no bound.
  env.devices[0].integrated = true;
  EXPECT_FALSE(build_ceilings(env, rs, rs, nullptr)[0].host_link.known());
  env.devices[0].integrated = false;
  env.gpus[0].link = PcieLink{"2.5 GT/s PCIe", "Unknown", 16, 16};
  EXPECT_FALSE(build_ceilings(env, rs, rs, nullptr)[0].host_link.known());
  env.gpus[0].link.reset();
  EXPECT_FALSE(build_ceilings(env, rs, rs, nullptr)[0].host_link.known());

  // An Arc board: the GPU endpoint's link is internal (2.5 GT/s x1); the
  // slot's link, on the board switch's upstream port, is the host link.
  env.gpus[0].link = PcieLink{"2.5 GT/s PCIe", "2.5 GT/s PCIe", 1, 1};
  env.gpus[0].vendor_info["pci"]["slot_link"] = {{"address", "0000:01:00.0"},
                                                 {"current_speed", "16.0 GT/s PCIe"},
                                                 {"max_speed", "16.0 GT/s PCIe"},
                                                 {"current_width", 16},
                                                 {"max_width", 16}};
  auto arc = build_ceilings(env, rs, rs, nullptr);
  EXPECT_NEAR(arc[0].host_link.value, 16 * 128.0 / 130 / 8 * 16, 1e-6);

  // A link narrower when probed (x4) than under the copies: a 25 GB/s copy
  // is drawn against the maximum width (x16), not called another path.
  env.gpus[0].vendor_info = json::object();
  env.gpus[0].link = PcieLink{"2.5 GT/s PCIe", "16.0 GT/s PCIe", 4, 16};
  std::vector<Result> narrow{transfer("h2d_pinned", 25)};
  annotate_rooflines(narrow, build_ceilings(env, narrow, narrow, nullptr));
  ASSERT_TRUE(narrow[0].roofline);
  EXPECT_NEAR(narrow[0].roofline->percent_of_bound, 100 * 25 / (16 * 128.0 / 130 / 8 * 16), 0.1);
  EXPECT_FALSE(narrow[0].evidence.contains("host_link_note"));
}

TEST(Roofline, BurstFiguresAndSustainedDrop) {
  // The H200 bf16 8192^3 GEMM of 2026-11-30: 1.38 ms per call at first,
  // 1.62 ms sustained (power cap).
  Result r;
  r.metrics["tflops"] = 678.0;
  r.metrics["arithmetic_intensity"] = 2730.0;
  Timing t;
  t.median_us = 1620;
  t.burst_us = 1380;
  r.timing = t;
  add_burst_figures(r);
  EXPECT_NEAR(r.metrics.at("tflops_burst"), 678.0 * 1620 / 1380, 1e-9);
  EXPECT_EQ(r.metrics.count("arithmetic_intensity_burst"), 0u);
  EXPECT_NEAR(r.evidence.at("sustained_drop_pct").get<double>(), 100.0 * (1 - 1380.0 / 1620), 1e-9);

  // Within 5%: burst figure, no drop evidence. No burst: nothing.
  Result steady;
  steady.metrics["gbps"] = 4000;
  t.burst_us = 1600;
  steady.timing = t;
  add_burst_figures(steady);
  EXPECT_TRUE(steady.metrics.count("gbps_burst"));
  EXPECT_FALSE(steady.evidence.contains("sustained_drop_pct"));
  // A host-timed burst slower than the event-timed median (short calls): no burst figure.
  Result launch_bound;
  launch_bound.metrics["tflops"] = 100;
  t.median_us = 10;
  t.burst_us = 15;
  launch_bound.timing = t;
  add_burst_figures(launch_bound);
  EXPECT_FALSE(launch_bound.metrics.count("tflops_burst"));
  Result none;
  none.metrics["gbps"] = 4000;
  add_burst_figures(none);
  EXPECT_EQ(none.metrics.size(), 1u);
}
