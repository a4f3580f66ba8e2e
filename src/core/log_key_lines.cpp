// Error-like lines of a log; see core/log_key_lines.hpp.
#include "core/log_key_lines.hpp"

#include <algorithm>

#include <re2/re2.h>

#include "core/strings.hpp"

namespace accel {
namespace {

/// A count of zero ("0 errors", "failed: 0", "errors=0"; not "0.5").
constexpr const char* kZeroCountPattern =
    R"((?i)\b0 (?:errors?|failed|failures?)\b|\b(?:errors?|failed|failures?)\s*[:=]\s*0(?:$|[^.\w]))";

}  // namespace

const std::vector<std::pair<std::string, int>>& key_line_patterns() {
  static const std::vector<std::pair<std::string, int>> patterns{
      // An exception line: a (dotted) class name ending in Error/Exception, then ':' or the end,
      // at the start of the line or after a prefix ("[rank0]: ", pytest's "E   ", Java's
      // 'Exception in thread "main" java.lang.X').
      {R"((?:^|[\s:\]"])(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception)\b(?::|\s*$))", 3},
      {R"(\bException in thread\b)", 3},
      {R"((?i)\b(?:fatal|panic|panicked|segmentation fault|segfault|core dumped|aborted|abort\(\)|)"
       R"(illegal instruction)\b)",
       3},
      {R"(\b(?:SIGSEGV|SIGABRT|SIGILL|SIGBUS)\b|\bterminate called\b)", 3},
      {R"((?i)\b(?:error|errors|failed|failure|failures|err)\b)", 2},
      {R"((?i)\b(?:cannot|can't|unable to|could not|couldn't|not found|not supported|not available|)"
       R"(invalid|denied|warning)\b)",
       1},
      // A count of zero ("0 errors", "failed: 0", "errors=0"): see KeyLineWeight.
      {kZeroCountPattern, kZeroCount},
  };
  return patterns;
}

std::string without_zero_counts(std::string_view line) {
  static const RE2 zero_count(kZeroCountPattern);
  std::string rest(line);
  RE2::GlobalReplace(&rest, zero_count, " ");
  return rest;
}

void KeyLineWeight::add(int pattern_weight) {
  if (pattern_weight == kZeroCount) {
    zero_count_ = true;
  } else {
    max_ = std::max(max_, pattern_weight);
  }
}

int KeyLineWeight::weight() const { return needs_recount() ? 0 : max_; }

bool KeyLineWeight::needs_recount() const { return zero_count_ && max_ > 0 && max_ < 3; }

void KeyLineKeeper::offer(std::string_view text, std::size_t number, int weight) {
  if (capacity_ == 0) return;
  for (auto& k : kept_) {
    if (k.number == number) {  // another pattern on the same line
      k.weight = std::max(k.weight, weight);
      return;
    }
  }
  constexpr std::size_t kMaxText = 400;
  std::string shown = cap_line(text, kMaxText);
  // A repeated line keeps its latest occurrence.
  for (auto& k : kept_) {
    if (k.text == shown) {
      if (weight >= k.weight) {
        k.number = number;
        k.weight = weight;
      }
      return;
    }
  }
  if (kept_.size() < capacity_) {
    kept_.push_back({number, std::move(shown), weight});
    return;
  }
  // Replace the weakest kept line (lowest weight, then earliest) if this one is at least as strong.
  auto weakest = std::min_element(kept_.begin(), kept_.end(), [](const KeyLine& a, const KeyLine& b) {
    if (a.weight != b.weight) return a.weight < b.weight;
    return a.number < b.number;
  });
  if (weight >= weakest->weight) *weakest = {number, std::move(shown), weight};
}

std::vector<KeyLine> KeyLineKeeper::lines() const {
  std::vector<KeyLine> out = kept_;
  std::sort(out.begin(), out.end(), [](const KeyLine& a, const KeyLine& b) { return a.number < b.number; });
  return out;
}

}  // namespace accel
