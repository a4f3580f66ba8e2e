// `--repeat N` (issue 16): the results of N independent runs of one suite,
// each its own engine process, merged into one result per key.
//
// Two processes of the same thing differ by more than the samples inside
// one process do (placement, clock, the other tenant of a shared machine:
// docs/noise-floors.md), so a user who needs a tighter figure runs the
// suite N times and takes the median of the N medians; `compare` then uses
// the spread between those runs as this result's noise instead of the floor
// of its device class.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// Merges N runs of the same suite by key. Order: the first run's, then the
/// keys only later runs have. Per key:
/// - a key that fails (is_failure) in any run keeps the first failing result,
///   with a warning "failed in k of N runs";
/// - runs that disagree on a non-failing status (ok in one, unavailable in
///   another): the first ok result, with a warning;
/// - ok in every run it appears in: timing.median_us is the median of the
///   runs' medians; samples_us pools every run's samples (for compare's rank
///   test); iqr_us is the IQR of the pooled samples (so it includes the
///   spread between the runs); min_us/max_us over all; noisy and
///   budget_exhausted when any run's was; the same for cpu_timing, and the
///   speed-up recomputed from the two; each metric the median of the runs'
///   values; wall_ms and phase_ms summed; the rest (accuracy, profile,
///   roofline, work) from the first run.
/// Every merged result of an ok key gets evidence.repeat = {"runs": n,
/// "median_us": [per run], "cpu_median_us": [...], "metrics": {name: [per
/// run]}} (the arrays only for what it has). With one run the results are
/// returned unchanged.
std::vector<Result> merge_repeated_runs(const std::vector<std::vector<Result>>& runs);

/// The per-run values behind a merged result's `figure` ("median_us" or a
/// metric name) from evidence.repeat; empty when the result is not a merge
/// of two or more runs.
std::vector<double> repeat_values(const Result& r, const std::string& figure);

/// (max - min) / median of `values`: the spread between the runs; 0 for
/// fewer than two values or a median that is not positive.
double relative_range(const std::vector<double>& values);

}  // namespace accel
