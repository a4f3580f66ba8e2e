#include "core/report/jsonl.hpp"

#include <map>
#include <utility>
#include <vector>

namespace accel {

namespace {
std::string dump(const json& j) {
  // dump() without indentation escapes control characters: one object is one line.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// {"type":TYPE,...fields in the order given}: "type" first, so a reader (or
/// a person with `head`) sees what a line is before its payload.
std::string line(const std::string& type, const std::vector<std::pair<std::string, json>>& fields) {
  std::string out = "{\"type\":" + dump(type);
  for (const auto& [name, value] : fields) out += "," + dump(name) + ":" + dump(value);
  return out + "}\n";
}
}  // namespace

std::string jsonl_context_line(const Report& report) {
  return line("context", {{"schema_version", report.schema_version}, {"context", report.context}});
}

std::string jsonl_result_line(const Result& result) { return line("result", {{"result", result}}); }

std::string jsonl_end_line(const Report& report) {
  std::map<std::string, int> by_status;
  int failures = 0;
  for (const auto& r : report.results) {
    by_status[std::string(to_string(r.status))]++;
    failures += is_failure(r.status);
  }
  json summary{{"results", report.results.size()}, {"failures", failures}, {"by_status", by_status}};
  if (!report.context.finished_at.empty()) summary["finished_at"] = report.context.finished_at;
  return line("end", {{"summary", summary}, {"findings", report.findings}, {"verdict", report.verdict}});
}

std::string render_jsonl(const Report& report) {
  std::string out = jsonl_context_line(report);
  for (const auto& r : report.results) out += jsonl_result_line(r);
  out += jsonl_end_line(report);
  return out;
}

}  // namespace accel
