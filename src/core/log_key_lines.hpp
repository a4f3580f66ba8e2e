// The lines of a log that read most like its error, kept while streaming (a
// bounded number, whatever the log's size). `explain` prints them when no kb
// signature matched (its JSON always has them), as a maintainer would first
// point at the final exception line, a "fatal"/"panic" line or a line saying
// what failed.
//
// How error-like a line is (its weight) comes from the patterns below, which
// the matcher runs as a small RE2::Set of their own on each line (inside the
// kb's big set they slowed logs dense in error words):
//   3: an exception line ("RuntimeError: ...", "[rank0]: torch.OutOfMemoryError: ...",
//      pytest's "E   ValueError: ...", "Exception: ...", 'Exception in thread
//      "main" ...'), fatal / panic / aborted / abort() / segmentation fault /
//      segfault / core dumped / illegal instruction, SIGSEGV / SIGABRT /
//      SIGILL / SIGBUS, "terminate called";
//   2: error / failed / failure / err= / level=ERROR;
//   1: cannot / unable to / could not / not found / not supported / invalid /
//      denied / warning.
// Among lines of one weight the later ones are kept: in a Python traceback,
// and in most logs that stop at a failure, the last error line is the error.
// A count of zero ("0 errors", "failed: 0", "errors=0") is not an error: a line
// that weighs less than 3 is weighed again without its zero counts, so
// "Failures: 2, Errors: 0" still weighs 2 and "finished with 0 errors" nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace accel {

/// One error-like line of a log.
struct KeyLine {
  std::size_t number = 0;  ///< 1-based line number
  std::string text;        ///< capped at 400 bytes
  int weight = 0;          ///< 1..3, see above
};

/// The weight of the pattern that finds a count of zero (not a weight a line gets).
constexpr int kZeroCount = 0;

/// The key-line patterns and their weights (1..3, or kZeroCount), for the
/// matcher's RE2::Set.
const std::vector<std::pair<std::string, int>>& key_line_patterns();

/// `line` with each count of zero replaced by a space.
std::string without_zero_counts(std::string_view line);

/// The weight of one line from the weights of the key-line patterns it
/// matched: the highest; 0 while the line states a count of zero and nothing
/// weighs 3, when it must be weighed again without its zero counts
/// (needs_recount()).
class KeyLineWeight {
 public:
  void add(int pattern_weight);
  int weight() const;
  bool needs_recount() const;

 private:
  int max_ = 0;
  bool zero_count_ = false;
};

/// Keeps the `capacity` most error-like lines offered (highest weight, then
/// latest), without repeats of one text.
class KeyLineKeeper {
 public:
  explicit KeyLineKeeper(std::size_t capacity = 4) : capacity_(capacity) {}
  /// A line of `weight` (1..3; see KeyLineWeight); a line offered several
  /// times keeps its highest weight.
  void offer(std::string_view text, std::size_t number, int weight);
  /// The kept lines in log order.
  std::vector<KeyLine> lines() const;

 private:
  std::size_t capacity_;
  std::vector<KeyLine> kept_;
};

}  // namespace accel
