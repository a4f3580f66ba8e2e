// The roofline model: where a measured operation sits against the hardware.
//
// Source: S. Williams, A. Waterman, D. Patterson, "Roofline: an insightful
// visual performance model for multicore architectures", Communications of
// the ACM 52(4), 2009, https://doi.org/10.1145/1498765.1498785
//
// For one call of an operation doing F FLOP (Work::flops) and moving at least
// B bytes of device memory (Work::bytes), timed at a median of t microseconds,
// against a compute peak P (TFLOP/s, or TOPS for int8) and a memory bandwidth
// peak W (GB/s):
//
//   arithmetic intensity  I = F / B                       FLOP/byte
//   attainable bound      bound = min(P, I x W / 1000)    TFLOP/s (GB/s x FLOP/B = 1e9 FLOP/s)
//   achieved              A = F / t / 1e6                 TFLOP/s (t in us: F / (t x 1e-6) / 1e12)
//                         G = B / t / 1e3                 GB/s    (B / (t x 1e-6) / 1e9)
//   percent_of_bound      100 x A / bound
//   ridge point           I = P / W x 1000: below it the operation is memory-bound, above it compute-bound
//
// Special cases, each without a division by zero (JSON holds no NaN or inf):
//   - bytes-only work (F = 0: copies, fills): the bound is the bandwidth,
//     percent_of_bound = 100 x G / W, bound_tflops = 0, intensity = 0;
//   - FLOPs without bytes (B = 0): the bound is the compute peak alone,
//     intensity is reported as 0 (undefined);
//   - an unknown peak (Peak::known() false) drops out of the min(); with no
//     known roof the bound is 0 and so is the percent;
//   - a median <= 0 (or not finite) gives achieved 0, percent 0, no flag;
//   - negative or non-finite FLOPs/bytes/peaks count as 0 (unknown).
// Units: TFLOP/s = 1e12 FLOP/s, GB/s = 1e9 B/s.
#pragma once

#include <string>

#include "core/evidence.hpp"
#include "core/peaks.hpp"

namespace accel {

/// A figure above 105% of its peak is a likely timing error, a missing
/// synchronisation, never reported as a success.
inline constexpr double kAbovePeakFactor = 1.05;

/// Fills accel::Roofline for one call of `work` timed at `median_us`.
/// peak_source / bandwidth_source are "<basis>: <source>" of each peak.
Roofline make_roofline(const Work& work, double median_us, const Peak& compute, const Peak& bandwidth);

/// Which roof binds a Roofline: "compute" when the compute peak is the bound,
/// "memory" when intensity x bandwidth is (or for bytes-only work), "unknown"
/// when neither is known.
std::string roofline_limiter(const Roofline& r);

/// Working sets at or under this may be served by caches (H200 L2 60 MB,
/// server CPUs up to ~256 MB of L3).
inline constexpr double kCacheBytes = 256.0 * 1024 * 1024;

/// True when `r` is above its peak for a reason that is not a timing error:
/// a check or workload (not a benchmark, which rotates its buffers beyond the
/// caches) under a memory roof, whose working set fits the caches, moves
/// faster than the DRAM bandwidth the roof is drawn from.
bool above_peak_from_cache(const Result& r);

/// The intensity (FLOP/byte) at which the two roofs meet, P / W x 1000; 0 when
/// either peak is unknown.
double ridge_point(const Peak& compute, const Peak& bandwidth);

/// The burst figures of a benchmark: for each throughput metric ("tflops",
/// "gbps", "tops") adds "<metric>_burst" = metric x median / burst_us, the
/// rate of the first back-to-back calls. When the median is more than 5%
/// slower than the burst, records evidence "sustained_drop_pct" and a
/// sentence: the device slows down under sustained load (a power or
/// thermal limit, or a clock that falls back after a boost). No-op without
/// a timing or a burst.
void add_burst_figures(Result& r);

}  // namespace accel
