// The release side of kb/wheels.json (issue 15, third session): wheel rows per
// OS (the Windows wheels' lists differ), the newest wheel that fits a GPU and
// its driver ({wheel_fit}), and each release's Python versions
// ({python_torch}), read from a log's facts.
#include <gtest/gtest.h>

#include <optional>

#include "core/kb_wheels.hpp"
#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::contains_ci;
using testing::repo_kb;

std::optional<Diagnosis> find_id(const std::vector<Diagnosis>& ds, const std::string& id) {
  for (const auto& d : ds) {
    if (d.id == id) return d;
  }
  return std::nullopt;
}

std::vector<Diagnosis> on(const std::string& arch, const std::string& os, const std::string& log) {
  MachineContext c;
  c.arch = arch;
  c.os = os;
  return repo_kb().explain(log, c);
}

TEST(KbReleases, TheWheelRowOfTheMachinesOsDecides) {
  // torch 2.4's cu118 wheels: Linux has sm_37 .. sm_90 cubins and no PTX,
  // Windows embeds sm_37 PTX that a newer GPU JIT-compiles. A (hypothetical,
  // so no other rule speaks) sm_130 GPU is therefore left out on Linux only;
  // with no OS known the two rows disagree and nothing is claimed.
  EXPECT_TRUE(find_id(on("sm_130", "linux", "torch==2.4.0+cu118\n"), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("sm_130", "windows", "torch==2.4.0+cu118\n"), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("sm_130", "", "torch==2.4.0+cu118\n"), "torch_build_evidence"));
}

TEST(KbReleases, ThePascalGpuOnACu128WheelIsToldTheCu126Wheel) {
  const auto d = find_id(on("sm_61", "", "torch                     2.8.0+cu128\n"), "torch_build_evidence");
  ASSERT_TRUE(d);
  // The newest release whose cu126 wheels carry Pascal-capable code (sm_60
  // cubins run on sm_61): 2.11 (pytorch/pytorch#182250).
  EXPECT_TRUE(contains_ci(d->fix, "torch 2.11 with the cu126 wheels")) << d->fix;
  EXPECT_TRUE(contains_ci(d->fix, "download.pytorch.org/whl/cu126")) << d->fix;
}

TEST(KbReleases, TorchTwoSevensCu128WheelsDifferByOsForPascal) {
  // torch 2.7.1's cu128 wheels: Linux sm_75 .. sm_120 (+PTX), Windows also
  // sm_50 .. sm_70 (CorridorKey#141's measured lists). A GTX 1080 (sm_61) is
  // left out on Linux only; with no OS known nothing is claimed.
  const std::string log = "torch                     2.7.1+cu128\n";
  const auto d = find_id(on("sm_61", "linux", log), "torch_build_evidence");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->fix, "with the cu126 wheels")) << d->fix;
  EXPECT_FALSE(find_id(on("sm_61", "windows", log), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("sm_61", "", log), "torch_build_evidence"));
}

TEST(KbReleases, VoltaLeftTheCu128WheelsIn211) {
  // 2.10's cu128 wheels still carry sm_70, 2.11's do not (pytorch/pytorch#175253).
  EXPECT_FALSE(find_id(on("sm_70", "linux", "torch==2.10.0+cu128\n"), "torch_build_evidence"));
  const auto d = find_id(on("sm_70", "linux", "torch==2.11.0+cu128\n"), "torch_build_evidence");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->fix, "torch 2.11 with the cu126 wheels")) << d->fix;
}

TEST(KbReleases, BlackwellOnATorch26WheelIsToldTheNewestCu128) {
  // torch 2.6's cu124 wheels stop at sm_90; the lowest CUDA variant of the
  // newest release with sm_120 code is 2.11's cu128.
  const auto d = find_id(on("sm_120", "linux", "torch==2.6.0+cu124\n"), "torch_build_evidence");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->fix, "torch 2.11 with the cu128 wheels")) << d->fix;
}

