// Robust summary statistics for timing samples.
//
// Quantiles use linear interpolation between closest ranks (the default of
// numpy.percentile and of torch.utils.benchmark), so medians and IQRs printed
// by accel-doctor can be reproduced from the raw samples in the JSON report.
#pragma once

#include <vector>

namespace accel {

/// Summary of a sample set. All values are in the unit of the samples.
struct Summary {
  std::size_t n = 0;
  double median = 0;
  double q1 = 0;   ///< 25th percentile
  double q3 = 0;   ///< 75th percentile
  double iqr = 0;  ///< q3 - q1
  double min = 0;
  double max = 0;
  double mean = 0;
};

/// Quantile q in [0, 1] of `samples` (linear interpolation). Empty input
/// returns 0.
double quantile(std::vector<double> samples, double q);

/// Median, quartiles, min, max and mean. Empty input gives a zero Summary.
Summary summarize(const std::vector<double>& samples);

/// Relative spread: IQR / median (0 when the median is 0).
double relative_iqr(const Summary& s);

/// torch.utils.benchmark's rule: a measurement whose IQR exceeds 10% of its
/// median is too noisy to compare against another.
constexpr double kNoisyRelativeIqr = 0.10;

}  // namespace accel
