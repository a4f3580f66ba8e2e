// The kb loads with valid RE2 patterns, every entry recognises its own sample
// lines, malformed data is refused with a message naming the file and entry,
// and kb/arch.json holds the gfx facts the fixes rely on.
#include <gtest/gtest.h>

#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "kb_test_util.hpp"
#include "platform/process.hpp"

namespace accel {
namespace {

namespace fs = std::filesystem;
using testing::KbTempDir;
using testing::repo_kb;

TEST(KbLoad, RepoKnowledgeBaseLoads) {
  const auto& kb = repo_kb();
  EXPECT_GE(kb.error_entry_count(), 45u);
  const auto ids = kb.error_entry_ids();
  EXPECT_EQ(std::set<std::string>(ids.begin(), ids.end()).size(), ids.size()) << "duplicate ids";
}

TEST(KbLoad, EveryEntryRecognisesItsOwnExamples) {
  static const RE2 kPlaceholder(R"(\{[a-z_][a-z0-9_]*(?:\|[^}]*)?\})");
  const auto& kb = repo_kb();
  for (const auto& id : kb.error_entry_ids()) {
    const auto examples = kb.error_entry_examples(id);
    EXPECT_FALSE(examples.empty()) << id << " has no examples";
    for (const auto& ex : examples) {
      const auto ds = kb.explain(ex, MachineContext{});
      EXPECT_TRUE(testing::has_id(ds, id)) << id << " does not recognise its example: " << ex;
      for (const auto& d : ds) {
        EXPECT_FALSE(d.fix.empty()) << d.id << " has an empty fix";
        EXPECT_FALSE(d.cause.empty()) << d.id << " has an empty cause";
        // An unrendered placeholder is {name} or {name|default}; other braces
        // (a Python dict such as device_map={'': 0}) are text.
        EXPECT_FALSE(RE2::PartialMatch(d.fix, kPlaceholder))
            << d.id << ": unrendered placeholder in " << d.fix;
      }
    }
  }
}

TEST(KbLoad, EveryEntryHasAReference) {
  const auto& kb = repo_kb();
  for (const auto& id : kb.error_entry_ids()) {
    const auto ds = kb.explain(kb.error_entry_examples(id).front(), MachineContext{});
    for (const auto& d : ds) {
      if (d.id == id) EXPECT_FALSE(d.reference.empty()) << id;
    }
  }
}

TEST_F(KbTempDir, BadRegexNamesTheEntry) {
  write("errors.json", R"J({"errors": [{"id": "broken_one", "patterns": ["(unclosed"], "fix": "x"}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("broken_one"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad pattern"), std::string::npos) << msg;
}

TEST_F(KbTempDir, WheelRowWithoutSourceIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"], "fix": "f"}]})J");
  write("wheels.json", R"J({"torch_wheels": [{"torch": "2.8", "variant": "cu128", "archs": ["sm_80"]}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("wheels.json torch 2.8 cu128: needs 'source'"), std::string::npos) << msg;
}

TEST_F(KbTempDir, WheelRowWithABadTargetIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"], "fix": "f"}]})J");
  write("wheels.json",
        R"J({"torch_wheels": [{"torch": "2.8", "variant": "cu128", "archs": ["8.0"], "source": "s"}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("'8.0' is not an sm_NN or gfx target"), std::string::npos) << msg;
}

TEST_F(KbTempDir, TherockFamilyWithAnUnknownPlatformIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"], "fix": "f"}]})J");
  write("wheels.json", R"J({"torch_wheels": [], "therock_families": [{"family": "gfx110X-all",
      "targets": ["gfx1100"], "platforms": ["macos"], "source": "s"}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("TheRock family gfx110X-all: unknown platform 'macos'"), std::string::npos) << msg;
}

TEST_F(KbTempDir, WindowsHipSdkLevelIsChecked) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"], "fix": "f"}]})J");
  write("arch.json", R"J({"gfx": {}, "windows_hip_sdk": {"source": "s", "targets": {"gfx1100": "yes"}}})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("windows_hip_sdk gfx1100: level must be hip_sdk, runtime or none"), std::string::npos)
      << msg;
}

TEST_F(KbTempDir, InvalidJsonNamesTheFile) {
  write("errors.json", "{ not json");
  const auto msg = load_error();
  EXPECT_NE(msg.find("errors.json"), std::string::npos) << msg;
}

TEST_F(KbTempDir, UnknownConditionIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["x"],
      "fixes": [{"when": {"moon_phase": "full"}, "label": "l", "fix": "f"}]}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("moon_phase"), std::string::npos) << msg;
}

TEST_F(KbTempDir, CaptureShadowingAFactIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "e", "patterns": ["arch (?P<gfx>gfx[0-9]+)"], "fix": "f"}]})J");
  EXPECT_NE(load_error().find("shadows"), std::string::npos);
}

TEST_F(KbTempDir, OperatorStatusIsErrorOrUnavailable) {
  write("errors.json",
        R"J({"errors": [{"id": "odd", "patterns": ["x"], "status": "crashed", "fix": "f"}]})J");
  EXPECT_NE(load_error().find("odd"), std::string::npos);
}

