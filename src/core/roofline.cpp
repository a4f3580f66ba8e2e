// The roofline model (Williams, Waterman, Patterson, CACM 2009). Formulas and
// special cases: roofline.hpp and docs/roofline.md.
#include "core/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace accel {

namespace {

/// A usable positive figure, or 0.
double positive(double v) { return std::isfinite(v) && v > 0 ? v : 0; }

/// Any output that overflowed (a denormal median) becomes 0.
double finite(double v) { return std::isfinite(v) ? v : 0; }

std::string label(const Peak& p) {
  if (!p.known()) {
    return p.source.empty() ? std::string("unknown") : "unknown: " + p.source;
  }
  const std::string basis = p.basis.empty() ? std::string("unknown") : p.basis;
  return p.source.empty() ? basis : basis + ": " + p.source;
}

}  // namespace

Roofline make_roofline(const Work& work, double median_us, const Peak& compute, const Peak& bandwidth) {
  Roofline r;
  const double flops = positive(work.flops);
  const double bytes = positive(work.bytes);
  const double t = positive(median_us);
  const double peak = compute.known() ? positive(compute.value) : 0;
  const double bw = bandwidth.known() ? positive(bandwidth.value) : 0;

  r.peak_tflops = peak;
  r.peak_source = label(compute);
  r.bandwidth_gbps = bw;
  r.bandwidth_source = label(bandwidth);
  r.intensity_flop_per_byte = flops > 0 && bytes > 0 ? finite(flops / bytes) : 0;

  bool overflow = false;
  if (t > 0) {
    const double a = flops / t / 1e6;
    const double g = bytes / t / 1e3;
    overflow = !std::isfinite(a) || !std::isfinite(g);
    r.achieved_tflops = finite(a);
    r.achieved_gbps = finite(g);
  }

  if (flops > 0) {
    double bound = peak;  // 0 when unknown
    if (bytes > 0 && bw > 0) {
      const double memory_roof = finite(r.intensity_flop_per_byte * bw / 1e3);
      if (memory_roof > 0) bound = bound > 0 ? std::min(bound, memory_roof) : memory_roof;
    }
    r.bound_tflops = bound;
    if (bound > 0 && t > 0) {
      r.percent_of_bound = finite(100 * r.achieved_tflops / bound);
      r.above_peak = overflow || r.achieved_tflops > kAbovePeakFactor * bound;
    }
  } else if (bytes > 0 && bw > 0 && t > 0) {
    // Bytes-only work: the bound is the bandwidth roof.
    r.percent_of_bound = finite(100 * r.achieved_gbps / bw);
    r.above_peak = overflow || r.achieved_gbps > kAbovePeakFactor * bw;
  }
  return r;
}

std::string roofline_limiter(const Roofline& r) {
  if (r.bound_tflops > 0) {
    return r.peak_tflops > 0 && r.bound_tflops >= r.peak_tflops ? "compute" : "memory";
  }
  if (r.intensity_flop_per_byte == 0 && r.bandwidth_gbps > 0 && r.achieved_tflops == 0) return "memory";
  return "unknown";
}

bool above_peak_from_cache(const Result& r) {
  return r.roofline && r.roofline->above_peak && r.kind != ResultKind::bench &&
         roofline_limiter(*r.roofline) == "memory" && r.work.bytes > 0 && r.work.bytes <= kCacheBytes;
}

double ridge_point(const Peak& compute, const Peak& bandwidth) {
  const double p = compute.known() ? positive(compute.value) : 0;
  const double w = bandwidth.known() ? positive(bandwidth.value) : 0;
  return p > 0 && w > 0 ? finite(p / w * 1e3) : 0;
}

void add_burst_figures(Result& r) {
  if (!r.timing || r.timing->burst_us <= 0 || r.timing->median_us <= 0) return;
  const double ratio = r.timing->median_us / r.timing->burst_us;
  // The burst is timed with the host clock around many calls, the median
  // with device events: for short, launch-bound calls the host figure can be
  // the slower one, which says nothing about clocks.
  if (ratio < 1) return;
  for (const char* name : {"tflops", "gbps", "tops"}) {
    if (const auto it = r.metrics.find(name); it != r.metrics.end()) {
      r.metrics[std::string(name) + "_burst"] = it->second * ratio;
    }
  }
  if (ratio > 1.05) {
    const double drop = 100.0 * (1.0 - 1.0 / ratio);
    r.evidence["sustained_drop_pct"] = drop;
    r.evidence["sustained_note"] = fmt::format(
        "sustained {:.0f}% slower than the first calls ({:.1f} vs {:.1f} µs per call): the device slows down "
        "under load (power or thermal limit, or a boost clock it cannot hold); the median is the sustained "
        "figure",
        drop, r.timing->median_us, r.timing->burst_us);
  }
}

}  // namespace accel
