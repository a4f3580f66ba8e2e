// `compare` on pairs built from the recorded CPU report: identical runs,
// pure noise, injected regressions, newly failing and fixed checks, new and
// missing keys, metrics without timings, and unreadable files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/compare.hpp"
#include "core/noise_floors.hpp"
#include "core/report/findings.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

using testing::report_fixture_path;

/// The rule without the between-process floors: the tests of the within-run
/// threshold, the rank test and the figures (the floors have their own).
const CompareOptions kNoFloors = [] {
  CompareOptions o;
  o.floors = false;
  return o;
}();

Result* find(Report& r, const std::string& key) {
  for (auto& x : r.results) {
    if (x.key == key) return &x;
  }
  ADD_FAILURE() << "no result " << key;
  return nullptr;
}

const ComparedResult* row(const Comparison& c, const std::string& key) {
  for (const auto& x : c.results) {
    if (x.key == key) return &x;
  }
  return nullptr;
}

TEST(Compare, IdenticalReportsHaveNoChange) {
  const Report a = load_report("cpu-reference-blas.json");
  const Comparison c = compare_reports(a, a);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(c.count(Change::slower) + c.count(Change::faster) + c.count(Change::newly_failing), 0u);
  EXPECT_EQ(c.count(Change::still_failing), 28u);  // the recorded errors and mismatches
  EXPECT_GT(c.count(Change::same), 40u);
}

TEST(Compare, PureNoiseIsNotARegression) {
  // Every median moves by less than its own spread (and under 5%), alternating direction.
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  int sign = 1;
  for (auto& r : b.results) {
    if (!r.timing || r.timing->median_us <= 0) continue;
    const double riqr = r.timing->iqr_us / r.timing->median_us;
    r.timing->median_us *= 1 + sign * std::min(0.045, riqr);
    for (auto& [name, v] : r.metrics) v *= 1 - sign * std::min(0.045, riqr) / 2;
    sign = -sign;
  }
  const Comparison c = compare_reports(a, b);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(c.count(Change::slower), 0u);
  EXPECT_EQ(c.count(Change::faster), 0u);
}

TEST(Compare, NoisyTimingsWidenTheThreshold) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  // The recorded bf16 GEMM has an IQR of ~19x its median: even 3x slower is within noise.
  Result* r = find(b, "bench/cpu/gemm/square/bf16/512x512x512");
  ASSERT_TRUE(r && r->timing);
  r->timing->median_us *= 3;
  const Comparison c = compare_reports(a, b, kNoFloors);
  const ComparedResult* x = row(c, r->key);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->change, Change::same);
  EXPECT_GT(x->threshold, 2.0);
  EXPECT_TRUE(x->noisy);
}

TEST(Compare, InjectedRegressionBeyondNoise) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  Result* r = find(b, "ops/linalg/matmul/fp32");  // IQR 12.6% of the median: threshold ~25%
  ASSERT_TRUE(r && r->timing);
  r->timing->median_us *= 2;
  const Comparison c = compare_reports(a, b, kNoFloors, "before.json", "after.json");
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(c.count(Change::slower), 1u);
  const ComparedResult* x = row(c, "ops/linalg/matmul/fp32");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->change, Change::slower);
  EXPECT_EQ(x->figure, "median_us");
  EXPECT_NEAR(x->relative, 1.0, 1e-9);
  EXPECT_NEAR(x->speedup, 0.5, 1e-9);
  const std::string text = render_comparison(c, ConsoleStyle{});
  EXPECT_NE(text.find("Slower beyond noise (1)"), std::string::npos) << text;
  EXPECT_NE(text.find("ops/linalg/matmul/fp32"), std::string::npos) << text;
  EXPECT_NE(text.find("Regression: yes"), std::string::npos) << text;
  EXPECT_NE(text.find("max(5%"), std::string::npos) << text;
}

