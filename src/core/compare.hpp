// `accel-doctor compare A.json B.json`: what changed between two runs.
//
// Results are matched by their stable `key` (no driver or library versions in
// it). For each pair the compared figure is the timing median when both have
// one (lower is better), else the primary metric: tokens_per_s,
// samples_per_s, tflops, gbps (higher is better), then any time metric
// (*_us, *_ms, us_per_*: lower is better).
//
// The noise rule: a change counts only when
//     max(B/A, A/B) - 1  >  max(min_change, riqr(A) + riqr(B))
// with riqr = IQR / median of each timing (0 when a side has no timing) and
// min_change = 5% by default. Adding the two relative IQRs is the
// conservative bound on how far two medians drawn from the two spreads can
// differ by chance; 5% is the floor because even quiet repeated runs of the
// same binary on the same machine drift by a few percent (clocks, placement).
// Within the threshold a pair is "same"; beyond it "faster" or "slower".
//
// The between-process floor (issue 16): two processes of the same thing
// differ by far more than the samples inside one (placement, clocks, the
// other tenants of a shared machine), so the threshold is at least the
// floor of the result's class (device class, kind, and the size of the
// faster side's median, so A -> B and B -> A agree: noise_floors.hpp,
// learned from repeated runs, docs/noise-floors.md): the floor for single
// runs, or, when both sides are merges of at least 3 runs (--repeat), the
// smaller floor for medians of 3 runs or twice the two sides' own spread
// between runs ((max - min) / median of the run medians, summed), whichever
// is larger.
//     max(B/A, A/B) - 1  >  max(min_change, riqr(A) + riqr(B), floor)
// (the size of the change is the same both ways: a 3x speed-up counts
// like a 3x slowdown; before the floors it was |B - A| / A, under which
// no speed-up can pass a floor above 100%)
//
// The rank test (issue 16): when both sides store their raw timing samples
// (timing.samples_us, whose median is median_us) and there are enough of them for a two-sided
// Mann-Whitney U test to reach `alpha` at all (5 against 5 at 0.01; 3
// against 3 never can), a change beyond the threshold above counts only if
// the two sample sets also differ by rank (p < alpha, exact distribution
// up to 60 samples in all, normal approximation with tie correction above).
// The threshold stays as the effect-size floor: a significant 1% change is
// still "same". With too few samples the rule above decides alone.
//
// Status changes: ok (or any non-failing status) -> a failing status
// (is_failure: error, off_device, mismatch, crashed, hung) is "newly
// failing"; failing -> ok is "fixed"; failing in both is "still failing";
// other status changes (e.g. ok -> unavailable) are "status changed". Keys
// only in A are "missing", only in B "new".
//
// A regression is a "slower" or "newly failing" pair: `compare` exits with 1
// when there is one, so it can gate an upgrade in CI.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/json.hpp"

namespace accel {

enum class Change {
  faster,
  slower,
  same,  ///< within noise
  newly_failing,
  fixed,
  still_failing,
  status_changed,  ///< any other status change
  new_result,      ///< only in B
  missing,         ///< only in A
  not_comparable,  ///< both present and ok, but no common figure
};

std::string_view to_string(Change c);

/// What differs between the environments of two runs and can move their
/// figures (torch and its CUDA/HIP/cuDNN, the CPU BLAS, thread counts,
/// drivers, CPU, power plan, OS): "CPU BLAS: reference vs openblas 0.3.21";
/// a fact missing on either side is not compared.
std::vector<std::string> environment_differences(const Environment& a, const Environment& b);

struct CompareOptions {
  double min_change = 0.05;  ///< floor of the noise threshold (relative)
  double alpha = 0.01;       ///< significance level of the rank test
  bool floors = true;        ///< apply the between-process noise floors (core/noise_floors.hpp)
};

/// Two-sided p-value of the Mann-Whitney U test that `a` and `b` come from
/// the same distribution (mid-ranks for ties; exact when there are at most
/// 60 values in all and no ties, else the normal approximation with tie and
/// continuity corrections). 1 when either side is empty. Non-finite values
/// are ignored.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p-value the test can give for sample sizes n1, n2
/// (2 / C(n1 + n2, n1), capped at 1): when it is above alpha the test cannot
/// decide and is not applied.
double mann_whitney_min_p(std::size_t n1, std::size_t n2);

struct ComparedResult {
  std::string key;
  ResultKind kind = ResultKind::none;
  Change change = Change::same;
  std::string status_a, status_b;  ///< empty when absent on that side
  std::string figure;              ///< "median_us" or the metric name
  bool higher_is_better = false;
  double a = 0, b = 0;       ///< the figure in each report
  double relative = 0;       ///< (b - a) / a
  double threshold = 0;      ///< max(min_change, riqr(A) + riqr(B))
  double speedup = 0;        ///< >1: B is faster (a/b for times, b/a for rates)
  bool noisy = false;        ///< either timing flagged noisy
  double p_value = -1;       ///< Mann-Whitney p on the raw samples; -1 when not applied
  double floor = 0;          ///< the between-process noise floor applied (in threshold)
  std::string floor_source;  ///< its class and run counts, or the runs' own spread
  std::string note;          ///< e.g. the failing side's error message
};

struct Comparison {
  std::string origin_a, origin_b;
  std::vector<ComparedResult> results;  ///< A's order, then B's new keys
  std::vector<std::string> notes;       ///< differences of context (device, torch, duplicates)
  /// Kinds of result A had on a device type and B has none of, "bench on
  /// cuda" (the GPU vanished after an upgrade, or a suite stopped running).
  std::vector<std::string> lost;
  double min_change = 0.05;
  double alpha = 0.01;
  bool floors = true;

  std::size_t count(Change c) const;
  /// Slower beyond noise, newly failing, or a whole kind of result lost on a
  /// device type.
  bool regressed() const;
};

/// Compares two parsed reports.
Comparison compare_reports(const Report& a, const Report& b, const CompareOptions& options = {},
                           const std::string& origin_a = "A", const std::string& origin_b = "B");

/// The comparison as JSON (`compare --json`): schema, options, counts, rows.
json comparison_to_json(const Comparison& c);

}  // namespace accel
