#include "core/evidence.hpp"

#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "core/enum_names.hpp"
#include "core/files.hpp"
#include "core/stats.hpp"

namespace accel {

namespace {
constexpr std::array<std::pair<Status, std::string_view>, 8> kStatusNames{{
    {Status::ok, "ok"},
    {Status::error, "error"},
    {Status::off_device, "off_device"},
    {Status::mismatch, "mismatch"},
    {Status::unavailable, "unavailable"},
    {Status::crashed, "crashed"},
    {Status::hung, "hung"},
    {Status::skipped, "skipped"},
}};
}  // namespace

std::string_view to_string(Status s) { return enum_name(kStatusNames, s, std::string_view("unknown")); }

std::optional<Status> status_from_string(std::string_view name) {
  return enum_parse<Status>(kStatusNames, name);
}

bool is_failure(Status s) {
  switch (s) {
    case Status::error:
    case Status::off_device:
    case Status::mismatch:
    case Status::crashed:
    case Status::hung:
      return true;
    default:
      return false;
  }
}

void to_json(json& j, const Status& v) { j = std::string(to_string(v)); }

void from_json(const json& j, Status& v) {
  const auto name = j.get<std::string>();
  const auto parsed = status_from_string(name);
  if (!parsed) throw ReportError(fmt::format("unknown status '{}'", name));
  v = *parsed;
}

namespace {

constexpr std::array<std::pair<ResultKind, std::string_view>, 7> kResultKindNames{{
    {ResultKind::none, ""},
    {ResultKind::check, "check"},
    {ResultKind::bench, "bench"},
    {ResultKind::llm, "llm"},
    {ResultKind::train, "train"},
    {ResultKind::multi, "multi"},
    {ResultKind::phase, "phase"},
}};

constexpr std::array<std::pair<Severity, std::string_view>, 4> kSeverityNames{{
    {Severity::none, ""},
    {Severity::critical, "critical"},
    {Severity::warning, "warning"},
    {Severity::info, "info"},
}};

constexpr std::array<std::pair<Where, std::string_view>, 8> kWhereNames{{
    {Where::none, ""},
    {Where::device_kernels, "device_kernels"},
    {Where::cpu_fallback, "cpu_fallback"},
    {Where::backend_kernels, "backend_kernels"},
    {Where::no_device_work, "no_device_work"},
    {Where::profiler_blind, "profiler_blind"},
    {Where::host, "host"},
    {Where::unavailable, "unavailable"},
}};

template <typename E, std::size_t N>
void read_name(const json& j, const std::array<std::pair<E, std::string_view>, N>& names, const char* set,
               E& v) {
  const auto name = j.get<std::string>();
  const auto parsed = enum_parse<E>(names, name);
  if (!parsed) throw ReportError(fmt::format("unknown {} '{}'", set, name));
  v = *parsed;
}

}  // namespace

std::string_view to_string(ResultKind k) {
  return enum_name(kResultKindNames, k, std::string_view("unknown"));
}
std::optional<ResultKind> result_kind_from_string(std::string_view name) {
  return enum_parse<ResultKind>(kResultKindNames, name);
}
std::string_view to_string(Severity s) { return enum_name(kSeverityNames, s, std::string_view("unknown")); }
std::optional<Severity> severity_from_string(std::string_view name) {
  return enum_parse<Severity>(kSeverityNames, name);
}
std::string_view to_string(Where w) { return enum_name(kWhereNames, w, std::string_view("unknown")); }
std::optional<Where> where_from_string(std::string_view name) { return enum_parse<Where>(kWhereNames, name); }

void to_json(json& j, const ResultKind& v) { j = std::string(to_string(v)); }
void from_json(const json& j, ResultKind& v) { read_name(j, kResultKindNames, "result kind", v); }
void to_json(json& j, const Severity& v) { j = std::string(to_string(v)); }
void from_json(const json& j, Severity& v) { read_name(j, kSeverityNames, "severity", v); }
void to_json(json& j, const Where& v) { j = std::string(to_string(v)); }
void from_json(const json& j, Where& v) { read_name(j, kWhereNames, "where", v); }

Timing make_timing(std::vector<double> samples_us, int warmup, int inner, std::string method,
                   bool budget_exhausted) {
  Timing t;
  const Summary s = summarize(samples_us);
  t.samples_us = std::move(samples_us);
  t.median_us = s.median;
  t.iqr_us = s.iqr;
  t.min_us = s.min;
  t.max_us = s.max;
  t.warmup = warmup;
  t.inner = inner;
  t.method = std::move(method);
  t.noisy = relative_iqr(s) > kNoisyRelativeIqr;
  t.budget_exhausted = budget_exhausted;
  return t;
}

const char* git_commit();  // generated at build time by cmake/GitCommit.cmake

ToolInfo tool_info() {
#ifndef ACCEL_VERSION
#define ACCEL_VERSION "0.0.0"
#endif
  return ToolInfo{ACCEL_VERSION, git_commit()};
}

std::string now_rfc3339() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
#if defined(_WIN32)
  gmtime_s(&tm, &t);
#else
  gmtime_r(&t, &tm);
#endif
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

json upgrade_report_json(json doc, const std::string& origin) {
  int version = doc.value("schema_version", 0);
  if (version < 1 || version > kSchemaVersion) {
    throw ReportError(
        fmt::format("{} has schema_version {}, which this accel-doctor cannot read", origin, version));
  }
  while (version < kSchemaVersion) {
    switch (version) {
      // case 1: (when v2 exists) map the v1 fields to their v2 form here.
      default:
        throw ReportError(fmt::format("{}: no upgrade from schema_version {}", origin, version));
    }
    doc["schema_version"] = ++version;
  }
  return doc;
}

namespace {
std::string json_text(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 40) + "…" : s;
}

/// "" when `r` can be a result, else what is wrong with it (one field).
std::string result_json_problem(const json& r) {
  if (!r.is_object()) return "a result must be a JSON object, not " + json_text(r);
  if (!r.contains("key")) return "it has no key";
  if (!r["key"].is_string()) return "key is " + json_text(r["key"]) + ", not a string";
  if (r["key"].get<std::string>().empty()) return "key is empty";
  if (!r.contains("status")) return "it has no status";
  if (!r["status"].is_string() || !status_from_string(r["status"].get<std::string>())) {
    std::string names;
    for (const auto& [st, name] : kStatusNames) names += (names.empty() ? "" : ", ") + std::string(name);
    return fmt::format("status is {}, not one of {}", json_text(r["status"]), names);
  }
  for (const char* t : {"timing", "cpu_timing"}) {
    if (!r.contains(t) || r[t].is_null()) continue;
    if (!r[t].is_object()) return fmt::format("{} is {}, not an object", t, json_text(r[t]));
    const json& tm = r[t];
    if (tm.contains("median_us") && (!tm["median_us"].is_number() || !(tm["median_us"].get<double>() > 0) ||
                                     !std::isfinite(tm["median_us"].get<double>()))) {
      return fmt::format("{}.median_us is {}: a median time must be a positive number", t,
                         json_text(tm["median_us"]));
    }
    if (tm.contains("iqr_us") && (!tm["iqr_us"].is_number() || tm["iqr_us"].get<double>() < 0)) {
      return fmt::format("{}.iqr_us is {}: a spread cannot be negative", t, json_text(tm["iqr_us"]));
    }
  }
  if (r.contains("work") && r["work"].is_object()) {
    for (const char* f : {"flops", "bytes"}) {
      const json& w = r["work"];
      if (w.contains(f) && (!w[f].is_number() || w[f].get<double>() < 0))
        return fmt::format("work.{} is {}: it cannot be negative", f, json_text(w[f]));
    }
  }
  return "";
}
}  // namespace