TEST(Compare, FasterBeyondNoiseIsNotARegression) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  find(b, "ops/linalg/matmul/fp32")->timing->median_us /= 3;
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(row(c, "ops/linalg/matmul/fp32")->change, Change::faster);
}

TEST(Compare, NewlyFailingAndFixed) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  Result* r = find(b, "ops/linalg/matmul/fp32");
  r->status = Status::error;
  r->timing.reset();
  r->error = ErrorInfo{"RuntimeError: CUDA error: an illegal memory access was encountered", "", "", "", ""};
  Result* fixed = find(b, "ops/fft/fft/fp16");
  fixed->status = Status::ok;
  fixed->error.reset();
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_TRUE(c.regressed());
  const ComparedResult* x = row(c, "ops/linalg/matmul/fp32");
  EXPECT_EQ(x->change, Change::newly_failing);
  EXPECT_NE(x->note.find("illegal memory access"), std::string::npos);
  EXPECT_EQ(row(c, "ops/fft/fft/fp16")->change, Change::fixed);
  const std::string text = render_comparison(c, ConsoleStyle{});
  EXPECT_NE(text.find("Newly failing (1)"), std::string::npos) << text;
  EXPECT_NE(text.find("Fixed (1)"), std::string::npos) << text;
}

TEST(Compare, NewAndMissingKeys) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  b.results.erase(b.results.begin());
  Result extra;
  extra.key = "ops/new/op/fp32";
  extra.kind = ResultKind::check;
  extra.status = Status::ok;
  b.results.push_back(extra);
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(c.count(Change::missing), 1u);
  EXPECT_EQ(c.count(Change::new_result), 1u);
  EXPECT_EQ(row(c, a.results.front().key)->change, Change::missing);
}

TEST(Compare, HigherIsBetterMetricWithoutTiming) {
  Report a = load_report("h200-healthy.json");
  for (auto& r : a.results) r.timing.reset();
  Report b = a;
  Result* r = find(b, "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d128");
  r->metrics["tokens_per_s"] *= 0.8;  // 20% fewer tokens/s
  const Comparison c = compare_reports(a, b, kNoFloors);
  const ComparedResult* x = row(c, r->key);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->figure, "tokens_per_s");
  EXPECT_TRUE(x->higher_is_better);
  EXPECT_EQ(x->change, Change::slower);
  EXPECT_NEAR(x->threshold, 0.05, 1e-12);
  // A *_us metric: lower is better.
  Report a2 = a, b2 = a;
  Result* l = find(b2, "bench/cuda/launch/launch/fp32/tiny");
  l->metrics["us_per_op"] *= 0.5;
  const Comparison c2 = compare_reports(a2, b2, kNoFloors);  // row() points into it: keep it alive
  const ComparedResult* y = row(c2, l->key);
  EXPECT_EQ(y->figure, "us_per_op");
  EXPECT_EQ(y->change, Change::faster);
}

TEST(Compare, StatusChangeOkToUnavailableIsReportedButNotARegression) {
  const Report a = load_report("h200-healthy.json");
  Report b = a;
  Result* r = find(b, "ops/attention/sdpa/bf16");
  r->status = Status::unavailable;
  r->reason = "not in this build";
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_EQ(row(c, r->key)->change, Change::status_changed);
  EXPECT_FALSE(c.regressed());
}

TEST(Compare, LosingTheGpuIsARegression) {
  // After an upgrade torch no longer sees the GPU: B has only CPU rows.
  const Report a = load_report("h200-healthy.json");
  Report b = a;
  b.results.erase(std::remove_if(b.results.begin(), b.results.end(),
                                 [](const Result& r) { return r.device.rfind("cuda", 0) == 0; }),
                  b.results.end());
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_TRUE(c.regressed());
  ASSERT_FALSE(c.lost.empty());
  EXPECT_NE(c.lost.front().find("on cuda"), std::string::npos) << c.lost.front();
  // An empty B loses everything.
  Report empty = a;
  empty.results.clear();
  EXPECT_TRUE(compare_reports(a, empty).regressed());
}

