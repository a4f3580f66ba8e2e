// The wheel table (kb/wheels.json) decides wheel_lacks_arch for the torch
// builds it lists: which GPU targets an official wheel variant carries code
// for, with NVIDIA's binary compatibility (X.y runs on X.z, z >= y) and PTX.
#include <gtest/gtest.h>

#include <optional>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::contains_ci;
using testing::repo_kb;

std::vector<Diagnosis> on(const std::string& arch, const std::string& log) {
  MachineContext c;
  c.arch = arch;
  return repo_kb().explain(log, c);
}

/// A copy, not a pointer: callers pass on()'s temporary list.
std::optional<Diagnosis> find(const std::vector<Diagnosis>& ds, const std::string& id) {
  for (const auto& d : ds) {
    if (d.id == id) return d;
  }
  return std::nullopt;
}

TEST(KbWheels, BlackwellOnACu126WheelNamesTheWheelsTargets) {
  const auto ds = on("sm_120", "PyTorch version: 2.8.0+cu126\n");
  const auto d = find(ds, "torch_build_evidence");
  ASSERT_TRUE(d);
  // The cause lists what the cu126 wheel of 2.8 was built for, from the table.
  EXPECT_TRUE(contains_ci(d->cause, "cu126 wheels of torch 2.8.0+cu126 are built without sm_120"))
      << d->cause;
  EXPECT_TRUE(contains_ci(d->cause, "carry code for sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90 only"))
      << d->cause;
  EXPECT_TRUE(contains_ci(d->fix, "cu128")) << d->fix;
}

TEST(KbWheels, BinaryCompatibleMinorVersionsRun) {
  // sm_89 runs the sm_86 cubins of the cu128 wheel; sm_61 runs cu126's sm_60.
  EXPECT_FALSE(find(on("sm_89", "torch==2.8.0+cu128\n"), "torch_build_evidence"));
  EXPECT_FALSE(find(on("sm_61", "torch==2.8.0+cu126\n"), "torch_build_evidence"));
  // ... but not across a major version: sm_61 has nothing in cu128 (7.0 and up).
  const auto d = find(on("sm_61", "torch==2.8.0+cu128\n"), "torch_build_evidence");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->cause, "built without sm_61")) << d->cause;
}

TEST(KbWheels, EmbeddedPtxRunsOnNewerGpus) {
  // cu129 embeds sm_120 PTX, cu128 does not: a (hypothetical) sm_130 GPU is
  // left out by cu128 and JIT-compiles cu129's PTX.
  EXPECT_TRUE(find(on("sm_130", "torch==2.8.0+cu128\n"), "torch_build_evidence"));
  EXPECT_FALSE(find(on("sm_130", "torch==2.8.0+cu129\n"), "torch_build_evidence"));
}

TEST(KbWheels, UnlistedBuildsFallBackToTheArchRanges) {
  // 2.9 is not in the table: arch.json's wheels_without (Volta leaves at CUDA 13) decides.
  EXPECT_TRUE(find(on("sm_70", "torch==2.9.0+cu130\n"), "torch_build_evidence"));
  EXPECT_FALSE(find(on("sm_70", "torch==2.9.0+cu128\n"), "torch_build_evidence"));
}

// ---------------------------------------------------------------- TheRock families

std::string fix_for(const std::string& arch, const std::string& os, const std::string& log,
                    const std::string& id) {
  MachineContext c;
  c.arch = arch;
  c.os = os;
  for (const auto& d : repo_kb().explain(log, c)) {
    if (d.id == id) return d.fix;
  }
  return "(no " + id + ")";
}

TEST(KbTherock, WindowsNoDeviceNamesTheFamilyIndex) {
  const auto fix =
      fix_for("gfx1100", "Windows 11", "RuntimeError: No HIP GPUs are available\n", "hip_no_device");
  EXPECT_TRUE(contains_ci(fix, "https://rocm.nightlies.amd.com/v2/gfx110X-all/")) << fix;
  // The smallest family holding the target wins (gfx1151 is its own family).
  const auto apu =
      fix_for("gfx1151", "Windows 11", "RuntimeError: No HIP GPUs are available\n", "hip_no_device");
  EXPECT_TRUE(contains_ci(apu, "v2/gfx1151/")) << apu;
}

TEST(KbTherock, ATargetInNoWindowsFamilyGetsNoIndex) {
  // gfx1031 (RX 6700 XT) is in no TheRock family; gfx906 has no Windows torch build.
  for (const std::string gfx : {"gfx1031", "gfx906"}) {
    const auto fix = fix_for(gfx, "Windows 10", "RuntimeError: No HIP GPUs are available\n", "hip_no_device");
    EXPECT_TRUE(contains_ci(fix, "no family with " + gfx)) << gfx << ": " << fix;
    EXPECT_FALSE(contains_ci(fix, "rocm.nightlies.amd.com/v2/gfx")) << gfx << ": " << fix;
  }
}

TEST(KbTherock, CpuOnlyTorchOnAnApuNamesItsWindowsIndex) {
  const auto fix = fix_for("gfx1151", "Windows 11", "torch==2.4.0+cpu\n", "torch_build_evidence");
  EXPECT_TRUE(contains_ci(fix, "https://rocm.nightlies.amd.com/v2/gfx1151/")) << fix;
}

// ---------------------------------------------------------------- HIP SDK for Windows

TEST(KbWindowsHipSdk, RuntimeOnlyTargetsGetNoSdkLibraries) {
  const std::string log =
      "rocBLAS error: Cannot read C:\\rocm\\TensileLibrary.dat: No such file or directory\n";
  const auto fix = fix_for("gfx1031", "Windows 11", log, "rocblas_tensile_missing");
  EXPECT_TRUE(contains_ci(fix, "carry no kernels for gfx1031 on Windows")) << fix;
  EXPECT_TRUE(contains_ci(fix, "no TheRock family includes gfx1031")) << fix;  // nested placeholder default
  MachineContext c;
  c.arch = "gfx1031";
  c.os = "Windows 11";
  const auto ds = repo_kb().explain(log, c);
  ASSERT_FALSE(ds.empty());
  EXPECT_TRUE(contains_ci(ds.front().cause, "the HIP runtime only")) << ds.front().cause;
}

TEST(KbWindowsHipSdk, SdkTargetsAndLinuxAreNotTold) {
  const std::string log =
      "rocBLAS error: Cannot read C:\\rocm\\TensileLibrary.dat: No such file or directory\n";
  EXPECT_FALSE(
      contains_ci(fix_for("gfx1100", "Windows 11", log, "rocblas_tensile_missing"), "carry no kernels"));
  EXPECT_FALSE(
      contains_ci(fix_for("gfx1031", "Ubuntu 24.04", log, "rocblas_tensile_missing"), "carry no kernels"));
}

// ---------------------------------------------------------------- DirectML data types

TEST(KbDirectml, DtypeErrorListsDirectmlsTypes) {
  const auto ds = repo_kb().explain(
      "[F302 15:36:01.000000000 dml_util.cc:118] Invalid or unsupported data type BFloat16.\n",
      MachineContext{});
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds.front().id, "dml_dtype_unsupported");
  EXPECT_TRUE(contains_ci(ds.front().cause, "FLOAT32, FLOAT16, UINT32")) << ds.front().cause;
  EXPECT_TRUE(contains_ci(ds.front().cause, "(FLOAT64 only on devices that report it)")) << ds.front().cause;
  EXPECT_TRUE(contains_ci(ds.front().cause, "BFloat16 (bfloat16, complex) is not one of them"))
      << ds.front().cause;
}

}  // namespace
}  // namespace accel
