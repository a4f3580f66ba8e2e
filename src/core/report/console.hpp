// Terminal rendering of evidence. Returns strings; the CLI prints them.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct ConsoleStyle {
  int width = 100;     ///< terminal columns
  bool color = false;  ///< ANSI colours (only on a TTY, never with NO_COLOR)
};

/// Whether to colour: only on a terminal, never with --no-color, never when
/// NO_COLOR is set to a non-empty value (https://no-color.org).
bool color_allowed(bool is_tty, bool no_color_option, const char* no_color_env);

/// Wraps `text` in the ANSI colour for `status` when style.color is set.
std::string colorize_status(Status status, const std::string& text, const ConsoleStyle& style);

/// The `env` report: host, torch build, BLAS, drivers, devices (torch's and
/// the hardware found without torch), environment variables.
std::string render_environment(const Environment& env, const ConsoleStyle& style);

/// Operator checks as a table grouped by category.
std::string render_checks_table(const std::vector<Result>& results, const ConsoleStyle& style);

/// Text with every line longer than `width` columns wrapped at spaces
/// (continuation lines indented under the value of "label   value" lines).
std::string wrap_to_width(const std::string& text, int width);

/// "Summary: 98/104 ok on cuda:0 | 2 errors | ... | median speed-up 14.2x vs CPU"
std::string checks_summary_line(const std::vector<Result>& results, const std::string& device);

/// Why a measuring command exits 1, for the end of its terminal output: ""
/// when no result failed; else "<command> exits 1: N of M <what> failed"
/// and, unless `listed_above` (ops prints its problems itself), each failed
/// result with its whole reason (at most 12, then a count).
std::string render_exit_reason(const std::string& command, const std::vector<Result>& results,
                               bool listed_above, const ConsoleStyle& style);

/// Benchmarks as a table grouped by category (gemm, memory, transfer, launch).
std::string render_bench_table(const std::vector<Result>& results, const ConsoleStyle& style);

/// LLM workload rows: tokens/s, latency, roofline, speed-up, bottleneck.
std::string render_llm_table(const std::vector<Result>& results, const ConsoleStyle& style);

/// Training rows (`train`): samples/s, step time, host->device bytes and
/// synchronisations per step, loss vs fp32, speed-up, and the notes of the
/// item-cost and batch-sweep rows.
std::string render_train_table(const std::vector<Result>& results, const ConsoleStyle& style);

/// Each check that did not pass, with its message, cause and fix.
std::string render_check_problems(const std::vector<Result>& results, const ConsoleStyle& style);

/// The same in brief, for the default run (the findings carry the fixes):
/// one line per failing check (error, mismatch, off_device, crashed, hung,
/// CPU fallback) and the `unavailable` checks grouped by cause, with counts
/// and the first keys of each group.
std::string render_check_problems_brief(const std::vector<Result>& results, const ConsoleStyle& style);

}  // namespace accel
