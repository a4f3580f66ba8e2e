// The version conditions of the kb (`version_below`, `version_at_least`):
// a version fact of the machine or a capture of the message compared with a
// literal or with another one; unknown when a side is not known.
// docs/knowledge-base.md "Conditions".
#include <gtest/gtest.h>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::KbTempDir;

// An MPS-availability entry as in kb/errors/mps.json: the message names the
// macOS it needs (minos); sw_vers' ProductVersion says which one this Mac runs.
constexpr const char* kMpsKb = R"J({
  "facts": [{"pattern": "ProductVersion:\\s*(?P<macos_version>[0-9]+(?:\\.[0-9]+){0,2})"}],
  "errors": [{"id": "mps_unavailable", "patterns": ["MPS backend is supported on MacOS (?P<minos>[0-9.]+)\\+"],
    "cause": "c",
    "fixes": [
      {"when": {"version_below": ["macos_version", "minos"]}, "label": "macOS older than {minos}",
       "fix": "update macOS {macos_version} to {minos}"},
      {"when": {"version_at_least": ["macos_version", "minos"]}, "label": "macOS new enough",
       "fix": "the version check of this build is wrong"},
      {"when": {"version_at_least": ["torch_version", "2.5"]}, "label": "torch 2.5+",
       "fix": "torch 2.5 needs macOS 13"}]}]})J";

class KbVersionCondition : public KbTempDir {
 protected:
  void SetUp() override {
    KbTempDir::SetUp();
    write("errors.json", kMpsKb);
  }
  Diagnosis classify(const std::string& log, const MachineContext& ctx = {}) {
    const auto kb = KnowledgeBase::load(dir_.string());
    const auto d = kb.classify(log, ctx);
    EXPECT_TRUE(d);
    return d ? *d : Diagnosis{};
  }
};

TEST_F(KbVersionCondition, OlderMacFromTheLogGetsTheUpdate) {
  const auto d = classify("ProductVersion: 12.2.1\nThe MPS backend is supported on MacOS 12.3+.");
  EXPECT_FALSE(d.context_needed);
  EXPECT_NE(d.fix.find("update macOS 12.2.1 to 12.3"), std::string::npos) << d.fix;
  EXPECT_EQ(d.fix.find("check of this build is wrong"), std::string::npos) << d.fix;
}

TEST_F(KbVersionCondition, NewEnoughMacIsNotToldToUpdate) {
  // Versions compare as numbers: 14.10 is newer than 14.9.
  const auto d = classify("ProductVersion: 14.10\nThe MPS backend is supported on MacOS 14.9+.");
  EXPECT_NE(d.fix.find("check of this build is wrong"), std::string::npos) << d.fix;
  EXPECT_EQ(d.fix.find("update macOS"), std::string::npos) << d.fix;
}

TEST_F(KbVersionCondition, UnknownVersionListsThePossibilities) {
  const auto d = classify("The MPS backend is supported on MacOS 13.0+.");
  EXPECT_TRUE(d.context_needed);
  ASSERT_GE(d.fixes.size(), 2u);
  for (const auto& f : d.fixes) EXPECT_FALSE(f.applies);
}

TEST_F(KbVersionCondition, ACaptureTheMessageDoesNotCarryIsFalse) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["MPS unavailable(?: on (?P<minos>[0-9.]+))?"],
      "cause": "c", "fixes": [{"when": {"version_below": ["macos_version", "minos"]}, "label": "old", "fix": "update"},
      {"fallback": true, "label": "otherwise", "fix": "check the build"}]}]})J");
  MachineContext ctx;
  ctx.os = "macOS 13.1";
  const auto d = classify("MPS unavailable", ctx);
  EXPECT_FALSE(d.context_needed);
  EXPECT_EQ(d.fix, "check the build");
  EXPECT_EQ(classify("MPS unavailable on 14.0", ctx).fix, "update");
}

TEST_F(KbVersionCondition, TheContextGivesTheMacosVersion) {
  MachineContext ctx;
  ctx.os = "macOS 12.2 (arm64)";
  ctx.versions = "torch 2.4.0";
  const auto kb = KnowledgeBase::load(dir_.string());
  EXPECT_EQ(kb.machine_facts(ctx).macos_version, "12.2");
  const auto d = classify("The MPS backend is supported on MacOS 12.3+.", ctx);
  EXPECT_NE(d.fix.find("update macOS 12.2 to 12.3"), std::string::npos) << d.fix;
  EXPECT_EQ(d.fix.find("torch 2.5 needs"), std::string::npos) << d.fix;  // torch 2.4.0 < 2.5
}

TEST_F(KbVersionCondition, AnotherOsVersionIsNotAMacosVersion) {
  MachineContext ctx;
  ctx.os = "Windows 11";
  const auto kb = KnowledgeBase::load(dir_.string());
  EXPECT_EQ(kb.machine_facts(ctx).macos_version, "");
}

TEST_F(KbTempDir, VersionConditionTakesTwoNames) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"],
      "fixes": [{"when": {"version_below": "12.3"}, "label": "l", "fix": "f"}]}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("version_below"), std::string::npos) << msg;
}

// The repository's entry (kb/errors/mps.json mps_unavailable) with the
// macOS version read from sw_vers / collect_env / platform.platform().
TEST(KbVersionConditionRepo, MpsUnavailableComparesTheMacosVersions) {
  const auto& kb = testing::repo_kb();
  auto fix_for = [&](const std::string& log) {
    const auto d = kb.classify(log, MachineContext{});
    EXPECT_TRUE(d && d->id == "mps_unavailable") << log;
    return d ? d->fix : std::string();
  };
  // Below the message's minimum: update to that minimum.
  EXPECT_NE(fix_for("RuntimeError: The MPS backend is supported on MacOS 13.0+.\nOS: macOS 12.6.1 (arm64)")
                .find("Update macOS to 13.0"),
            std::string::npos);
  // torch 2.5's message says 12.3 but it needs 13 (pytorch/pytorch#139425).
  EXPECT_NE(fix_for("RuntimeError: The MPS backend is supported on MacOS 12.3+.\nProductVersion:\t12.7.6")
                .find("torch<2.5"),
            std::string::npos);
  // Already newer than the minimum: the check of this build is wrong.
  EXPECT_NE(fix_for("RuntimeError: The MPS backend is supported on MacOS 14.0+.\nmacOS-15.1-arm64-arm-64bit")
                .find("release build"),
            std::string::npos);
}

}  // namespace
}  // namespace accel
