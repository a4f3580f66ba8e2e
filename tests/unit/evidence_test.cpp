#include <gtest/gtest.h>

#include "core/evidence.hpp"
#include "core/report/json_report.hpp"

using namespace accel;

TEST(Status, NamesRoundTrip) {
  for (Status s : {Status::ok, Status::error, Status::off_device, Status::mismatch, Status::unavailable,
                   Status::crashed, Status::hung, Status::skipped}) {
    EXPECT_EQ(status_from_string(to_string(s)), s);
  }
  EXPECT_EQ(status_from_string("fine"), std::nullopt);
}

TEST(ClosedSets, NamesRoundTripAndUnknownNamesAreRefused) {
  for (ResultKind k : {ResultKind::none, ResultKind::check, ResultKind::bench, ResultKind::llm,
                       ResultKind::train, ResultKind::multi, ResultKind::phase}) {
    EXPECT_EQ(result_kind_from_string(to_string(k)), k);
  }
  EXPECT_EQ(to_string(ResultKind::bench), "bench");
  EXPECT_EQ(to_string(ResultKind::none), "");
  EXPECT_EQ(result_kind_from_string("op"), std::nullopt);
  for (Severity s : {Severity::none, Severity::critical, Severity::warning, Severity::info}) {
    EXPECT_EQ(severity_from_string(to_string(s)), s);
  }
  EXPECT_EQ(to_string(Severity::critical), "critical");
  EXPECT_EQ(severity_from_string("error"), std::nullopt);
  for (Where w : {Where::none, Where::device_kernels, Where::cpu_fallback, Where::backend_kernels,
                  Where::no_device_work, Where::profiler_blind, Where::host, Where::unavailable}) {
    EXPECT_EQ(where_from_string(to_string(w)), w);
  }
  EXPECT_EQ(to_string(Where::cpu_fallback), "cpu_fallback");
  EXPECT_EQ(where_from_string("no_nodes"), std::nullopt);
}

TEST(ClosedSets, JsonWritesTheNamesAndRejectsUnknownOnes) {
  Result r;
  r.key = "k";
  r.kind = ResultKind::llm;
  r.profile = ProfileEvidence{};
  r.profile->where = Where::backend_kernels;
  Finding f;
  f.severity = Severity::info;
  const json jr = r, jf = f;
  EXPECT_EQ(jr["kind"], "llm");
  EXPECT_EQ(jr["profile"]["where"], "backend_kernels");
  EXPECT_EQ(jf["severity"], "info");
  EXPECT_EQ(json(Result{})["kind"], "");  // an unclaimed result writes "" as before
  EXPECT_EQ(json(Finding{})["severity"], "");
  EXPECT_EQ(jr.get<Result>().kind, ResultKind::llm);
  EXPECT_EQ(jf.get<Finding>().severity, Severity::info);
  auto message = [](const std::string& text) -> std::string {
    try {
      parse_report(text, "report 'x.json'");
    } catch (const ReportError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(
      message(
          R"({"schema_version": 1, "context": {}, "results": [{"key": "k", "status": "ok", "kind": "op"}]})")
          .find("unknown result kind 'op'"),
      std::string::npos);
  EXPECT_NE(
      message(
          R"({"schema_version": 1, "context": {}, "results": [], "findings": [{"id": "x", "severity": "bad"}]})")
          .find("unknown severity 'bad'"),
      std::string::npos);
  EXPECT_NE(
      message(
          R"({"schema_version": 1, "context": {}, "results": [{"key": "k", "status": "ok", "profile": {"where": 3}}]})")
          .find("report 'x.json' is malformed"),
      std::string::npos);
}

TEST(Status, FailuresAreTheOnesThatFailTheRun) {
  EXPECT_FALSE(is_failure(Status::ok));
  EXPECT_FALSE(is_failure(Status::unavailable));
  EXPECT_FALSE(is_failure(Status::skipped));
  for (Status s : {Status::error, Status::off_device, Status::mismatch, Status::crashed, Status::hung}) {
    EXPECT_TRUE(is_failure(s)) << to_string(s);
  }
}

TEST(Timing, MakeTimingFlagsNoise) {
  const Timing quiet = make_timing({10, 10.1, 9.9, 10, 10}, 3, 4, "host_clock");
  EXPECT_DOUBLE_EQ(quiet.median_us, 10);
  EXPECT_FALSE(quiet.noisy);
  EXPECT_EQ(quiet.inner, 4);
  const Timing noisy = make_timing({10, 20, 5, 15, 8}, 1, 1, "host_clock");
  EXPECT_TRUE(noisy.noisy);
}

TEST(Report, JsonRoundTripKeepsEverything) {
  Report r;
  r.context.tool = tool_info();
  r.context.argv = {"accel-doctor", "ops"};
  r.context.environment.host.os = "Debian GNU/Linux 12";
  r.context.environment.host.not_collected["cpu_max_mhz"] = "no cpufreq";
  DeviceInfo d;
  d.id = "cuda:0";
  d.arch = "sm_90";
  d.total_memory_bytes = 150754820096ull;
  r.context.environment.devices.push_back(d);
  Result res;
  res.key = "ops/linalg/matmul/bf16";
  res.kind = ResultKind::check;
  res.status = Status::mismatch;
  res.timing = make_timing({1, 2, 3}, 1, 1, "device_events");
  res.speedup = 12.5;
  res.accuracy = Accuracy{"float64_reference", 0.5, 0.03, "too far"};
  res.error = ErrorInfo{"msg", "id", "cause", "fix", "ref"};
  res.warnings = {"w1"};
  res.evidence["stderr_tail"] = "x";
  res.metrics["tflops"] = 700.5;
  r.results.push_back(res);

  const Report back = parse_report(report_to_json_text(r), "test");
  ASSERT_EQ(back.results.size(), 1u);
  const Result& b = back.results[0];
  EXPECT_EQ(b.key, res.key);
  EXPECT_EQ(b.status, Status::mismatch);
  ASSERT_TRUE(b.timing);
  EXPECT_EQ(b.timing->samples_us, res.timing->samples_us);
  EXPECT_EQ(b.speedup, 12.5);
  EXPECT_EQ(b.accuracy->tolerance, 0.03);
  EXPECT_EQ(b.error->fix, "fix");
  EXPECT_EQ(b.metrics.at("tflops"), 700.5);
  EXPECT_EQ(back.context.environment.devices.at(0).total_memory_bytes, 150754820096ull);
  EXPECT_EQ(back.context.environment.host.not_collected.at("cpu_max_mhz"), "no cpufreq");
}

TEST(Report, ReadersIgnoreUnknownFieldsAndFillDefaults) {
  const Report r = parse_report(R"({"schema_version": 1, "future_field": 3, "context": {},
      "results": [{"key": "k", "status": "ok", "new_thing": {"a": 1}}]})",
                                "test");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].status, Status::ok);
  EXPECT_FALSE(r.results[0].timing);
}

