// The progress line shown on standard error during long runs: a bar, the
// count, the time so far, an estimate of the time left and the current item.
// Pure formatting; the CLI owns the clock and the terminal.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace accel {

struct ProgressState {
  std::size_t done = 0;   ///< items finished
  std::size_t total = 0;  ///< items in the run (0: unknown)
  std::string current;    ///< key of the running item, or a free-text status
  double elapsed_s = 0;   ///< since the first item started
  double current_s = 0;   ///< since the current item started
};

/// Seconds left: the mean time of the finished items times the items not
/// finished, less what the current item has already run. nullopt until one
/// item has finished (no basis for an estimate).
std::optional<double> progress_eta_s(const ProgressState& state);

/// "45s", "2m05s", "1h02m".
std::string format_duration(double seconds);

/// One line, at most `width` columns (UTF-8 aware), no newline:
///   "[█████░░░░░░░░░░░░░░░] 123/512 24% 1m05s ~3m20s left  ops/matmul/gemm/bf16 (12s)"
/// The bar shrinks, then goes, on narrow terminals, before the item name is
/// cut below 32 columns. `unicode` picks block characters over '#' and '-'.
std::string format_progress_line(const ProgressState& state, int width, bool unicode);

}  // namespace accel
