// The error-like lines `explain` shows when nothing was recognised
// (core/log_key_lines.hpp), and the near matches offered with them: kept
// while streaming, never counted as a recognised cause.
#include <gtest/gtest.h>

#include <sstream>

#include "core/log_key_lines.hpp"
#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::KbTempDir;
using testing::repo_kb;

/// The weight `explain` gives a one-line log's key line (0: none kept).
int weight_of(const std::string& line) {
  std::istringstream in(line + "\n");
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  return r.key_lines.empty() ? 0 : r.key_lines.front().weight;
}

TEST(KeyLineKeeper, KeepsTheStrongestAndLatestInLogOrder) {
  KeyLineKeeper keep(2);
  keep.offer("warning: something", 1, 1);
  keep.offer("ERROR first", 2, 2);
  keep.offer("ERROR second", 3, 2);
  keep.offer("warning: later", 4, 1);  // weaker than both kept lines
  auto lines = keep.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].number, 2u);
  EXPECT_EQ(lines[1].number, 3u);
  keep.offer("RuntimeError: boom", 5, 3);
  lines = keep.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "ERROR second") << "the earlier of equal weight gives way";
  EXPECT_EQ(lines[1].text, "RuntimeError: boom");
}

TEST(KeyLineKeeper, ALineMatchedTwiceOrRepeatedIsKeptOnce) {
  KeyLineKeeper keep(4);
  keep.offer("Error: failed", 1, 2);
  keep.offer("Error: failed", 1, 3);  // a second pattern on the same line
  keep.offer("Error: failed", 7, 3);  // the same text later in the log
  const auto lines = keep.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].weight, 3);
  EXPECT_EQ(lines[0].number, 7u) << "a repeat moves to its latest line";
}

TEST(KeyLines, AnUnrecognisedTracebackPointsAtItsExceptionLine) {
  std::istringstream in(
      "loading model weights\n"
      "Traceback (most recent call last):\n"
      "  File \"/x/app.py\", line 3, in <module>\n"
      "    main()\n"
      "zorblax.FrobnicationError: the frobnicator refused to start\n");
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  ASSERT_TRUE(r.diagnoses.empty());
  ASSERT_FALSE(r.key_lines.empty());
  EXPECT_EQ(r.key_lines.back().number, 5u);
  EXPECT_EQ(r.key_lines.back().weight, 3);
  EXPECT_TRUE(r.near_matches.empty()) << "nothing in the kb reads like a frobnicator";
}

TEST(KeyLines, ARecognisedLogHasNoNearMatches) {
  std::istringstream in(
      "RuntimeError: CUDA error: no kernel image is available for execution on the device\n");
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.key_lines.size(), 1u);
  EXPECT_TRUE(r.near_matches.empty());
}

constexpr const char* kNearKb = R"J({"errors": [
  {"id": "frob_overheated", "title": "The frobnicator overheated", "cause": "c", "fix": "f",
   "patterns": ["^Error: frobnicator overheated on device \\d+$"],
   "examples": ["Error: frobnicator overheated on device 0\nnext step skipped"]},
  {"id": "widget_missing", "title": "A widget is missing", "cause": "c", "fix": "f",
   "patterns": ["widget library libwidget\\.so not found"],
   "examples": ["widget library libwidget.so not found"]}]})J";

TEST_F(KbTempDir, AnotherWordingOfAKnownMessageIsANearMatchNotACause) {
  write("errors.json", kNearKb);
  const auto kb = KnowledgeBase::load(dir_.string());
  std::istringstream in("step 1\nError: the frobnicator overheated on device 3\n");
  const auto r = kb.explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.diagnoses.empty()) << "the pattern has no 'the': this wording is not recognised";
  ASSERT_EQ(r.near_matches.size(), 1u);
  EXPECT_EQ(r.near_matches[0].id, "frob_overheated");
  EXPECT_EQ(r.near_matches[0].title, "The frobnicator overheated");
  EXPECT_EQ(r.near_matches[0].line_number, 2u);
  EXPECT_EQ(r.near_matches[0].example, "Error: frobnicator overheated on device 0")
      << "the one line of a multi-line example that it resembles";
  EXPECT_NEAR(r.near_matches[0].similarity, 1.0, 1e-9) << "the same words once stop words and numbers go";
}

TEST_F(KbTempDir, WordsTheKbHasNeverSeenLowerTheSimilarity) {
  write("errors.json", kNearKb);
  const auto kb = KnowledgeBase::load(dir_.string());
  // The shared words alone would give 1.0; the unknown ones say it is another message.
  std::istringstream in("Error: frobnicator overheated on device 3 while flux capacitors spun backwards\n");
  const auto r = kb.explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.diagnoses.empty());
  EXPECT_TRUE(r.near_matches.empty());
}

TEST_F(KbTempDir, AFarWordingIsNoNearMatch) {
  write("errors.json", kNearKb);
  const auto kb = KnowledgeBase::load(dir_.string());
  std::istringstream in("ERROR: the device overheated while loading a widget\n");
  const auto r = kb.explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.diagnoses.empty());
  EXPECT_EQ(r.key_lines.size(), 1u);
  EXPECT_TRUE(r.near_matches.empty());
}

TEST(KeyLines, PrefixedExceptionsAndCrashesWeighMostAndHarmlessWordsDoNot) {
  EXPECT_EQ(weight_of("[rank0]: zorblax.FrobError: the frobnicator refused"), 3);
  EXPECT_EQ(weight_of("E       zorblax.FrobError: the frobnicator refused"), 3);
  EXPECT_EQ(weight_of("Exception: the frobnicator refused"), 3);
  EXPECT_EQ(weight_of("Exception in thread \"main\" zorblax.Frob"), 3);
  EXPECT_EQ(weight_of("Thread 3 received signal SIGSEGV, frobnication stopped"), 3);
  EXPECT_EQ(weight_of("INFO vm.panic_on_oom=0 frobnication"), 0);
}

TEST(KeyLines, ACountOfZeroIsNotAnError) {
  EXPECT_EQ(weight_of("frobnication finished with 0 errors"), 0);
  EXPECT_EQ(weight_of("frobnication finished with 0 errors, 2 warnings"), 0)
      << "a count of warnings is not an error";
  EXPECT_EQ(weight_of("frob tests: passed: 12, failed: 0"), 0);
  EXPECT_EQ(weight_of("frob pool: errors=0 retries=1"), 0);
  EXPECT_EQ(weight_of("frob: 10 errors in the frobnicator"), 2) << "a count other than zero is an error";
  EXPECT_EQ(weight_of("frob: error 0x7f in the frobnicator"), 2) << "a hex code is not a count of zero";
  EXPECT_EQ(weight_of("zorblax.FrobError: 0 errors expected, got 3"), 3) << "an exception line stays";
  // A zero cancels only its own count.
  EXPECT_EQ(weight_of("[ERROR] Frob tests run: 5, Failures: 2, Errors: 0, Skipped: 0 <<< FAILURE!"), 2);
  EXPECT_EQ(weight_of("frob tests: failed: 3, errors: 0"), 2);
  EXPECT_EQ(weight_of("frob retry failed: 0.5s timeout exceeded"), 2) << "0.5 is not a count of zero";
}

TEST(KeyLineKeeper, ALongLineIsCutAtACharacterBoundary) {
  KeyLineKeeper keep(1);
  const std::string line = std::string(399, 'a') + "\xc3\xa9" + "tail";  // an 'é' across byte 400
  keep.offer(line, 1, 2);
  const auto lines = keep.lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, std::string(399, 'a') + " [...]");
}

}  // namespace
}  // namespace accel
