// The fix depends on the machine: the same message gets a different answer on
// gfx1032, gfx1010, gfx1100 with a stale override, or an unknown machine (the
// possibilities, each with its condition). Also the free-text context parser.
#include <gtest/gtest.h>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::contains_ci;
using testing::repo_kb;

MachineContext ctx_arch(const std::string& arch, const std::string& backend = "rocm") {
  MachineContext c;
  c.arch = arch;
  c.backend = backend;
  return c;
}

Diagnosis top(const std::string& log, const MachineContext& ctx) {
  const auto ds = repo_kb().explain(log, ctx);
  if (ds.empty()) {
    ADD_FAILURE() << "nothing recognised in: " << log;
    return {};
  }
  return ds.front();
}

const char* kInvalidDeviceFunction = "RuntimeError: HIP error: invalid device function";
const char* kNoBinary = "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!";

// ---------------------------------------------------------------- context parsing

TEST(KbContext, ParsesFreeTextArch) {
  auto f = repo_kb().machine_facts(ctx_arch("gfx1032 (dGPU), Vega iGPU"));
  EXPECT_EQ(f.gfx, "gfx1032");
  EXPECT_EQ(f.vendor, "amd");
  ASSERT_TRUE(f.igpu);
  EXPECT_TRUE(*f.igpu);
  ASSERT_TRUE(f.dgpu);
  EXPECT_TRUE(*f.dgpu);

  f = repo_kb().machine_facts(ctx_arch("gfx90a (reported as gfx1030)"));
  EXPECT_EQ(f.gfx, "gfx90a");
  EXPECT_EQ(f.reported_gfx, "gfx1030");
  ASSERT_TRUE(f.override_set);
  EXPECT_TRUE(*f.override_set);

  f = repo_kb().machine_facts(ctx_arch("gfx103x"));
  EXPECT_EQ(f.gfx, "gfx103x");
  EXPECT_FALSE(f.override_set) << "nothing says an override is set";

  f = repo_kb().machine_facts(ctx_arch("GFX1036, gfx1100"));
  EXPECT_EQ(f.gfx, "gfx1100") << "the discrete GPU is the primary target";
  EXPECT_TRUE(f.igpu && *f.igpu);
}

TEST(KbContext, ParsesOsBackendAndVersions) {
  MachineContext c;
  c.os = "Windows 11";
  c.backend = "ROCm/HIP, PyTorch";
  c.versions = "torch 1.5.1+cu101, CUDA 10.1, driver 410.48";
  auto f = repo_kb().machine_facts(c);
  EXPECT_EQ(f.os, "windows");
  EXPECT_EQ(f.backend, "rocm");
  EXPECT_EQ(f.torch_version, "1.5.1+cu101");
  EXPECT_EQ(f.torch_cuda, "10.1");
  EXPECT_EQ(f.driver, "410.48");
  ASSERT_TRUE(f.cpu_only_torch);
  EXPECT_FALSE(*f.cpu_only_torch);

  EXPECT_EQ(repo_kb().machine_facts({"Linux / WSL2", "", "", "", ""}).os, "wsl");
  EXPECT_EQ(repo_kb().machine_facts({"macOS (arm64)", "", "", "", ""}).os, "macos");
  EXPECT_EQ(repo_kb().machine_facts({"Arch Linux, kernel 6.18.3", "", "", "", ""}).os, "linux");
  EXPECT_EQ(repo_kb().machine_facts({"", "", "DirectML (torch-directml)", "", ""}).backend, "directml");
  EXPECT_EQ(repo_kb().machine_facts({"", "", "XPU (IPEX)", "", ""}).backend, "xpu");
  EXPECT_EQ(repo_kb().machine_facts({"", "", "", "", "torch 2.3.0+cpu"}).cpu_only_torch, true);
  EXPECT_EQ(repo_kb().machine_facts({"", "", "", "", "torch 2.11.0a0+rocm7.11.0a2026"}).backend, "rocm");
}

