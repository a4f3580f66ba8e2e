// Terminal rendering of findings, the verdict, and `compare`.
#pragma once

#include <string>
#include <vector>

#include "core/compare.hpp"
#include "core/evidence.hpp"
#include "core/report/console.hpp"

namespace accel {

/// Findings ranked as given, numbered, each with evidence, why, fix and
/// reference, wrapped to style.width. "No findings." when empty.
std::string render_findings(const std::vector<Finding>& findings, const ConsoleStyle& style);

/// "Verdict: <line>" (green when nothing needs attention, yellow/red otherwise).
std::string render_verdict(const std::string& verdict, bool needs_attention, const ConsoleStyle& style);

/// `compare`: regressions first (newly failing, slower), then fixed, faster,
/// status changes, new and missing keys, and a summary line with the noise rule.
/// Unchanged results are counted, not listed.
std::string render_comparison(const Comparison& comparison, const ConsoleStyle& style);

}  // namespace accel
