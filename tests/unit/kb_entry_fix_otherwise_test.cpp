// An entry with both its own `fix` and conditional `fixes` but no fallback
// among them: for a machine the log does not describe, the listed
// possibilities end with the entry's own fix as "otherwise" (before
// 2026-12-04 it was dropped, so e.g. the Android fix of
// tflite_gpu_delegate_opencl_library_not_loaded never showed without --os).
// docs/knowledge-base.md "Conditional fixes".
#include <gtest/gtest.h>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::KbTempDir;

constexpr const char* kKb = R"J({"errors": [{"id": "e", "patterns": ["OpenCL library not loaded"],
  "cause": "c", "fix": "declare libOpenCL.so in the manifest",
  "fixes": [{"when": {"os": "linux"}, "label": "a Linux board", "fix": "use the OpenGL fallback"}]}]})J";

Diagnosis classify(const std::string& dir, const MachineContext& ctx) {
  const auto kb = KnowledgeBase::load(dir);
  const auto d = kb.classify("OpenCL library not loaded", ctx);
  EXPECT_TRUE(d);
  return d ? *d : Diagnosis{};
}

TEST_F(KbTempDir, EntryFixIsTheOtherwiseOfAnUnknownMachine) {
  write("errors.json", kKb);
  const auto d = classify(dir_.string(), {});
  EXPECT_TRUE(d.context_needed);
  ASSERT_EQ(d.fixes.size(), 2u);
  EXPECT_EQ(d.fixes[1].when, "otherwise");
  EXPECT_FALSE(d.fixes[1].applies);
  EXPECT_NE(d.fix.find("- otherwise: declare libOpenCL.so"), std::string::npos) << d.fix;
  EXPECT_NE(d.fix.find("- if a Linux board: use the OpenGL fallback"), std::string::npos) << d.fix;
}

TEST_F(KbTempDir, EntryFixAppliesWhenEveryConditionalFixIsFalse) {
  write("errors.json", kKb);
  MachineContext ctx;
  ctx.os = "Windows 11";
  const auto d = classify(dir_.string(), ctx);
  EXPECT_FALSE(d.context_needed);
  EXPECT_EQ(d.fix, "declare libOpenCL.so in the manifest");
}

TEST_F(KbTempDir, ATrueConditionalFixHidesTheEntryFix) {
  write("errors.json", kKb);
  MachineContext ctx;
  ctx.os = "Ubuntu 22.04";
  const auto d = classify(dir_.string(), ctx);
  EXPECT_EQ(d.fix, "use the OpenGL fallback");
}

}  // namespace
}  // namespace accel
