#include "core/stats.hpp"

#include <algorithm>
#include <numeric>

namespace accel {

namespace {
double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  if (q <= 0) return sorted.front();
  if (q >= 1) return sorted.back();
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}
}  // namespace

double quantile(std::vector<double> samples, double q) {
  std::sort(samples.begin(), samples.end());
  return sorted_quantile(samples, q);
}

Summary summarize(const std::vector<double>& samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.n = sorted.size();
  s.median = sorted_quantile(sorted, 0.5);
  s.q1 = sorted_quantile(sorted, 0.25);
  s.q3 = sorted_quantile(sorted, 0.75);
  s.iqr = s.q3 - s.q1;
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(s.n);
  return s;
}

double relative_iqr(const Summary& s) { return s.median > 0 ? s.iqr / s.median : 0.0; }

}  // namespace accel