TEST(Report, MalformedInputGivesClearErrors) {
  auto expect_error = [](const std::string& text, const std::string& fragment) {
    try {
      parse_report(text, "report 'x.json'");
      ADD_FAILURE() << "no error for " << text;
    } catch (const ReportError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("{not json", "not valid JSON");
  expect_error("[1,2]", "expected a JSON object");
  expect_error("{}", "no integer schema_version");
  expect_error(R"({"schema_version": 99})", "newer than this accel-doctor reads");
  expect_error(R"({"schema_version": 1, "context": {}, "results": [{"key": "k", "status": "great"}]})",
               "results[0] (k): status is \"great\", not one of ok, error");
  expect_error(R"({"schema_version": 1, "context": {}, "results": [{"key": "k", "status": "great"}]})",
               "report 'x.json'");  // every error names the file
  expect_error(R"({"schema_version": 1, "context": {}, "results": [{"status": "ok"}]})", "results[0]");
  expect_error(R"({"schema_version": 1, "results": 5})", "not an accel-doctor report");
  // What `explain --json` and `compare --json` write is not a report.
  expect_error(R"({"schema_version": 1, "diagnoses": []})", "not an accel-doctor report");
  expect_error(R"({"schema_version": 1, "a": "A", "b": "B", "regressed": false, "results": []})",
               "not an accel-doctor report");
  EXPECT_THROW(read_report_file("/nonexistent/report.json"), ReportError);
}

// A JSON float read into an integer field: nlohmann's plain cast was
// undefined behaviour out of range (found by fuzz_report under UBSan); now
// it is the reader's clear error, and a float in range still truncates.
TEST(Report, FloatsThatDoNotFitAnIntegerFieldAreMalformed) {
  for (
      const char* doc :
      {R"({"schema_version": 1, "context": {"environment": {"host": {"memory_total_bytes": 2.17e44}}}, "results": []})",
       R"({"schema_version": 1, "context": {"environment": {"host": {"memory_total_bytes": -5.0}}}, "results": []})",
       R"({"schema_version": 1, "context": {}, "results": [{"key": "k", "status": "ok", "timing": {"median_us": 5, "warmup": 3e9}}]})"}) {
    try {
      parse_report(doc, "r.json");
      ADD_FAILURE() << "accepted: " << doc;
    } catch (const ReportError& e) {
      EXPECT_NE(std::string(e.what()).find("does not fit the integer field"), std::string::npos) << e.what();
    }
  }
  const Report r = parse_report(
      R"({"schema_version": 1, "context": {"environment": {"host": {"memory_total_bytes": 1.6e10}}}, "results": []})",
      "r.json");
  EXPECT_EQ(r.context.environment.host.memory_total_bytes, 16000000000u);
}
