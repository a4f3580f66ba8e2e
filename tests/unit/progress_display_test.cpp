// The live progress line (src/cli/progress.cpp): its ticker thread redraws
// once a second while the run's callbacks change the state from another
// thread, so every field is shared. Run under ThreadSanitizer by
// scripts/sanitize_and_fuzz.sh (the tsan_tests program); here also in the
// ordinary unit tests. The display writes to std::cerr, captured here.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/progress.hpp"

namespace accel::cli {
namespace {

/// std::cerr into a string while alive, through a buffer with its own lock,
/// so the test may read what the ticker thread writes at any moment.
class CaptureCerr {
 public:
  CaptureCerr() : old_(std::cerr.rdbuf(&buf_)) {}
  ~CaptureCerr() { std::cerr.rdbuf(old_); }
  std::string text() const { return buf_.text(); }

 private:
  class LockedBuf : public std::streambuf {
   public:
    std::string text() const {
      std::lock_guard<std::mutex> lock(mu_);
      return text_;
    }

   protected:
    int_type overflow(int_type c) override {
      if (c == traits_type::eof()) return traits_type::not_eof(c);
      std::lock_guard<std::mutex> lock(mu_);
      text_.push_back(traits_type::to_char_type(c));
      return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override {
      std::lock_guard<std::mutex> lock(mu_);
      text_.append(s, static_cast<std::size_t>(n));
      return n;
    }

   private:
    mutable std::mutex mu_;
    std::string text_;
  };
  LockedBuf buf_;
  std::streambuf* old_;
};

TEST(ProgressDisplay, TickerRedrawsARunningItem) {
  CaptureCerr cap;
  std::string before, after;
  {
    ProgressDisplay p(true, false);
    p.item_started("ops/cpu/matmul/fp32/256x256", 0, 3);
    before = cap.text();
    std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // the ticker draws once a second
    after = cap.text();
    p.item_finished();
  }
  EXPECT_NE(before.find("matmul"), std::string::npos) << before;
  EXPECT_GT(after.size(), before.size()) << "the ticker did not redraw";
  const std::string all = cap.text();
  EXPECT_EQ(all.substr(all.size() - 4), "\r\033[K") << "the line is not erased at the end";
}

TEST(ProgressDisplay, EventsFromSeveralThreadsWhileTheTickerRuns) {
  CaptureCerr cap;
  {
    ProgressDisplay p(true, true);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&p, t] {
        for (std::size_t i = 0; i < 300; ++i) {
          p.item_started("item/" + std::to_string(t) + "/" + std::to_string(i), i % 50, 50);
          p.item_finished();
          if (i % 37 == 0) p.message("status " + std::to_string(i));
          if (i % 53 == 0) p.hide();
          if (i % 91 == 0) p.clear();
        }
      });
    }
    for (auto& th : threads) th.join();
    p.item_started("last", 0, 1);
  }  // the destructor stops and joins the ticker while it may be drawing
  EXPECT_NE(cap.text().find("last"), std::string::npos);
}

TEST(ProgressDisplay, DisabledWritesNothingAndStartsNoThread) {
  CaptureCerr cap;
  {
    ProgressDisplay p(false, false);
    p.item_started("x", 0, 1);
    p.message("y");
    p.item_finished();
    p.clear();
  }
  EXPECT_EQ(cap.text(), "");
}

}  // namespace
}  // namespace accel::cli