TEST_F(KbTempDir, EntryWithoutFixIsRefused) {
  write("errors.json", R"J({"errors": [{"id": "nofix", "patterns": ["x"]}]})J");
  EXPECT_NE(load_error().find("nofix"), std::string::npos);
}

TEST_F(KbTempDir, ADefaultThatUsesItsOwnPlaceholderIsRefused) {
  // "{pkg| ({pkg})}" reads as "(pkg) when known", but a default is the text for an unknown pkg.
  write(
      "errors.json",
      R"J({"errors": [{"id": "selfdefault", "patterns": ["(?P<pkg>\\w+) missing"], "cause": "no SDK{pkg| ({pkg})}", "fix": "f"}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("selfdefault"), std::string::npos) << msg;
  EXPECT_NE(msg.find("{pkg|"), std::string::npos) << msg;
  write("errors.json",
        R"J({"errors": [{"id": "nested", "patterns": ["x"], "fixes": [{"fix": "use {a|{b|{b}}}"}]}]})J");
  EXPECT_NE(load_error().find("{b|"), std::string::npos) << "a default inside a default is checked too";
  write("errors.json",
        R"J({"errors": [{"id": "ingroup", "patterns": ["x"], "fix": "x {\"o\": {pkg| ({pkg})}}"}]})J");
  EXPECT_NE(load_error().find("{pkg|"), std::string::npos) << "a placeholder inside other braces is checked";
  write(
      "errors.json",
      R"J({"errors": [{"id": "inlabel", "patterns": ["x"], "fixes": [{"when": {"os": "linux"}, "label": "L {pkg|{pkg}}", "fix": "f"}]}]})J");
  EXPECT_NE(load_error().find("inlabel"), std::string::npos) << "labels are templates too";
  write(
      "errors.json",
      R"J({"errors": [{"id": "fine", "patterns": ["x"], "cause": "SDK {pkg|hip} {{literal}} {a|{b|none}}", "fix": "{pkg|then set {{pkg}}}"}]})J");
  EXPECT_EQ(load_error(), "");
}

TEST_F(KbTempDir, UnlessWhenIsACheckedConditionThatDropsTheEntry) {
  write("errors.json",
        R"J({"errors": [{"id": "e", "patterns": ["x"], "unless_when": "nvidia", "fix": "f"}]})J");
  EXPECT_NE(load_error().find("e: unless_when must be a non-empty condition object"), std::string::npos)
      << load_error();
  write("errors.json",
        R"J({"errors": [{"id": "e", "patterns": ["x"], "unless_when": {"colour": "red"}, "fix": "f"}]})J");
  EXPECT_NE(load_error().find("unless_when"), std::string::npos) << load_error();
  write(
      "errors.json",
      R"J({"errors": [{"id": "e", "patterns": ["boom"], "unless_when": {"vendor": "nvidia"}, "fix": "f"}]})J");
  ASSERT_EQ(load_error(), "");
  const auto kb = KnowledgeBase::load(dir_.string());
  MachineContext nvidia, amd;
  nvidia.gpu = "GeForce GTX 1070";
  amd.gpu = "Radeon RX 6600";
  EXPECT_TRUE(kb.explain("boom\n", nvidia).empty()) << "true: dropped";
  EXPECT_EQ(kb.explain("boom\n", amd).size(), 1u) << "false: kept";
  EXPECT_EQ(kb.explain("boom\n", MachineContext{}).size(), 1u) << "unknown: kept";
}

TEST_F(KbTempDir, MissingDirectoryIsAnError) {
  fs::remove_all(dir_);
  EXPECT_FALSE(load_error().empty());
}

TEST_F(KbTempDir, MinimalOldFormatStillLoads) {
  write("errors.json", R"J({"schema": 1, "errors": [{"id": "half", "patterns": ["not implemented for 'Half'"],
      "status": "unavailable", "cause": "c", "fix": "f", "reference": "r"}]})J");
  const auto kb = KnowledgeBase::load(dir_.string());
  const auto d = kb.classify("\"addmm\" not implemented for 'Half'", MachineContext{});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "half");
  EXPECT_EQ(d->status, Status::unavailable);
  EXPECT_EQ(d->fix, "f");
}

TEST_F(KbTempDir, SplitFilesLoadAsOneKnowledgeBase) {
  fs::create_directories(dir_ / "errors");
  // A hint and a fix set of one file serve an entry of another.
  write("errors/b_common.json", R"J({"hints": [{"id": "docker", "patterns": ["in a container"]}],
      "fix_sets": {"shared": [{"when": {"hint": "docker"}, "label": "Docker", "fix": "use --ipc=host"}]}})J");
  write("errors/a_nccl.json", R"J({"errors": [{"id": "shm", "patterns": ["NCCL shm"], "cause": "c",
      "fix_set": "shared", "fix": "other"}]})J");
  // Ignored: an errors.json beside errors/ (left by an older copy of the kb).
  write("errors.json", R"J({"errors": [{"id": "shm", "patterns": ["x"], "fix": "f"}]})J");
  const auto kb = KnowledgeBase::load(dir_.string());
  EXPECT_EQ(kb.error_entry_count(), 1u);
  const auto d = kb.classify("NCCL shm failed\nrunning in a container", MachineContext{});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "shm");
  EXPECT_NE(d->fix.find("--ipc=host"), std::string::npos) << d->fix;
}

