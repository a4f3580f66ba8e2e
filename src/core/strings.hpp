// The few string helpers every part of the tool needs, written once.
// ASCII only (but for the UTF-8-safe cut): they serve identifiers, names and log text, not prose.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace accel {

/// `s` with ASCII letters lower-cased.
std::string lower(std::string_view s);

/// `s` without leading and trailing white space (std::isspace).
std::string trim(std::string_view s);

/// Views of `s` without its leading (ltrim) or trailing (rtrim) white space.
std::string_view ltrim(std::string_view s);
std::string_view rtrim(std::string_view s);

/// The longest prefix of `s` of at most `max_bytes` bytes that does not end
/// inside a UTF-8 character (bytes that are not UTF-8 are cut as they come).
std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes);

/// `s` itself when it has at most `max_bytes` bytes, else utf8_prefix(s,
/// max_bytes) followed by " [...]": a log line shown capped.
std::string cap_line(std::string_view s, std::size_t max_bytes);

/// True when `haystack` contains `needle`, ignoring ASCII case (an empty
/// needle is contained in everything). Allocates nothing: it serves
/// multi-megabyte inputs (a DLL's bytes) too.
bool contains_ci(std::string_view haystack, std::string_view needle);

/// True when `s` begins with `prefix`, ignoring ASCII case.
bool starts_with_ci(std::string_view s, std::string_view prefix);

/// The leading dotted numbers of a version: "2.8.0+cu128" -> {2, 8, 0},
/// "12.8" -> {12, 8}; parsing stops at the first other character ("" -> {}).
std::vector<int> parse_version(std::string_view v);

/// -1, 0 or 1 comparing two versions component by component (missing
/// components count as 0: "12.8" == "12.8.0"). Both should be non-empty.
int compare_versions(std::string_view a, std::string_view b);

}  // namespace accel
