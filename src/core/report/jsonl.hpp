// `--format jsonl`: the report as a stream, one JSON object per line, so a
// reader can follow a long run as it goes:
//   {"type":"context","schema_version":1,"context":{...}}     first
//   {"type":"result","result":{...}}                          one per item, as it finishes
//   {"type":"end","summary":{...},"findings":[...],"verdict":"..."}   last
// A result line holds the Result as measured; rooflines, filled when the run
// is over, are in the --json report. Lines never contain a raw newline.
#pragma once

#include <string>

#include "core/evidence.hpp"

namespace accel {

/// The context line (tool, argv, environment), newline-terminated.
std::string jsonl_context_line(const Report& report);
/// One result line, newline-terminated.
std::string jsonl_result_line(const Result& result);
/// The closing line: counts by status, findings, verdict; newline-terminated.
std::string jsonl_end_line(const Report& report);
/// The whole report as a JSON Lines document (context, results, end).
std::string render_jsonl(const Report& report);

}  // namespace accel