TEST(Compare, AboveThePeakIsNotComparable) {
  const Report a = load_report("h200-healthy.json");
  Report b = a;
  Result* r = nullptr;
  for (auto& x : b.results) {
    if (x.status == Status::ok && x.roofline && x.timing && x.timing->median_us > 0 &&
        x.kind == ResultKind::bench) {
      r = &x;
      break;
    }
  }
  ASSERT_TRUE(r);
  Report a2 = a;
  for (auto& x : a2.results) {
    if (x.key == r->key) x.metrics.clear();  // compare by median_us
  }
  r->metrics.clear();
  r->timing->median_us *= 0.3;
  r->roofline->above_peak = true;
  const Comparison c = compare_reports(a2, b, kNoFloors);
  const ComparedResult* x = row(c, r->key);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->change, Change::not_comparable);
  EXPECT_NE(x->note.find("above its peak"), std::string::npos);
}

TEST(Compare, ContextDifferencesAreNoted) {
  const Report a = load_report("cpu-reference-blas.json");
  const Report b = load_report("h200-healthy.json");
  const Comparison c = compare_reports(a, b, kNoFloors);
  bool device = false, torch = false;
  for (const auto& n : c.notes) {
    device = device || n.find("measured devices differ") != std::string::npos;
    torch = torch || n.find(
                         "environment differs (it can explain the changes below): torch: 1.13.0 vs "
                         "2.11.0+cu130") != std::string::npos;
  }
  EXPECT_TRUE(device);
  EXPECT_TRUE(torch);
}

TEST(Compare, EnvironmentDifferencesThatMoveFigures) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  EXPECT_TRUE(environment_differences(a.context.environment, b.context.environment).empty());
  b.context.environment.blas.name = "openblas";
  b.context.environment.blas.version = "0.3.21";
  b.context.environment.torch.intra_op_threads = 7;
  b.context.environment.host.cpu_governor = "performance";
  const auto d = environment_differences(a.context.environment, b.context.environment);
  auto has = [&](const std::string& text) {
    return std::any_of(d.begin(), d.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("CPU BLAS: reference")) << ::testing::PrintToString(d);
  EXPECT_TRUE(has("vs openblas 0.3.21")) << ::testing::PrintToString(d);
  EXPECT_TRUE(has("torch intra-op threads: ")) << ::testing::PrintToString(d);
  EXPECT_TRUE(has(" vs 7")) << ::testing::PrintToString(d);
  // Shown in the comparison itself, before the differences.
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_TRUE(std::any_of(c.notes.begin(), c.notes.end(),
                          [](const std::string& n) { return n.find("CPU BLAS") != std::string::npos; }));
}

