#include "cli/progress.hpp"

#include <cstdlib>
#include <iostream>

#include "core/report/progress.hpp"
#include "platform/terminal.hpp"

namespace accel::cli {

ProgressDisplay::ProgressDisplay(bool enabled, bool unicode) : enabled_(enabled), unicode_(unicode) {}

ProgressDisplay::~ProgressDisplay() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    if (enabled_) erase_locked();
  }
  cv_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void ProgressDisplay::item_started(const std::string& key, std::size_t index, std::size_t total) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = Clock::now();
  if (!run_ || index == 0 || total != total_) {
    run_ = true;
    run_start_ = now;
    total_ = total;
  }
  done_ = index;
  current_ = key;
  item_start_ = now;
  draw_locked();
  ensure_ticker_locked();
}

void ProgressDisplay::item_finished() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!run_) return;
  done_ = std::min(done_ + 1, total_);
  item_start_ = Clock::now();
  draw_locked();
}

void ProgressDisplay::message(const std::string& text) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  run_ = false;
  text_ = text;
  draw_locked();
}

void ProgressDisplay::clear() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  run_ = false;
  text_.clear();
  erase_locked();
}

void ProgressDisplay::hide() {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  erase_locked();
}

void ProgressDisplay::draw_locked() {
  const int width = platform::terminal_columns(platform::StdStream::err, 80) -
                    1;  // the last column would wrap on some terminals
  std::string line;
  if (run_) {
    const auto now = Clock::now();
    ProgressState st;
    st.done = done_;
    st.total = total_;
    st.current = done_ < total_ ? current_ : "";
    st.elapsed_s = std::chrono::duration<double>(now - run_start_).count();
    st.current_s = done_ < total_ ? std::chrono::duration<double>(now - item_start_).count() : 0;
    line = format_progress_line(st, width, unicode_);
  } else {
    ProgressState st;
    st.current = text_;
    line = format_progress_line(st, width, unicode_);
  }
  std::cerr << "\r\033[K" << line << std::flush;
  active_ = !line.empty();
}

void ProgressDisplay::erase_locked() {
  if (!active_) return;
  std::cerr << "\r\033[K" << std::flush;
  active_ = false;
}

void ProgressDisplay::ensure_ticker_locked() {
  if (ticker_.joinable()) return;
  ticker_ = std::thread([this] { tick(); });
}

void ProgressDisplay::tick() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, std::chrono::seconds(1));
    if (stop_) break;
    if (run_ && active_) draw_locked();
  }
}

}  // namespace accel::cli