Report parse_report(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw ReportError(fmt::format("{} is not valid JSON: {}", origin, e.what()));
  }
  if (!j.is_object()) throw ReportError(fmt::format("{} is not a report: expected a JSON object", origin));
  if (!j.contains("schema_version") || !j["schema_version"].is_number_integer()) {
    throw ReportError(
        fmt::format("{} is not an accel-doctor report: it has no integer schema_version", origin));
  }
  const int version = j["schema_version"].get<int>();
  if (version > kSchemaVersion) {
    throw ReportError(
        fmt::format("{} has schema_version {}, newer than this accel-doctor reads ({}); upgrade accel-doctor",
                    origin, version, kSchemaVersion));
  }
  if (version < 1) {
    throw ReportError(fmt::format("{} has schema_version {}, which no release wrote", origin, version));
  }
  j = upgrade_report_json(std::move(j), origin);
  // `explain --json` and `compare --json` outputs carry a schema_version too:
  // a report is the one with a context object and a results array.
  if (!j.contains("context") || !j["context"].is_object() || !j.contains("results") ||
      !j["results"].is_array()) {
    throw ReportError(fmt::format(
        "{} is not an accel-doctor report: it has no context object and results array (an explain or "
        "compare output is not a report; write one with --json from a measuring command)",
        origin));
  }
  std::size_t i = 0;
  for (const auto& r : j["results"]) {
    if (const std::string why = result_json_problem(r); !why.empty()) {
      std::string where = fmt::format("results[{}]", i);
      if (r.is_object() && r.contains("key") && r["key"].is_string() && !r["key"].get<std::string>().empty())
        where += " (" + r["key"].get<std::string>() + ")";
      throw ReportError(fmt::format("{} is malformed: {}: {}", origin, where, why));
    }
    ++i;
  }
  try {
    return j.get<Report>();
  } catch (const std::exception& e) {
    throw ReportError(fmt::format("{} is malformed: {}", origin, e.what()));
  }
}

Report read_report_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw ReportError(fmt::format("cannot read report '{}': no such file", path));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw ReportError(fmt::format("cannot read report '{}': it is a directory, not a report file", path));
  }
  const auto text = read_file(path);
  if (!text) {
    const int err = errno;
    throw ReportError(
        fmt::format("cannot read report '{}': {}", path, err ? std::strerror(err) : "open failed"));
  }
  return parse_report(*text, fmt::format("report '{}'", path));
}

}  // namespace accel