TEST(Compare, JsonOutput) {
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  find(b, "ops/linalg/matmul/fp32")->timing->median_us *= 2;
  const json j = comparison_to_json(compare_reports(a, b, kNoFloors, "a.json", "b.json"));
  EXPECT_EQ(j["regressed"], true);
  EXPECT_EQ(j["counts"]["slower"], 1);
  EXPECT_EQ(j["a"], "a.json");
  EXPECT_EQ(j["min_change"], 0.05);
  bool found = false;
  for (const auto& r : j["results"]) {
    if (r["key"] == "ops/linalg/matmul/fp32") {
      found = true;
      EXPECT_EQ(r["change"], "slower");
      EXPECT_EQ(r["figure"], "median_us");
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(json::parse(j.dump()), j);
}

TEST(Compare, MinChangeOption) {
  const Report a = load_report("h200-healthy.json");
  Report b = a;
  Result* r = find(b, "bench/cuda/gemm/square/bf16/8192x8192x8192");
  r->timing->median_us *= 1.08;  // 8% slower, quiet timings
  EXPECT_TRUE(compare_reports(a, b, kNoFloors).regressed());
  CompareOptions loose = kNoFloors;
  loose.min_change = 0.10;
  EXPECT_FALSE(compare_reports(a, b, loose).regressed());
}

TEST(Compare, UnreadableFilesAreClearErrors) {
  try {
    (void)read_report_file(report_fixture_path("malformed.json"));
    FAIL() << "malformed.json parsed";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos) << e.what();
  }
  try {
    (void)read_report_file(report_fixture_path("newer-schema.json"));
    FAIL() << "newer-schema.json parsed";
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("schema_version 99, newer than this accel-doctor reads"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)read_report_file(report_fixture_path("does-not-exist.json")), ReportError);
  EXPECT_THROW((void)parse_report(R"({"results": []})", "x"), ReportError);
  EXPECT_THROW((void)parse_report(R"([1, 2])", "x"), ReportError);
  EXPECT_THROW((void)parse_report(R"({"schema_version": 1, "results": [{"status": "exploded"}]})", "x"),
               ReportError);
}

/// The message parse_report gives for one result, "" when it parses.
std::string result_problem(const std::string& result) {
  try {
    (void)parse_report(R"({"schema_version": 1, "context": {}, "results": [)" + result + "]}",
                       "report 'r.json'");
    return "";
  } catch (const ReportError& e) {
    return e.what();
  }
}

TEST(Compare, MalformedResultsNameTheFieldAndTheKey) {
  // A result that has a key but a bad status says so, with the key (issue 19).
  const std::string bad_status = result_problem(R"({"key": "ops/a/b/fp32", "status": 42})");
  EXPECT_NE(bad_status.find("results[0] (ops/a/b/fp32): status is 42, not one of ok, error"),
            std::string::npos)
      << bad_status;
  EXPECT_NE(result_problem(R"({"key": "", "status": "ok"})").find("key is empty"), std::string::npos);
  EXPECT_NE(result_problem(R"({"status": "ok"})").find("it has no key"), std::string::npos);
  EXPECT_NE(result_problem(R"({"key": "k", "status": "ok", "timing": {"median_us": -3}})")
                .find("timing.median_us is -3: a median time must be a positive number"),
            std::string::npos);
  EXPECT_NE(
      result_problem(R"({"key": "k", "status": "ok", "timing": {"median_us": 0}})").find("median_us is 0"),
      std::string::npos);
  EXPECT_NE(result_problem(R"({"key": "k", "status": "ok", "cpu_timing": {"median_us": 5, "iqr_us": -1}})")
                .find("cpu_timing.iqr_us"),
            std::string::npos);
  EXPECT_NE(result_problem(R"({"key": "k", "status": "ok", "work": {"flops": -1}})").find("work.flops"),
            std::string::npos);
  EXPECT_EQ(result_problem(R"({"key": "k", "status": "ok", "timing": {"median_us": 5, "iqr_us": 0.5}})"), "");
  EXPECT_EQ(result_problem(R"({"key": "k", "status": "error", "timing": null})"), "");
}

TEST(Compare, UnreadablePathsSayWhy) {
  try {
    (void)read_report_file("/nonexistent/dir/r.json");
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  try {
    (void)read_report_file(report_fixture_path(""));
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
  }
}

TEST(Compare, OlderSchemaGoesThroughTheUpgradePath) {
  // There is only v1 today: a v1 document reads as is, and the upgrade hook
  // is the identity on it.
  const std::string text = testing::report_fixture_path("h200-healthy.json");
  const Report r = read_report_file(text);
  EXPECT_EQ(r.schema_version, kSchemaVersion);
  json j = json::parse(R"({"schema_version": 1, "results": []})");
  EXPECT_EQ(upgrade_report_json(j, "x"), j);
}

}  // namespace
}  // namespace accel

