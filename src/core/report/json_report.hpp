// Writing the versioned JSON report (docs/report-schema.md).
#pragma once

#include <string>

#include "core/evidence.hpp"

namespace accel {

/// Serialises `report` (pretty-printed, UTF-8 errors replaced).
std::string report_to_json_text(const Report& report);

/// Writes the report to `path` atomically (temporary file, then rename).
/// "-" writes to standard output. Throws std::runtime_error on I/O failure.
void write_report_file(const Report& report, const std::string& path);

/// Writes `text` to `path` the same way (atomically; "-" is standard output).
/// `what` names it in the error message ("HTML report").
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace accel
