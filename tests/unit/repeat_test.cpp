// `--repeat N`: N runs of a suite merged by key (core/repeat.hpp).
#include <gtest/gtest.h>

#include "core/repeat.hpp"

namespace accel {
namespace {

Result ok(const std::string& key, std::vector<double> samples, double tokens = 0) {
  Result r;
  r.key = key;
  r.kind = ResultKind::check;
  r.device = "cpu";
  r.status = Status::ok;
  r.timing = make_timing(std::move(samples), 1, 1, "host_clock");
  if (tokens > 0) r.metrics["tokens_per_s"] = tokens;
  r.wall_ms = 10;
  r.phase_ms["device_timing"] = 4;
  return r;
}

TEST(Repeat, OneRunIsReturnedUnchanged) {
  const std::vector<Result> run = {ok("a", {1, 2, 3})};
  const auto merged = merge_repeated_runs({run});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_FALSE(merged[0].evidence.contains("repeat"));
  EXPECT_EQ(merged[0].timing->samples_us.size(), 3u);
}

TEST(Repeat, MedianOfMediansPooledSamplesAndTheRunsRecorded) {
  const auto merged = merge_repeated_runs(
      {{ok("a", {10, 11, 12}, 100)}, {ok("a", {20, 21, 22}, 50)}, {ok("a", {12, 13, 14}, 90)}});
  ASSERT_EQ(merged.size(), 1u);
  const Result& r = merged[0];
  EXPECT_EQ(r.status, Status::ok);
  EXPECT_DOUBLE_EQ(r.timing->median_us, 13);  // medians 11, 21, 13
  EXPECT_EQ(r.timing->samples_us.size(), 9u);
  EXPECT_DOUBLE_EQ(r.timing->min_us, 10);
  EXPECT_DOUBLE_EQ(r.timing->max_us, 22);
  EXPECT_GT(r.timing->iqr_us, 2);  // the pooled IQR includes the spread between runs
  EXPECT_TRUE(r.timing->noisy);
  EXPECT_DOUBLE_EQ(r.metrics.at("tokens_per_s"), 90);
  EXPECT_DOUBLE_EQ(r.wall_ms, 30);
  EXPECT_DOUBLE_EQ(r.phase_ms.at("device_timing"), 12);
  ASSERT_TRUE(r.evidence.contains("repeat"));
  EXPECT_EQ(r.evidence["repeat"]["runs"], 3);
  EXPECT_EQ(repeat_values(r, "median_us"), (std::vector<double>{11, 21, 13}));
  EXPECT_EQ(repeat_values(r, "tokens_per_s"), (std::vector<double>{100, 50, 90}));
  EXPECT_TRUE(repeat_values(r, "gbps").empty());
  EXPECT_NEAR(relative_range(repeat_values(r, "median_us")), 10.0 / 13, 1e-12);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Repeat, OrderFailuresAndPartialRuns) {
  Result bad = ok("b", {1});
  bad.status = Status::error;
  bad.timing.reset();
  Result unavailable = ok("c", {1});
  unavailable.status = Status::unavailable;
  const auto merged = merge_repeated_runs({{ok("a", {1}), ok("b", {2}), unavailable},
                                           {ok("a", {1}), bad, ok("c", {3}), ok("d", {4})},
                                           {ok("a", {1}), ok("b", {2}), ok("c", {5})}});
  ASSERT_EQ(merged.size(), 4u);
  EXPECT_EQ(merged[0].key, "a");
  EXPECT_EQ(merged[1].key, "b");
  EXPECT_EQ(merged[2].key, "c");
  EXPECT_EQ(merged[3].key, "d");  // only in a later run: after the first run's keys
  // Failing in one run of three: the failure is kept, and says so.
  EXPECT_EQ(merged[1].status, Status::error);
  ASSERT_FALSE(merged[1].warnings.empty());
  EXPECT_NE(merged[1].warnings[0].find("failed in 1 of 3 runs"), std::string::npos);
  // ok in two runs of three: merged from those two.
  EXPECT_EQ(merged[2].status, Status::ok);
  EXPECT_DOUBLE_EQ(merged[2].timing->median_us, 4);
  EXPECT_NE(merged[2].warnings.at(0).find("ok in 2 of 3 runs"), std::string::npos);
  EXPECT_EQ(merged[2].evidence["repeat"]["runs"], 2);
  EXPECT_EQ(merged[3].evidence["repeat"]["runs"], 1);
  EXPECT_TRUE(repeat_values(merged[3], "median_us").empty());  // one value: no spread
}

TEST(Repeat, RelativeRangeEdges) {
  EXPECT_EQ(relative_range({}), 0);
  EXPECT_EQ(relative_range({5}), 0);
  EXPECT_EQ(relative_range({0, 0}), 0);
  EXPECT_DOUBLE_EQ(relative_range({9, 10, 11}), 0.2);
}

}  // namespace
}  // namespace accel
