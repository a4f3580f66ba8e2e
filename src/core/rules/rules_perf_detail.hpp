// Internal to the performance rules (rules_perf*.cpp): thresholds, references and
// helpers they share, and the rule functions the table in rules_perf.cpp
// lists (one concept per file). Not a public API.
//
// Thresholds, with why they sit where they do:
//  - kGemmLowPercent 30 (GPU) / 20 (CPU): cuBLAS, hipBLASLt and rocBLAS reach
//    60-80% of the datasheet peak on large square GEMMs, MKL/OpenBLAS 50-90%
//    of the CPU estimate; below 30% the library, the clocks or the dtype path
//    is wrong, not the shape. The CPU estimate (cores x clock x SIMD width)
//    is rougher, hence 20%.
//  - kBandwidthLowPercent 40: a device copy reaches 80-90% of datasheet HBM or
//    GDDR bandwidth; under 40% is a throttled or misconfigured device.
//  - kAutocastRatio 2: fp16/bf16 at least twice the fp32 (TF32 off) rate
//    means the matrix units are idle in fp32 code.
//  - kTf32Ratio 1.5: TF32 at least 1.5x plain fp32.
//  - kHalfSlowRatio 2: fp16/bf16 GEMMs (or training steps) at least twice as
//    slow as fp32: the device has no fast path for the dtype (a CPU without
//    AVX512-BF16/AMX ran bf16 GEMMs 36x slower than fp32 and a bf16 CNN
//    training step 15x slower, issue 19), so low precision only costs.
//  - kPinnedRatio 1.5: pinned copies at least 1.5x pageable ones.
//  - kLaunchIdle 0.4: the engine calls a decode step launch-bound when the
//    device is busy less than 60% of it (llm_suite.cpp).
//  - small batch: throughput at the largest batch at least 2x the smallest,
//    at >= 50% scaling efficiency.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/roofline.hpp"
#include "core/rules/context.hpp"

namespace accel::rules::perf {

constexpr double kGemmLowPercentGpu = 30;
constexpr double kGemmLowPercentCpu = 20;
constexpr double kBandwidthLowPercent = 40;
constexpr double kAutocastRatio = 2.0;
constexpr double kTf32Ratio = 1.5;
constexpr double kHalfSlowRatio = 2.0;
constexpr double kPinnedRatio = 1.5;
constexpr double kLaunchIdle = 0.4;
constexpr double kBatchGain = 2.0;
constexpr double kBatchEfficiency = 0.5;
/// GEMMs smaller than this (2 x 464^3 FLOP) are dominated by launch and tiling overheads.
constexpr double kMinGemmFlops = 2e8;
/// First calls that cost at least this much more than a timed call, summed
/// over a device's checks, and this share of their time, are worth a tip
/// (the H200's default run: 3.0 s of 11.6 s; its full ops: 10.2 of 29.8 s).
constexpr double kFirstUseMinMs = 1000;
constexpr double kFirstUseMinShare = 0.10;

constexpr const char* kRefAmp = "https://pytorch.org/docs/stable/amp.html";
constexpr const char* kRefTf32 =
    "https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices";
constexpr const char* kRefPinned =
    "https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers";
constexpr const char* kRefJit = "https://pytorch.org/docs/stable/notes/cuda.html#just-in-time-compilation";
constexpr const char* kRefWarmup = "https://pytorch.org/tutorials/recipes/recipes/benchmark.html";
constexpr const char* kRefMiopenCache = "https://rocm.docs.amd.com/projects/MIOpen/en/latest/cache.html";
constexpr const char* kRefGraphs = "https://pytorch.org/docs/stable/notes/cuda.html#cuda-graphs";
constexpr const char* kRefSdpa =
    "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html";
constexpr const char* kRefRoofline =
    "docs/roofline.md (accel-doctor); https://doi.org/10.1145/1498765.1498785";

inline bool ok(const Result& r) { return r.status == Status::ok; }

inline std::string device_type(const std::string& device) { return device.substr(0, device.find(':')); }

struct BenchRow {
  const Result* r;
  BenchKey k;
};

inline std::vector<BenchRow> bench_rows(const Ctx& c, std::string_view group) {
  std::vector<BenchRow> out;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || !ok(r)) continue;
    auto k = BenchKey::parse(r.key);
    if (k && k->group == group) out.push_back({&r, *k});
  }
  return out;
}

/// Best `metric` per (device, dtype) over rows of a group.
inline std::map<std::pair<std::string, std::string>, const Result*> best_by_device_dtype(
    const std::vector<BenchRow>& rows, const std::string& m) {
  std::map<std::pair<std::string, std::string>, const Result*> best;
  for (const auto& row : rows) {
    if (row.r->roofline && row.r->roofline->above_peak) continue;  // a timing error, not a rate
    const auto key = std::make_pair(row.r->device, row.k.dtype);
    auto& b = best[key];
    if (!b || metric(*row.r, m) > metric(*b, m)) b = row.r;
  }
  return best;
}

inline bool peak_emulated(const Roofline& rf) {
  return contains_ci(rf.peak_source, "emulated") || contains_ci(rf.peak_source, " runs as fp32");
}

inline std::string autocast_device(const Platform& p, const std::string& device) {
  const std::string t = device_type(device);
  if (t == "cpu") return "cpu";
  if (p.backend == "mps") return "mps";
  if (p.backend == "xpu") return "xpu";
  return "cuda";  // ROCm builds call HIP devices "cuda" too
}

// Rule functions, by file.
// rules_perf_blas.cpp: the CPU BLAS library (reference netlib)
void rule_reference_blas(const Ctx& c, std::vector<Finding>& out);
// rules_perf_peaks.cpp: GEMM, bandwidth, throttling and first-use cost against the peaks
void rule_half_slower(const Ctx& c, std::vector<Finding>& out);
void rule_gemm_under_peak(const Ctx& c, std::vector<Finding>& out);
void rule_sustained_throttle(const Ctx& c, std::vector<Finding>& out);
void rule_first_use_cost(const Ctx& c, std::vector<Finding>& out);
void rule_bandwidth_under_peak(const Ctx& c, std::vector<Finding>& out);
// rules_perf_dtypes.cpp: which dtype to compute in (autocast, TF32, emulated bf16)
void rule_autocast(const Ctx& c, std::vector<Finding>& out);
void rule_tf32(const Ctx& c, std::vector<Finding>& out);
void rule_bf16_emulated(const Ctx& c, std::vector<Finding>& out);
// rules_perf_attention.cpp: the attention (SDPA) path
void rule_sdpa_math(const Ctx& c, std::vector<Finding>& out);
// rules_perf_copies.cpp: pinned against pageable host<->device copies
void rule_pinned(const Ctx& c, std::vector<Finding>& out);
// rules_perf_llm.cpp: LLM decode and batch size (launch-bound decode, small batch)
void rule_launch_bound(const Ctx& c, std::vector<Finding>& out);
void rule_small_batch(const Ctx& c, std::vector<Finding>& out);

}  // namespace accel::rules::perf