namespace accel {
namespace {

TEST(MannWhitney, ExactSmallSamples) {
  // Complete separation: U = 0, p = 2 / C(n1 + n2, n1).
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 2.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney_p({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}), 2.0 / 252, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);
  EXPECT_GT(mann_whitney_min_p(4, 4), 0.01);  // 4 against 4 cannot reach 1%
  // Interleaved: no evidence of a difference.
  EXPECT_GT(mann_whitney_p({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}), 0.5);
  // U = 1 of 3x4: P(U <= 1) = 2/35, two-sided 4/35.
  EXPECT_NEAR(mann_whitney_p({1, 2, 4}, {3, 5, 6, 7}), 4.0 / 35, 1e-12);
}

TEST(MannWhitney, NormalApproximationAndTies) {
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i) {
    a.push_back(100 + i);
    b.push_back(130 + i);
  }
  EXPECT_LT(mann_whitney_p(a, b), 1e-10);
  EXPECT_NEAR(mann_whitney_p({1, 1, 2, 2, 3}, {1, 1, 2, 2, 3}), 1.0, 1e-9);  // identical, with ties
  EXPECT_EQ(mann_whitney_p({}, {1, 2}), 1.0);
  EXPECT_EQ(mann_whitney_p({NAN, 1}, {INFINITY}), 1.0);  // non-finite values are ignored
}

Result timed(const std::string& key, std::vector<double> samples) {
  Result r;
  r.key = key;
  r.kind = ResultKind::none;  // a kind with no noise floor
  r.device = "cpu";
  r.status = Status::ok;
  Timing t;
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  t.median_us = s.size() % 2 ? s[s.size() / 2] : (s[s.size() / 2 - 1] + s[s.size() / 2]) / 2;
  t.iqr_us = 0.01 * t.median_us;  // a within-run spread that understates the overlap
  t.samples_us = std::move(samples);
  r.timing = t;
  return r;
}

TEST(Compare, OverlappingSamplesAreNotARegression) {
  // Medians 100 -> 108 (+8%, beyond the 5% floor and the tiny IQRs), but the
  // two sample sets interleave: the rank test says same.
  Report a, b;
  a.results.push_back(timed("op/overlap", {80, 90, 95, 100, 105, 110, 120}));
  b.results.push_back(timed("op/overlap", {85, 95, 100, 108, 112, 115, 125}));
  const Comparison c = compare_reports(a, b, kNoFloors);
  const ComparedResult* r = row(c, "op/overlap");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->change, Change::same) << r->note;
  EXPECT_GT(r->p_value, 0.01);
  EXPECT_NE(r->note.find("Mann-Whitney"), std::string::npos);
  EXPECT_FALSE(c.regressed());
}

TEST(Compare, ASeparatedSlowdownIsStillCaught) {
  // A real 1.3x slowdown: every B sample above every A sample.
  Report a, b;
  a.results.push_back(timed("op/slow", {100, 101, 102, 103, 104, 105, 106}));
  b.results.push_back(timed("op/slow", {130, 131, 133, 134, 135, 136, 138}));
  const Comparison c = compare_reports(a, b, kNoFloors);
  const ComparedResult* r = row(c, "op/slow");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->change, Change::slower);
  EXPECT_LT(r->p_value, 0.01);
  EXPECT_TRUE(c.regressed());
  EXPECT_FALSE(comparison_to_json(c)["results"][0]["p_value"].is_null());
}

TEST(Compare, TooFewOrInconsistentSamplesLeaveTheOldRule) {
  Report a, b;
  a.results.push_back(timed("op/few", {100, 101, 102}));  // 3 vs 3: the test cannot reach 1%
  b.results.push_back(timed("op/few", {130, 131, 133}));
  Result edited = timed("op/edited", {100, 101, 102, 103, 104, 105, 106});
  a.results.push_back(edited);
  edited.timing->median_us *= 1.3;  // a median its samples do not describe
  b.results.push_back(edited);
  const Comparison c = compare_reports(a, b, kNoFloors);
  EXPECT_EQ(row(c, "op/few")->change, Change::slower);
  EXPECT_EQ(row(c, "op/few")->p_value, -1);
  EXPECT_EQ(row(c, "op/edited")->change, Change::slower);
  EXPECT_EQ(row(c, "op/edited")->p_value, -1);
}

