// The matcher's reading of a log beyond one line per pattern (issue 15):
// messages wrapped over two lines, entries with several indistinguishable
// causes listed as possibilities, suppression only by a reported reading,
// and the source threads of an entry.
#include <gtest/gtest.h>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::has_id;
using testing::KbTempDir;
using testing::repo_kb;

const Diagnosis& find(const std::vector<Diagnosis>& ds, const std::string& id) {
  for (const auto& d : ds) {
    if (d.id == id) return d;
  }
  static const Diagnosis kNone;
  ADD_FAILURE() << id << " not recognised";
  return kNone;
}

// ---------------------------------------------------------------- wrapped lines

TEST(KbWrapped, AMessageWrappedByATerminalIsRead) {
  // rich (SD.Next, vLLM) wraps at the console width and indents the rest.
  const std::string log =
      "15:30:32-897234 ERROR    Prompt parser encode: RuntimeError: CUDA error: no kernel image is\n"
      "                         available for execution on the device\n";
  const auto ds = repo_kb().explain(log, MachineContext{});
  const auto& d = find(ds, "cuda_no_kernel_image");
  ASSERT_EQ(d.line_numbers.size(), 2u) << "both lines of the wrapped message are shown";
  EXPECT_EQ(d.line_numbers[0], 1u);
  EXPECT_EQ(d.line_numbers[1], 2u);
  EXPECT_EQ(d.match_count, 1u);
}

TEST(KbWrapped, AMessageOnOneLineIsCountedOnce) {
  // The next line is indented (a traceback), but the message matched alone:
  // the joined text must not count it again.
  const std::string log =
      "RuntimeError: CUDA error: no kernel image is available for execution on the device, see the docs\n"
      "  File \"/x/site-packages/torch/nn/modules/module.py\", line 1511, in _call_impl\n";
  const auto ds = repo_kb().explain(log, MachineContext{});
  EXPECT_EQ(find(ds, "cuda_no_kernel_image").match_count, 1u);
  EXPECT_EQ(find(ds, "cuda_no_kernel_image").line_numbers.size(), 1u);
}

TEST(KbWrapped, ShortOrCapitalisedNextLinesAreNotJoined) {
  // Two separate log lines, the second starting a new record.
  EXPECT_FALSE(
      has_id(repo_kb().explain("CUDA error: no kernel image is\nAvailable for execution on the device\n",
                               MachineContext{}),
             "cuda_no_kernel_image"));
  // A short previous line is a line of its own, not a wrapped one.
  EXPECT_FALSE(has_id(
      repo_kb().explain("no kernel image is\n available for execution on the device\n", MachineContext{}),
      "cuda_no_kernel_image"));
}

// ---------------------------------------------------------------- possibilities

constexpr const char* kPossibilitiesKb = R"J({"errors": [
  {"id": "runner_crashed", "title": "the runner crashed", "cause": "the runner process ended",
   "patterns": ["runner terminated: exit status (?P<code>\\w+)"], "possibilities": true,
   "fixes": [
     {"when": {"capture": {"code": "^0xc000001d$"}}, "label": "an illegal instruction",
      "fix": "use a build without AVX2", "check": "the code is 0xc000001d"},
     {"label": "an old build", "fix": "update it", "check": "the version is older than 0.5"},
     {"label": "a broken model file", "fix": "download it again", "check": "another model loads"}]}]})J";

TEST_F(KbTempDir, PossibilitiesAreListedWithHowToTellThem) {
  write("errors.json", kPossibilitiesKb);
  const auto kb = KnowledgeBase::load(dir_.string());
  const auto ds = kb.explain("llama runner terminated: exit status 0xc0000005\n", MachineContext{});
  ASSERT_EQ(ds.size(), 1u);
  const auto& d = ds.front();
  EXPECT_TRUE(d.context_needed);
  ASSERT_EQ(d.fixes.size(), 2u);
  EXPECT_FALSE(d.fixes[0].applies);
  EXPECT_EQ(d.fixes[0].when, "an old build");
  EXPECT_EQ(d.fixes[1].check, "another model loads");
  EXPECT_EQ(d.fix.rfind("Several causes print this", 0), 0u) << d.fix;
  EXPECT_NE(d.fix.find("(To tell: the version is older than 0.5)"), std::string::npos) << d.fix;
}

TEST_F(KbTempDir, APossibilityTheLogIdentifiesAnswersAlone) {
  write("errors.json", kPossibilitiesKb);
  const auto kb = KnowledgeBase::load(dir_.string());
  const auto ds = kb.explain("llama runner terminated: exit status 0xc000001d\n", MachineContext{});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_FALSE(ds.front().context_needed);
  EXPECT_EQ(ds.front().fix, "use a build without AVX2");
}

TEST_F(KbTempDir, PossibilitiesNeedLabelsAndChecks) {
  write("errors.json", R"J({"errors": [{"id": "p", "patterns": ["x"], "possibilities": true,
      "fixes": [{"label": "a", "fix": "f"}, {"label": "b", "fix": "g", "check": "c"}]}]})J");
  EXPECT_NE(load_error().find("each with a 'label' and a 'check'"), std::string::npos) << load_error();
}

// ---------------------------------------------------------------- suppression

TEST_F(KbTempDir, OnlyAReportedReadingSuppressesAnother) {
  // An evidence entry whose facts say nothing wrong is not reported, so it
  // does not hide the generic reading it would refine.
  write("errors.json", R"J({"errors": [
    {"id": "generic", "title": "t", "cause": "c", "patterns": ["GPU not used"], "fix": "look"},
    {"id": "cpu_wheel", "title": "t", "cause": "c", "patterns": ["GPU not used"], "evidence": true,
     "suppresses": ["generic"],
     "fixes": [{"when": {"cpu_only_torch": true}, "label": "cpu", "fix": "install the GPU build"}]}]})J");
  const auto kb = KnowledgeBase::load(dir_.string());
  auto ds = kb.explain("GPU not used\n", MachineContext{});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds.front().id, "generic");
  MachineContext cpu;
  cpu.versions = "torch 2.4.0+cpu";
  ds = kb.explain("GPU not used\n", cpu);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds.front().id, "cpu_wheel");
}

// ---------------------------------------------------------------- sources

TEST_F(KbTempDir, SourcesAreThreadUrls) {
  write("errors.json", R"J({"errors": [{"id": "s", "patterns": ["x"], "fix": "f",
      "sources": ["https://github.com/o/r/issues/1", "pytorch#2"]}]})J");
  EXPECT_NE(load_error().find("sources must be URLs"), std::string::npos) << load_error();
  write("errors.json", R"J({"errors": [{"id": "s", "patterns": ["x"], "fix": "f",
      "sources": ["https://github.com/o/r/issues/1"]}]})J");
  const auto ds = KnowledgeBase::load(dir_.string()).explain("x\n", MachineContext{});
  ASSERT_EQ(ds.size(), 1u);
  ASSERT_EQ(ds.front().sources.size(), 1u);
  EXPECT_EQ(diagnosis_to_json(ds.front()).at("sources").at(0), "https://github.com/o/r/issues/1");
}

}  // namespace
}  // namespace accel
