// The live progress line on standard error: a bar, the count, the time so
// far and an estimate of the time left (from the time per finished item),
// and the current item. Redrawn on every event and once a second in between,
// so a long item still shows its clock moving. Shown only when enabled (the
// App enables it for a terminal on stderr without --quiet).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>

namespace accel::cli {

class ProgressDisplay {
 public:
  ProgressDisplay(bool enabled, bool unicode);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool enabled() const { return enabled_; }

  /// Item `index` (0-based) of `total` starts. Index 0, or a different
  /// total, starts a new run (the clock and the estimate restart).
  void item_started(const std::string& key, std::size_t index, std::size_t total);
  /// The running item finished.
  void item_finished();
  /// A free-text status line (no bar) until the next item or clear().
  void message(const std::string& text);
  /// Erases the line and ends the run (the next item starts a new one).
  void clear();
  /// Erases the line, keeping the run: the next event draws it again.
  void hide();

 private:
  using Clock = std::chrono::steady_clock;
  void draw_locked();
  void erase_locked();
  void ensure_ticker_locked();
  void tick();

  const bool enabled_;
  const bool unicode_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread ticker_;
  bool stop_ = false;
  bool active_ = false;  ///< something is on the line
  bool run_ = false;     ///< a run of items is in progress
  std::string text_;     ///< message mode when !run_
  std::string current_;
  std::size_t done_ = 0, total_ = 0;
  Clock::time_point run_start_{}, item_start_{};
};

}  // namespace accel::cli