// ---------------------------------------------------------------- floors

Result with_runs(Result r, const std::vector<double>& medians) {
  r.evidence["repeat"] = {{"runs", medians.size()}, {"median_us", medians}};
  std::vector<double> s = medians;
  std::sort(s.begin(), s.end());
  r.timing->median_us = s[s.size() / 2];
  r.timing->samples_us.clear();  // no rank test: the floor decides
  r.timing->iqr_us = 0;
  return r;
}

Result gpu_gemm(double median_us) {
  Result r = timed("bench/cuda/gemm/square/bf16/4096x4096x4096", {median_us});
  r.kind = ResultKind::bench;
  r.device = "cuda:0";
  r.timing->samples_us.clear();
  r.timing->iqr_us = 0;
  return r;
}

TEST(NoiseFloors, ClassesAndFallbacks) {
  Result r = timed("ops/x", {50});
  r.kind = ResultKind::check;
  EXPECT_EQ(size_class_of(r), "tiny");
  EXPECT_EQ(noise_floor_for(r).size, "tiny");
  EXPECT_EQ(noise_floor_for(r).device_class, "cpu");
  r.timing->median_us = 5000;
  EXPECT_EQ(size_class_of(r), "small");
  r.timing->median_us = 50000;
  EXPECT_EQ(size_class_of(r), "large");
  r.timing.reset();
  EXPECT_EQ(size_class_of(r), "metric");
  // No metric row for checks: the largest floor of CPU checks.
  double largest = 0;
  for (const auto& f : noise_floor_table()) {
    if (f.device_class == "cpu" && f.kind == ResultKind::check) largest = std::max(largest, f.single);
  }
  EXPECT_EQ(noise_floor_for(r).single, largest);
  EXPECT_EQ(device_class_of("cuda:1"), "gpu");
  EXPECT_EQ(device_class_of("cpu"), "cpu");
  EXPECT_EQ(device_class_of(""), "cpu");
  Result llm;
  llm.kind = ResultKind::llm;
  llm.device = "cuda:0";
  EXPECT_NE(noise_floor_for(llm).source.find("provisional"), std::string_view::npos);
  // Every floor is a measured or provisional fraction, the repeated one no larger.
  for (const auto& f : noise_floor_table()) {
    EXPECT_GT(f.single, 0.05) << f.source;
    EXPECT_LE(f.repeated, f.single) << f.source;
    EXPECT_FALSE(f.source.empty());
  }
}

TEST(NoiseFloors, SingleRunsOfANoisyClassAreNotARegression) {
  // A CPU check twice as slow in one single run: within the CPU checks'
  // between-process floor; the old rule called it a regression.
  const Report a = load_report("cpu-reference-blas.json");
  Report b = a;
  Result* r = find(b, "ops/linalg/matmul/fp32");
  ASSERT_TRUE(r && r->timing);
  r->timing->median_us *= 2;
  const Comparison c = compare_reports(a, b);
  EXPECT_FALSE(c.regressed());
  const ComparedResult* x = row(c, r->key);
  EXPECT_EQ(x->change, Change::same);
  EXPECT_GT(x->floor, 1.0);
  EXPECT_NE(x->floor_source.find("cpu/check/"), std::string::npos) << x->floor_source;
  EXPECT_NE(x->floor_source.find("single runs"), std::string::npos) << x->floor_source;
  EXPECT_EQ(comparison_to_json(c)["floors"], true);
  EXPECT_TRUE(compare_reports(a, b, kNoFloors).regressed());
}

