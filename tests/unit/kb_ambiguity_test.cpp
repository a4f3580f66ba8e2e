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

TEST(KbAmbiguity, InvalidDeviceFunctionIsReadByTheVendorTheFactsName) {
  // "invalid device function": AMD's HIP (no code object for the gfx target)
  // and NVIDIA's CUDA (no code for the sm) print the same words. With no
  // vendor known both readings are listed, ROCm first (our users' case); a
  // machine of one vendor drops the other's reading (unless_when), and
  // CUDA's own error code 8 (HIP's is 98) names NVIDIA by itself.
  const std::string bare = "RuntimeError: CUDA error: invalid device function\n";
  const auto unknown = repo_kb().explain(bare, MachineContext{});
  ASSERT_GE(unknown.size(), 2u);
  EXPECT_EQ(unknown[0].id, "rocm_gfx_not_in_build");
  EXPECT_TRUE(testing::has_id(unknown, "cuda_invalid_device_function"));

  MachineContext nvidia;
  nvidia.gpu = "NVIDIA GeForce RTX 3080";
  const auto on_nvidia = repo_kb().explain(bare, nvidia);
  ASSERT_FALSE(on_nvidia.empty());
  EXPECT_EQ(on_nvidia[0].id, "cuda_invalid_device_function");
  EXPECT_FALSE(testing::has_id(on_nvidia, "rocm_gfx_not_in_build"));
  // HIP's own words on an NVIDIA machine: a ROCm build there is the finding.
  EXPECT_TRUE(testing::has_id(
      repo_kb().explain("hipErrorNoBinaryForGpu: Unable to find code object for all current devices!\n",
                        nvidia),
      "rocm_gfx_not_in_build"));
  EXPECT_TRUE(contains_ci(on_nvidia[0].cause, "sm_86")) << on_nvidia[0].cause;

  MachineContext amd;
  amd.gpu = "AMD Radeon RX 6650 XT";
  const auto on_amd = repo_kb().explain(bare, amd);
  ASSERT_FALSE(on_amd.empty());
  EXPECT_EQ(on_amd[0].id, "rocm_gfx_not_in_build");
  EXPECT_FALSE(testing::has_id(on_amd, "cuda_invalid_device_function"));

  // "nvidia-smi: command not found" on a ROCm machine names no NVIDIA GPU.
  const auto rocm_box = repo_kb().explain(
      "Command 'nvidia-smi' not found\n/opt/rocm/lib/libamdhip64.so\n" + bare, MachineContext{});
  ASSERT_FALSE(rocm_box.empty());
  EXPECT_EQ(rocm_box[0].id, "rocm_gfx_not_in_build");
  EXPECT_FALSE(testing::has_id(on_nvidia, "gpu_runtime_error")) << "the generic reading is suppressed";

  const auto code8 = repo_kb().explain(
      "RuntimeError: cuda runtime error (8) : invalid device function at /pytorch/torch/lib/THC/generic/"
      "THCTensorMath.cu:35\n",
      MachineContext{});
  ASSERT_FALSE(code8.empty());
  EXPECT_EQ(code8[0].id, "cuda_invalid_device_function");
  EXPECT_FALSE(testing::has_id(code8, "rocm_gfx_not_in_build"));
  EXPECT_FALSE(testing::has_id(repo_kb().explain("RuntimeError: HIP error: invalid device function\n", {}),
                               "cuda_invalid_device_function"));
}

TEST(KbAmbiguity, LlamaCppBlasZeroIsContextNotTheError) {
  // llama.cpp's system-info line names a CPU-only build; alone it is the
  // answer (llama-cpp-python#787), next to a crash it is context.
  const std::string info = "AVX = 1 | AVX2 = 1 | BLAS = 0 | SSE3 = 1 |\n";
  const auto alone = repo_kb().explain(info, MachineContext{});
  ASSERT_FALSE(alone.empty());
  EXPECT_EQ(alone[0].id, "llama_cpp_system_info_blas0");
  const auto crash = repo_kb().explain(info + "Segmentation fault (core dumped)\n", MachineContext{});
  ASSERT_GE(crash.size(), 2u);
  EXPECT_EQ(crash[0].id, "native_segfault");
  // The build's own warning says it already; a GPU that took the layers says BLAS = 0 is moot.
  const auto both = repo_kb().explain(
      "warning: not compiled with GPU offload support, --gpu-layers option will be ignored\n" + info,
      MachineContext{});
  EXPECT_FALSE(testing::has_id(both, "llama_cpp_system_info_blas0"));
  EXPECT_TRUE(repo_kb().explain(info + "llm_load_tensors: offloaded 33/33 layers to GPU\n", {}).empty());
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