TEST(KbContext, ArchFromGpuNames) {
  MachineContext c;
  c.gpu = "AMD Radeon RX 6600 + Ryzen 5 3400G (Vega iGPU)";
  auto f = repo_kb().machine_facts(c);
  EXPECT_EQ(f.gfx, "gfx1032");
  EXPECT_EQ(f.vendor, "amd");
  EXPECT_TRUE(f.igpu && *f.igpu);

  c.gpu = "NVIDIA GeForce RTX 3080 Ti";
  f = repo_kb().machine_facts(c);
  EXPECT_EQ(f.sm, "sm_86");
  EXPECT_EQ(f.vendor, "nvidia");

  c.gpu = "Intel Arc A750 8GB (i9-13900K)";
  EXPECT_EQ(repo_kb().machine_facts(c).vendor, "intel");
  c.gpu = "Apple M2 (MacBook Pro)";
  EXPECT_EQ(repo_kb().machine_facts(c).vendor, "apple");
}

TEST(KbContext, EnvironmentVariables) {
  MachineContext c = ctx_arch("gfx1100");
  c.env = "HSA_OVERRIDE_GFX_VERSION=10.3.0\nHIP_VISIBLE_DEVICES=0";
  c.env_known = true;
  auto f = repo_kb().machine_facts(c);
  ASSERT_TRUE(f.override_set);
  EXPECT_TRUE(*f.override_set);
  EXPECT_EQ(f.override_value, "10.3.0");

  c.env = "HIP_VISIBLE_DEVICES=0";
  f = repo_kb().machine_facts(c);
  ASSERT_TRUE(f.override_set);
  EXPECT_FALSE(*f.override_set) << "a complete environment without the variable means it is unset";
}

// ---------------------------------------------------------------- the same message, different machines

