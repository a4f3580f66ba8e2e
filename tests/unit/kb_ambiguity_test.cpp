// Several causes for one message (issue 15): when the machine does not say
// which applies, explain lists the possibilities, most likely first (those
// whose conditions the log or context already make partly true), each with
// how to tell it apart; it never picks one the evidence does not support.
#include <gtest/gtest.h>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::contains_ci;
using testing::repo_kb;

const Diagnosis* find_id(const std::vector<Diagnosis>& ds, const std::string& id) {
  for (const auto& d : ds) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

TEST(KbAmbiguity, PossibilitiesComeWithHowToTellThemApart) {
  const auto ds = repo_kb().explain("RuntimeError: HIP error: invalid device function\n", MachineContext{});
  const Diagnosis* d = find_id(ds, "rocm_gfx_not_in_build");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->context_needed);
  ASSERT_GE(d->fixes.size(), 3u);
  for (const auto& f : d->fixes) {
    EXPECT_FALSE(f.applies) << f.when;
  }
  // The RDNA2 possibility says how to recognise it, in the option and in the text.
  bool rdna2 = false;
  for (const auto& f : d->fixes) {
    if (contains_ci(f.when, "RDNA2")) {
      rdna2 = true;
      EXPECT_TRUE(contains_ci(f.check, "rocminfo shows gfx1031")) << f.check;
    }
  }
  EXPECT_TRUE(rdna2);
  EXPECT_TRUE(contains_ci(d->fix, "(To tell: rocminfo")) << d->fix;
  EXPECT_TRUE(contains_ci(diagnosis_to_json(*d).dump(), "\"check\"")) << "JSON carries the check";
}

TEST(KbAmbiguity, ACpuOnlyWheelInTheLogIsTheAnswer) {
  // is_available() is False: with nothing known every cause is possible; a
  // CPU-only wheel named in the same log explains it whatever the GPU's
  // vendor, so that one answer is given (with the build for each vendor).
  const auto plain = repo_kb().explain("torch.cuda.is_available() returns False\n", MachineContext{});
  const Diagnosis* a = find_id(plain, "cuda_not_available");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->context_needed);
  ASSERT_FALSE(a->fixes.empty());
  EXPECT_FALSE(contains_ci(a->fixes.front().when, "CPU-only")) << a->fixes.front().when;

  const auto cpu = repo_kb().explain(
      "torch                     2.4.0+cpu\ntorch.cuda.is_available() returns False\n", MachineContext{});
  const Diagnosis* b = find_id(cpu, "cuda_not_available");
  ASSERT_NE(b, nullptr);
  EXPECT_FALSE(b->context_needed);
  EXPECT_TRUE(contains_ci(b->cause, "2.4.0+cpu")) << b->cause;
  EXPECT_TRUE(contains_ci(b->fix, "whl/cu126")) << b->fix;
  EXPECT_TRUE(contains_ci(b->fix, "whl/rocm")) << b->fix;

  // With the vendor known, the vendor's own fix is the answer.
  MachineContext nv;
  nv.arch = "sm_86";
  const auto known =
      repo_kb().explain("torch                     2.4.0+cpu\ntorch.cuda.is_available() returns False\n", nv);
  const Diagnosis* k = find_id(known, "cuda_not_available");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(contains_ci(k->fix, "whl/rocm")) << k->fix;
}

TEST(KbAmbiguity, AKnownMachineGetsOneAnswer) {
  MachineContext c;
  c.arch = "gfx1032";
  c.os = "linux";
  const auto ds = repo_kb().explain("RuntimeError: HIP error: invalid device function\n", c);
  const Diagnosis* d = find_id(ds, "rocm_gfx_not_in_build");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->context_needed);
  EXPECT_TRUE(contains_ci(d->fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << d->fix;
}

}  // namespace
}  // namespace accel
