// Internal to the terminal reporter (core/report/console*.cpp), not a public
// header: the text helpers its parts share. The parts:
//   console.cpp         colours, the summary line, the exit reason, the problem lists
//   console_tables.cpp  the result tables (checks, bench, llm, train)
//   console_env.cpp     the `env` report
//   console_text.cpp    these helpers
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/evidence.hpp"
#include "core/report/console.hpp"

namespace accel::console_detail {

/// `s` in bold / dim (ANSI) when style.color, else unchanged.
std::string bold(const std::string& s, const ConsoleStyle& style);
std::string dim(const std::string& s, const ConsoleStyle& style);
/// Cuts `s` to `width` display columns (UTF-8 aware: counts code points).
std::string fit(const std::string& s, std::size_t width);
/// Display columns of `s` (UTF-8 code points).
std::size_t display_width(const std::string& s);
/// `s` cut to `width` columns and padded with spaces: left-aligned (pad),
/// right-aligned (rpad).
std::string pad(const std::string& s, std::size_t width);
std::string rpad(const std::string& s, std::size_t width);
/// Wraps every line longer than `width` columns (ANSI escapes take none) at
/// spaces, continuing 4 columns deeper than the line's own indent; a word
/// longer than a line is cut into pieces ending in "…".
std::string wrap_lines(const std::string& text, int width);
/// `value`, or "could not collect (why)" from the environment's not_collected.
std::string or_missing(const std::string& value, const NotCollected& nc, const std::string& field);

template <typename T>
std::string opt_or_missing(const std::optional<T>& v, const NotCollected& nc, const std::string& field,
                           const std::function<std::string(const T&)>& fmt_fn) {
  if (v) return fmt_fn(*v);
  return or_missing("", nc, field);
}

/// One "  label                  value" line of the `env` report.
void line(std::string& out, const std::string& label, const std::string& value);

}  // namespace accel::console_detail