TEST(KbContext, Gfx1032GetsTheRdna2Override) {
  for (const char* log : {kInvalidDeviceFunction, kNoBinary}) {
    const auto d = top(log, ctx_arch("gfx1032"));
    EXPECT_EQ(d.id, "rocm_gfx_not_in_build");
    EXPECT_TRUE(contains_ci(d.fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << d.fix;
    EXPECT_FALSE(d.context_needed);
  }
}

TEST(KbContext, Gfx1032OnWindowsGetsABuildNotTheOverride) {
  // HIP on Windows does not read HSA_OVERRIDE_GFX_VERSION (ROCm/TheRock#1719).
  MachineContext ctx = ctx_arch("gfx1032");
  ctx.os = "windows";
  for (const char* log : {kInvalidDeviceFunction, kNoBinary}) {
    const auto d = top(log, ctx);
    EXPECT_EQ(d.id, "rocm_gfx_not_in_build");
    EXPECT_FALSE(contains_ci(d.fix, "export HSA_OVERRIDE_GFX_VERSION")) << d.fix;
    EXPECT_TRUE(contains_ci(d.fix, "PYTORCH_ROCM_ARCH=gfx1032")) << d.fix;
    EXPECT_TRUE(contains_ci(d.fix, "TheRock#1719")) << d.fix;
  }
}

TEST(KbContext, Gfx1010NeverGetsTheRdna2Override) {
  for (const char* log : {kInvalidDeviceFunction, kNoBinary}) {
    const auto ds = repo_kb().explain(log, ctx_arch("gfx1010"));
    ASSERT_FALSE(ds.empty());
    EXPECT_TRUE(contains_ci(ds.front().fix, "PYTORCH_ROCM_ARCH=gfx1010")) << ds.front().fix;
    EXPECT_FALSE(contains_ci(testing::all_text(ds), "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  }
  for (const char* arch : {"gfx803", "gfx900"}) {
    const auto ds = repo_kb().explain(kNoBinary, ctx_arch(arch));
    EXPECT_FALSE(contains_ci(testing::all_text(ds), "HSA_OVERRIDE_GFX_VERSION=")) << arch;
    EXPECT_TRUE(contains_ci(ds.front().fix, "PYTORCH_ROCM_ARCH")) << arch;
  }
}

TEST(KbContext, UnknownArchListsThePossibilities) {
  const auto d = top(kInvalidDeviceFunction, MachineContext{});
  EXPECT_TRUE(d.context_needed);
  EXPECT_GE(d.fixes.size(), 4u);
  for (const auto& f : d.fixes) {
    EXPECT_FALSE(f.applies);
    EXPECT_FALSE(f.when.empty()) << "each possibility says when it applies";
  }
  EXPECT_TRUE(contains_ci(d.fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_TRUE(contains_ci(d.fix, "PYTORCH_ROCM_ARCH"));
  EXPECT_TRUE(contains_ci(d.fix, "HIP_VISIBLE_DEVICES"));
  EXPECT_TRUE(contains_ci(d.fix, "unset HSA_OVERRIDE_GFX_VERSION"));
  EXPECT_TRUE(contains_ci(d.fix, "gfx1031"));
  EXPECT_TRUE(contains_ci(d.fix, "RDNA1"));
}

TEST(KbContext, Rdna3AndRiskyTargets) {
  EXPECT_TRUE(contains_ci(top(kNoBinary, ctx_arch("gfx1101")).fix, "HSA_OVERRIDE_GFX_VERSION=11.0.0"));
  const auto phoenix = top(kNoBinary, ctx_arch("gfx1103"));
  EXPECT_TRUE(contains_ci(phoenix.fix, "experimental")) << phoenix.fix;
}

TEST(KbContext, NativeTargetWithOverrideSetMeansUnset) {
  MachineContext c = ctx_arch("gfx1100");
  c.env = "HSA_OVERRIDE_GFX_VERSION=10.3.0";
  EXPECT_TRUE(contains_ci(top(kInvalidDeviceFunction, c).fix, "unset HSA_OVERRIDE_GFX_VERSION"));
  const auto fault =
      top("Memory access fault by GPU node-1 (Agent handle: 0x1) on address (nil). Reason: unknown", c);
  EXPECT_EQ(fault.id, "rocm_memory_access_fault");
  EXPECT_TRUE(contains_ci(fault.fix, "unset HSA_OVERRIDE_GFX_VERSION"));
  // Natively supported and no override: no override advice at all.
  c.env = "HIP_VISIBLE_DEVICES=0";
  c.env_known = true;
  const auto d = top(kInvalidDeviceFunction, c);
  EXPECT_FALSE(contains_ci(d.fix, "HSA_OVERRIDE_GFX_VERSION=")) << d.fix;
  EXPECT_TRUE(contains_ci(d.fix, "official")) << d.fix;
}

TEST(KbContext, IntegratedNextToDiscreteSelectsTheDiscreteGpu) {
  const auto d = top(kInvalidDeviceFunction, ctx_arch("gfx1032, gfx1036"));
  EXPECT_TRUE(contains_ci(d.fix, "HIP_VISIBLE_DEVICES")) << d.fix;
  EXPECT_TRUE(contains_ci(d.fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << d.fix;
}

TEST(KbContext, GfxTargetReadFromTheLog) {
  const std::string log = std::string(kNoBinary) + "\n  Name:                    gfx1031\n";
  EXPECT_TRUE(contains_ci(top(log, MachineContext{}).fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  const std::string tensile =
      "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file for GPU "
      "arch : gfx1012";
  const auto ds = repo_kb().explain(tensile, MachineContext{});
  ASSERT_FALSE(ds.empty());
  EXPECT_FALSE(contains_ci(testing::all_text(ds), "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
  EXPECT_TRUE(contains_ci(ds.front().fix, "PYTORCH_ROCM_ARCH=gfx1012"));
}

TEST(KbContext, NvidiaInvalidDeviceFunction) {
  const auto d = top("RuntimeError: CUDA error: invalid device function", ctx_arch("sm_86", "cuda"));
  EXPECT_TRUE(contains_ci(d.fix, "TORCH_CUDA_ARCH_LIST")) << d.fix;
  EXPECT_FALSE(contains_ci(d.fix, "HSA_OVERRIDE"));
}

// ---------------------------------------------------------------- other context-dependent entries

TEST(KbContext, OutOfMemoryWorkspaceVersusBatch) {
  const auto ws =
      top("RuntimeError: CUDA out of memory. Tried to allocate 48.01 GiB (GPU 0; 15.78 GiB total capacity; "
          "4.00 GiB "
          "already allocated)",
          MachineContext{});
  EXPECT_TRUE(contains_ci(ws.fix, "cudnn.benchmark"));
  const auto batch =
      top("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
          "of 15.98 GiB "
          "of which 1.00 GiB is free.",
          MachineContext{});
  EXPECT_TRUE(contains_ci(batch.fix, "batch"));
  EXPECT_TRUE(contains_ci(batch.fix, "PYTORCH_HIP_ALLOC_CONF")) << batch.fix;
  const auto unknown = top("torch.cuda.OutOfMemoryError: CUDA out of memory.", MachineContext{});
  EXPECT_TRUE(unknown.context_needed);
  EXPECT_TRUE(contains_ci(unknown.fix, "batch"));
  EXPECT_TRUE(contains_ci(unknown.fix, "cudnn.benchmark"));
}

TEST(KbContext, NoKernelImageNamesTheArchAndWheel) {
  const auto d =
      top("CUDA error: no kernel image is available for execution on the device", ctx_arch("sm_120", "cuda"));
  EXPECT_TRUE(contains_ci(d.fix, "sm_120"));
  EXPECT_TRUE(contains_ci(d.fix, "cu128"));
  MachineContext by_name;
  by_name.gpu = "NVIDIA GeForce RTX 5070 Ti";
  EXPECT_TRUE(
      contains_ci(top("no kernel image is available for execution on the device", by_name).fix, "cu128"));
}

TEST(KbContext, DriverTooOldUsesTheVersionTable) {
  MachineContext c;
  c.os = "Windows 10";
  c.versions = "torch 2.4.0+cu121, driver 516.94";
  const auto d = top("RuntimeError: CUDA driver version is insufficient for CUDA runtime version", c);
  EXPECT_TRUE(contains_ci(d.fix, "528.33")) << d.fix;  // the Windows minimum for CUDA 12.x
  c.versions = "torch 1.3.0 (CUDA 10.1), driver 410.48";
  c.os = "Ubuntu 18.04";
  const auto avail = top(">>> torch.cuda.is_available()\nFalse", c);
  EXPECT_TRUE(contains_ci(avail.fix, "418.39")) << avail.fix;
}

TEST(KbContext, DriverCudaFromNvidiaSmiChoosesTheFix) {
  // nvidia-smi's "CUDA Version" is a fact that `known` and placeholders read.
  const auto d = repo_kb().classify(
      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
      "Cuda failure: 222 the provided PTX was compiled with an unsupported toolchain.",
      MachineContext{});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "cuda_ptx_newer_than_driver");
  EXPECT_FALSE(d->context_needed);
  EXPECT_NE(d->fix.find("The driver supports CUDA 12.2"), std::string::npos) << d->fix;
}

TEST(KbContext, NotCompiledWithCudaPicksTheRightBuild) {
  const char* log = "AssertionError: Torch not compiled with CUDA enabled";
  MachineContext c;
  c.gpu = "AMD Radeon RX 7900 XTX";
  EXPECT_TRUE(contains_ci(top(log, c).fix, "ROCm build"));
  c.gpu = "NVIDIA GeForce RTX 4090";
  EXPECT_TRUE(contains_ci(top(log, c).fix, "CUDA build"));
  c.gpu = "Intel Arc A770";
  EXPECT_TRUE(contains_ci(top(log, c).fix, "XPU build"));
  c.gpu = "Apple M3 Max";
  EXPECT_TRUE(contains_ci(top(log, c).fix, "'mps'"));
  const auto unknown = top(log, MachineContext{});
  EXPECT_TRUE(unknown.context_needed);
  EXPECT_TRUE(contains_ci(unknown.fix, "CUDA build"));
  EXPECT_TRUE(contains_ci(unknown.fix, "ROCm build"));
  EXPECT_TRUE(contains_ci(unknown.fix, "XPU build"));
}

TEST(KbContext, OperatorNamedInTheFix) {
  const auto d =
      top("UserWarning: The operator 'aten::_embedding_bag' is not currently supported on the DML backend "
          "and will fall "
          "back to run on the CPU.",
          MachineContext{});
  EXPECT_TRUE(contains_ci(d.fix, "aten::_embedding_bag"));
  EXPECT_EQ(d.details.at("op"), "aten::_embedding_bag");
  const auto mps =
      top("NotImplementedError: Could not run 'aten::_foo_bar' with arguments from the 'MPS' backend.",
          MachineContext{});
  EXPECT_TRUE(contains_ci(mps.fix, "aten::_foo_bar"));
  EXPECT_TRUE(contains_ci(mps.fix, "PYTORCH_ENABLE_MPS_FALLBACK"));
  EXPECT_EQ(mps.status, Status::unavailable);
}

TEST(KbContext, ClassifyReturnsTheBestCauseAndStatus) {
  const auto d =
      repo_kb().classify("RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'", MachineContext{});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "dtype_not_implemented");
  EXPECT_EQ(d->status, Status::unavailable);
  EXPECT_TRUE(contains_ci(d->fix, "float32"));
  EXPECT_FALSE(repo_kb().classify("all good", MachineContext{}));
  // A harmless warning is recognised by explain, but is not the cause of a failed check.
  const char* warning = "MIOpen(HIP): Warning [SQLiteBase] Missing system database file: gfx1030_40.kdb";
  EXPECT_FALSE(repo_kb().explain(warning, MachineContext{}).empty());
  EXPECT_FALSE(repo_kb().classify(warning, MachineContext{}));
}

TEST(KbContext, MoreSpecificCauseRanksFirst) {
  const std::string log =
      "MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_COMPILATION (6)\n"
      "/tmp/comgr-1/include/miopen_type_traits.hpp:151:10: fatal error: 'type_traits' file not found\n"
      "RuntimeError: miopenStatusUnknownError\n";
  const auto ds = repo_kb().explain(log, MachineContext{});
  ASSERT_GE(ds.size(), 2u);
  EXPECT_EQ(ds[0].id, "miopen_hiprtc_missing_headers");
  EXPECT_TRUE(testing::has_id(ds, "miopen_status_error"));
  EXPECT_EQ(ds[0].line_numbers.front(), 1u);
}

// ---------------------------------------------------------------- evidence in the log

TEST(KbEvidence, CpuWheelIsReportedWithoutAnyError) {
  MachineContext c;
  c.gpu = "NVIDIA GeForce RTX 3060";
  const auto d = top("torch                     2.4.0+cpu\n", c);
  EXPECT_EQ(d.id, "torch_build_evidence");
  EXPECT_TRUE(contains_ci(d.cause, "CPU-only")) << d.cause;
  EXPECT_TRUE(contains_ci(d.fix, "whl/cu126")) << d.fix;
}

TEST(KbEvidence, PascalWithACu128WheelGetsTheCu126Wheel) {
  const std::string log =
      "PyTorch version: 2.8.0+cu128\nGPU models and configuration: GPU 0: NVIDIA GeForce GTX 1080\n";
  const auto d = top(log, MachineContext{});
  EXPECT_EQ(d.id, "torch_build_evidence");
  EXPECT_TRUE(contains_ci(d.cause, "without sm_61")) << d.cause;
  EXPECT_TRUE(contains_ci(d.fix, "whl/cu126")) << d.fix;
  // The cu126 wheel of the same release still has Pascal: nothing to report.
  EXPECT_TRUE(
      repo_kb()
          .explain(
              "PyTorch version: 2.8.0+cu126\nGPU models and configuration: GPU 0: NVIDIA GeForce GTX 1080\n",
              MachineContext{})
          .empty());
}

TEST(KbEvidence, VoltaKeepsCu128ButNotCu130) {
  MachineContext c;
  c.arch = "sm_70";
  EXPECT_TRUE(repo_kb().explain("torch==2.8.0+cu128\n", c).empty());
  const auto d = top("torch==2.9.0+cu130\n", c);
  EXPECT_EQ(d.id, "torch_build_evidence");
  EXPECT_TRUE(contains_ci(d.fix, "cu126")) << d.fix;
}

TEST(KbEvidence, HealthyBuildSaysNothing) {
  MachineContext c;
  c.gpu = "NVIDIA GeForce RTX 4090";
  EXPECT_TRUE(repo_kb().explain("torch==2.5.1+cu124\n", c).empty());
  EXPECT_TRUE(repo_kb().explain("PyTorch version: 2.5.1+rocm6.2\n", MachineContext{}).empty());
}

TEST(KbEvidence, AnErrorEntryTakesOverTheEvidence) {
  const std::string log = "torch==2.4.0+cpu\nAssertionError: Torch not compiled with CUDA enabled\n";
  const auto ds = repo_kb().explain(log, MachineContext{});
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds.front().id, "torch_not_compiled_with_accelerator");
  EXPECT_FALSE(testing::has_id(ds, "torch_build_evidence"));
}

// ---------------------------------------------------------------- pasted text

// Reports wrap long warnings and editors turn quotes curly; the causes must
// survive both (synthetic lines shaped like the held-out reports).
TEST(KbPasted, WrappedFallbackWarningIsRecognised) {
  const auto ds = repo_kb().explain(
      "UserWarning: The operator 'aten::normal.Tensor_Tensor' is not currently supported on the \n"
      "DML backend and will fall back to run on the CPU. This may have performance implications.\n",
      MachineContext{});
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds.front().id, "op_cpu_fallback");
  EXPECT_NE(ds.front().fix.find("aten::normal.Tensor_Tensor"), std::string::npos) << ds.front().fix;
}

TEST(KbPasted, CurlyQuotedDllPathIsRecognised) {
  const auto d = repo_kb().classify(
      "Error loading \xE2\x80\x9C"
      "C:\\venv\\Lib\\site-packages\\torch\\lib\\fbgemm.dll\xE2\x80\x9D or one of "
      "its "
      "dependencies.",
      MachineContext{});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->id, "windows_dll_load_failed");
  EXPECT_NE(d->fix.find("libomp140"), std::string::npos) << d->fix;
}

// ---------------------------------------------------------------- capabilities and settings (issue 18)

TEST(KbContext, NotSupportedOnHopperIsNeverBlamedOnMissingBf16) {
  const char* log =
      "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasDotEx( handle, n, x, "
      "CUDA_R_16BF, "
      "incx, y, CUDA_R_16BF, incy, result, CUDA_R_16BF, CUDA_R_32F)`";
  MachineContext h200 = ctx_arch("sm_90", "cuda");
  h200.gpu = "NVIDIA H200";
  h200.env_known = true;  // the whole environment is known: nothing relevant set
  Diagnosis d = top(log, h200);
  EXPECT_EQ(d.id, "blas_status_error");
  EXPECT_FALSE(contains_ci(d.fix, "need Ampere")) << d.fix;
  EXPECT_TRUE(contains_ci(d.cause, "not the hardware")) << d.cause;
  // With the setting in the environment, the setting is the answer.
  h200.env = "CUBLAS_WORKSPACE_CONFIG=:0:0";
  d = top(log, h200);
  EXPECT_TRUE(contains_ci(d.cause, "CUBLAS_WORKSPACE_CONFIG")) << d.cause;
  EXPECT_TRUE(contains_ci(d.fix, ":4096:8")) << d.fix;
  // A Pascal GPU does lack bf16: the capability advice stays.
  d = top(log, ctx_arch("sm_61", "cuda"));
  EXPECT_TRUE(contains_ci(d.fix, "need Ampere")) << d.fix;
}

TEST(KbContext, InvalidAllocatorSettingIsRecognised) {
  const Diagnosis d =
      top("RuntimeError: CachingAllocator option max_split_size_mb too small, must be >= 20", {});
  EXPECT_EQ(d.id, "alloc_conf_invalid");
  EXPECT_TRUE(contains_ci(d.fix, "max_split_size_mb")) << d.fix;
}

TEST(KbContext, HalfKernelMissingOnAMeasuredCpuDoesNotBlameTheGpu) {
  // Issue 19: on a run that chose the CPU, "the GPU is not used at all" is
  // the wrong story; for a pasted log it stays the likely one.
  const char* log = "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'";
  MachineContext cpu_run;
  cpu_run.measured_device = "cpu";
  Diagnosis d = top(log, cpu_run);
  EXPECT_EQ(d.id, "dtype_not_implemented");
  EXPECT_TRUE(contains_ci(d.fix, "the device this run measures")) << d.fix;
  EXPECT_FALSE(contains_ci(d.fix, "GPU is not used at all")) << d.fix;
  d = top(log, MachineContext{});
  EXPECT_TRUE(contains_ci(d.fix, "GPU is not used at all")) << d.fix;
  MachineContext gpu_run;
  gpu_run.measured_device = "cuda:0";
  d = top(log, gpu_run);
  EXPECT_TRUE(contains_ci(d.fix, "GPU is not used at all")) << d.fix;
}

TEST(KbContext, StftHalfIsAKernelGapNotMixedInputs) {
  const Diagnosis d = top("RuntimeError: expected scalar type ComplexDouble but found ComplexHalf", {});
  EXPECT_EQ(d.id, "complex_kernel_dtype");
  EXPECT_FALSE(contains_ci(d.cause, "fp16 weights with fp32 inputs")) << d.cause;
  EXPECT_TRUE(contains_ci(d.fix, "x.float()")) << d.fix;
  // A plain mix of real dtypes is still dtype_mismatch.
  EXPECT_EQ(top("RuntimeError: expected scalar type Half but found Float", {}).id, "dtype_mismatch");
}

}  // namespace
}  // namespace accel