TEST(KbReleases, Rdna4IsInTorch27sRocmWheelsNotIn25s) {
  EXPECT_TRUE(find_id(on("gfx1201", "linux", "torch==2.5.1+rocm6.2\n"), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("gfx1201", "linux", "torch==2.7.1+rocm6.3\n"), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("gfx1201", "linux", "torch==2.7.1+rocm6.2.4\n"), "torch_build_evidence"));
}

TEST(KbReleases, TheRocmWheelsGfxListDecidesForAmdGpus) {
  // torch 2.3's ROCm wheels: gfx900 ... gfx1100, plus gfx942 from ROCm 6.0.
  const auto d = find_id(on("gfx1032", "linux", "torch==2.3.1+rocm6.0\n"), "torch_build_evidence");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->cause, "not for gfx1032")) << d->cause;
  EXPECT_TRUE(contains_ci(d->fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << d->fix;
  EXPECT_FALSE(contains_ci(d->fix, "cu126")) << "no CUDA advice for an AMD GPU: " << d->fix;
  EXPECT_FALSE(find_id(on("gfx1030", "linux", "torch==2.3.1+rocm6.0\n"), "torch_build_evidence"));
  EXPECT_FALSE(find_id(on("gfx942", "linux", "torch==2.3.1+rocm6.0\n"), "torch_build_evidence"));
  EXPECT_TRUE(find_id(on("gfx942", "linux", "torch==2.3.1+rocm5.7\n"), "torch_build_evidence"));
}

TEST(KbReleases, AnOldDriverSteersTheFitToAnOlderCuda) {
  // Driver 470 runs CUDA 11.x only (NVIDIA's minor-version compatibility):
  // the newest wheel for an sm_61 GPU it can run is torch 2.5's cu118.
  MachineContext c;
  c.arch = "sm_61";
  c.os = "linux";
  c.versions = "driver 470.86";
  const auto ds =
      repo_kb().explain("torch==2.8.0+cu128\nno kernel image is available for execution on the device\n", c);
  const auto d = find_id(ds, "cuda_no_kernel_image");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->fix, "torch 2.5 with the cu118 wheels")) << d->fix;
}

TEST(KbReleases, PipWithoutAWheelNamesTheReleasesForThatPython) {
  const std::string log =
      "Python 3.14.0 (tags/v3.14.0:ebf955d, Oct  7 2025) [MSC v.1944 64 bit (AMD64)] on win32\n"
      "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)\n";
  const auto r = repo_kb().explain(log, MachineContext{});
  const auto d = find_id(r, "pip_no_torch_wheel");
  ASSERT_TRUE(d);
  EXPECT_TRUE(contains_ci(d->fix, "Python 3.14 are: 2.9, 2.10")) << d->fix;
  // A wheel file name's tag is read too ("cp313" -> 3.13).
  std::istringstream in("Downloading torch-2.6.0-cp313-cp313-win_amd64.whl\n");
  EXPECT_EQ(repo_kb().explain_stream(in, MachineContext{}).facts.python, "3.13");
}

TEST(KbReleases, TheTableRefusesRowsWithoutSourceOrWithAnUnknownOs) {
  const json no_source =
      json::parse(R"({"torch_wheels": [{"torch": "2.4", "variant": "cu121", "archs": ["sm_80"]}]})");
  EXPECT_THROW(WheelTables::load(no_source, "wheels.json"), KbError);
  const json bad_os = json::parse(
      R"({"torch_wheels": [{"torch": "2.4", "variant": "cu121", "os": "macos", "archs": ["sm_80"], "source": "x"}]})");
  EXPECT_THROW(WheelTables::load(bad_os, "wheels.json"), KbError);
  const json bad_python = json::parse(
      R"({"torch_wheels": [], "torch_releases": [{"torch": "2.4", "python": ["three"], "source": "x"}]})");
  EXPECT_THROW(WheelTables::load(bad_python, "wheels.json"), KbError);
}

}  // namespace
}  // namespace accel