TEST(NoiseFloors, AQuietClassStillCatchesALargeSlowdown) {
  Report a, b;
  a.results.push_back(gpu_gemm(1000));
  b.results.push_back(gpu_gemm(1400));  // 1.4x: beyond the GPU bench floor (30%)
  const Comparison c = compare_reports(a, b);
  EXPECT_TRUE(c.regressed());
  EXPECT_NEAR(row(c, a.results[0].key)->floor, 0.30, 1e-12);
  b.results[0] = gpu_gemm(1250);  // 1.25x: within it
  EXPECT_FALSE(compare_reports(a, b).regressed());
  // The same size of change the other way is faster: 1400 -> 1000 is a
  // 1.4x speed-up although (B - A) / A is only -29%.
  a.results = {gpu_gemm(1400)};
  b.results = {gpu_gemm(1000)};
  const Comparison f = compare_reports(a, b);
  EXPECT_EQ(row(f, a.results[0].key)->change, Change::faster);
  EXPECT_FALSE(f.regressed());
}

TEST(NoiseFloors, RepeatedRunsLowerTheFloorOrUseTheirOwnSpread) {
  // 1.29x of a quiet GPU GEMM: a single run cannot tell it from noise (floor
  // 30%); 1.3x in medians of 3 runs on each side is beyond their floor (25%).
  Report a, b;
  a.results.push_back(gpu_gemm(1000));
  b.results.push_back(gpu_gemm(1290));
  EXPECT_FALSE(compare_reports(a, b).regressed());
  a.results[0] = with_runs(gpu_gemm(1000), {995, 1000, 1004});
  b.results[0] = with_runs(gpu_gemm(1300), {1296, 1300, 1310});
  Comparison c = compare_reports(a, b);
  EXPECT_TRUE(c.regressed());
  const ComparedResult* x = row(c, a.results[0].key);
  EXPECT_NEAR(x->floor, 0.25, 1e-12);
  EXPECT_NE(x->floor_source.find("medians of 3 and 3 runs"), std::string::npos) << x->floor_source;
  // Runs that spread widely: twice their own spread is the floor.
  a.results[0] = with_runs(gpu_gemm(1000), {800, 1000, 1200});
  b.results[0] = with_runs(gpu_gemm(1300), {1100, 1300, 1500});
  c = compare_reports(a, b);
  EXPECT_FALSE(c.regressed());
  x = row(c, a.results[0].key);
  EXPECT_NEAR(x->floor, 2 * (0.4 + 400.0 / 1300), 1e-9);
  EXPECT_NE(x->floor_source.find("spread between the runs"), std::string::npos) << x->floor_source;
  // Two runs a side are not enough for the repeated floor.
  a.results[0] = with_runs(gpu_gemm(1000), {1000, 1001});
  b.results[0] = with_runs(gpu_gemm(1300), {1300, 1301});
  EXPECT_NEAR(row(compare_reports(a, b), a.results[0].key)->floor, 0.30, 1e-12);
}

TEST(NoiseFloors, PooledSamplesOfRepeatedRunsFeedTheRankTest) {
  // median_us is the median of the runs' medians, not of the pooled samples:
  // the samples still count for the rank test.
  Report a, b;
  Result ra = gpu_gemm(1000), rb = gpu_gemm(2000);
  ra.timing->samples_us = {990, 995, 998, 1000, 1001, 1003, 1010, 1200, 1210};
  rb.timing->samples_us = {1990, 1995, 1998, 2000, 2001, 2003, 2010, 2200, 2210};
  ra.timing->median_us = 1003;  // the pooled samples' median is 1001
  rb.timing->median_us = 2003;
  ra.evidence["repeat"] = {{"runs", 3}, {"median_us", {995, 1003, 1205}}};
  rb.evidence["repeat"] = {{"runs", 3}, {"median_us", {1995, 2003, 2205}}};
  a.results.push_back(ra);
  b.results.push_back(rb);
  const Comparison c = compare_reports(a, b);
  const ComparedResult* x = row(c, ra.key);
  EXPECT_GE(x->p_value, 0);
  EXPECT_LT(x->p_value, 0.01);
  EXPECT_EQ(x->change, Change::slower);
}

}  // namespace
}  // namespace accel