TEST_F(KbTempDir, DuplicateIdAcrossFilesNamesBothFiles) {
  fs::create_directories(dir_ / "errors");
  write("errors/one.json", R"J({"errors": [{"id": "same", "patterns": ["x"], "fix": "f"}]})J");
  write("errors/two.json", R"J({"errors": [{"id": "same", "patterns": ["y"], "fix": "f"}]})J");
  const auto msg = load_error();
  EXPECT_NE(msg.find("duplicate id"), std::string::npos) << msg;
  EXPECT_NE(msg.find("one.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("two.json"), std::string::npos) << msg;
}

TEST_F(KbTempDir, DirectoryWithoutErrorFilesIsAnError) {
  fs::create_directories(dir_ / "errors");
  EXPECT_NE(load_error().find("no errors/*.json"), std::string::npos);
}

// ---------------------------------------------------------------- arch facts

TEST(KbArch, Rdna2TargetsOverrideTo1030) {
  for (const char* t : {"gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}) {
    const auto a = repo_kb().gfx_arch(t);
    ASSERT_TRUE(a) << t;
    EXPECT_EQ(a->support, "override") << t;
    EXPECT_EQ(a->override_value, "10.3.0") << t;
    EXPECT_EQ(a->family, "rdna2") << t;
    EXPECT_FALSE(a->sources.empty()) << t;
  }
}

TEST(KbArch, Rdna3TargetsOverrideTo1100) {
  for (const char* t : {"gfx1101", "gfx1102"}) {
    const auto a = repo_kb().gfx_arch(t);
    ASSERT_TRUE(a) << t;
    EXPECT_EQ(a->override_value, "11.0.0") << t;
  }
  const auto phoenix = repo_kb().gfx_arch("gfx1103");
  ASSERT_TRUE(phoenix);
  EXPECT_EQ(phoenix->support, "override_risky");
  EXPECT_TRUE(phoenix->integrated);
}

TEST(KbArch, NoSafeOverrideForRdna1PolarisVega) {
  for (const char* t : {"gfx1010", "gfx1011", "gfx1012", "gfx803", "gfx900"}) {
    const auto a = repo_kb().gfx_arch(t);
    ASSERT_TRUE(a) << t;
    EXPECT_EQ(a->support, "none") << t;
    EXPECT_TRUE(a->override_value.empty()) << t;
  }
}

TEST(KbArch, NativeTargetsGetNoOverride) {
  for (const char* t : {"gfx90a", "gfx942", "gfx1100", "gfx1030", "gfx908", "gfx1201"}) {
    const auto a = repo_kb().gfx_arch(t);
    ASSERT_TRUE(a) << t;
    EXPECT_EQ(a->support, "native") << t;
    EXPECT_TRUE(a->override_value.empty()) << t;
  }
}

TEST(KbArch, IntegratedTargets) {
  for (const char* t : {"gfx90c", "gfx1035", "gfx1036", "gfx1103", "gfx1150", "gfx1151"}) {
    const auto a = repo_kb().gfx_arch(t);
    ASSERT_TRUE(a) << t;
    EXPECT_TRUE(a->integrated) << t;
  }
  EXPECT_FALSE(repo_kb().gfx_arch("gfx1032")->integrated);
  EXPECT_FALSE(repo_kb().gfx_arch("gfx9999"));
  EXPECT_TRUE(repo_kb().gfx_arch("GFX1032")) << "lookups ignore case";
}

TEST(KbArch, NvidiaArchitectures) {
  const auto b = repo_kb().sm_arch("sm_120");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->min_cuda, "12.8");
  EXPECT_NE(b->wheel.find("cu128"), std::string::npos);
  EXPECT_EQ(repo_kb().sm_arch("sm_86")->min_cuda, "11.1");
}

TEST_F(KbTempDir, CheckWhereIsCheckedAndNeedsAnOpCapture) {
  write("errors.json",
        R"J({"errors": [{"id": "e", "patterns": ["x"], "check_where": "on_the_moon", "fix": "f"}]})J");
  EXPECT_NE(load_error().find("e: check_where must be cpu_fallback"), std::string::npos) << load_error();
  write(
      "errors.json",
      R"J({"errors": [{"id": "e", "patterns": ["fell back"], "check_where": "cpu_fallback", "fix": "f"}]})J");
  EXPECT_NE(load_error().find("check_where needs an (?P<op>...) capture"), std::string::npos) << load_error();
  write(
      "errors.json",
      R"J({"errors": [{"id": "e", "patterns": ["(?P<op>aten::\\w+) fell back"], "check_where": "cpu_fallback", "fix": "f"}]})J");
  EXPECT_EQ(load_error(), "");
}

}  // namespace
}  // namespace accel
