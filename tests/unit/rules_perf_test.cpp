// Performance rules: CPU BLAS, GEMM and bandwidth against peak, autocast,
// TF32, emulated bf16, SDPA math path, pinned copies, launch-bound decode,
// small batches.
#include <gtest/gtest.h>

#include <algorithm>

#include "rules_test_util.hpp"

namespace accel {
namespace {

// ---------------------------------------------------------------- CPU BLAS

TEST(RulesPerf, ReferenceBlasOnTheRecordedCpuRun) {
  // Recorded on the CI container: Debian's libtorch with the netlib libblas3.
  const auto fs = run_rules(load_report("cpu-reference-blas.json"));
  const Finding& f = only(fs, "cpu_blas_reference");
  EXPECT_EQ(to_string(f.severity), "critical");  // the CPU is the measured device
  EXPECT_TRUE(mentions(f, "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0")) << f.evidence;
  EXPECT_TRUE(mentions(f, "GFLOP/s")) << f.evidence;
  EXPECT_TRUE(mentions(f, "libopenblas0-pthread")) << f.fix;
  EXPECT_TRUE(mentions(f, "update-alternatives --config libblas.so.3-x86_64-linux-gnu")) << f.fix;
}

TEST(RulesPerf, ReferenceBlasIsAWarningBesideAGpu) {
  Report r = load_report("h200-healthy.json");
  r.context.environment.blas.name = "reference";
  EXPECT_EQ(to_string(only(run_rules(r), "cpu_blas_reference").severity), "warning");
}

TEST(RulesPerf, ReferenceBlasSilentWithAnOptimisedBlas) {
  for (const char* name : {"h200-healthy.json", "rx6650xt-windows-selfbuilt.json", "mps-cpu-fallback.json"}) {
    EXPECT_FALSE(has(run_rules(load_report(name)), "cpu_blas_reference")) << name;
  }
}

// ---------------------------------------------------------------- peaks

TEST(RulesPerf, GemmFarUnderPeak) {
  const auto fs = run_rules(load_report("h200-slow.json"));
  const Finding& f = only(fs, "gemm_under_peak");  // bf16 at 22%; fp32 at 31% is over the line
  EXPECT_TRUE(mentions(f, "bf16 GEMM reaches only 22% of peak")) << f.title;
  EXPECT_TRUE(mentions(f, "datasheet")) << f.evidence;
  EXPECT_TRUE(mentions(f, "nvidia-smi -q -d PERFORMANCE")) << f.fix;
}

TEST(RulesPerf, BandwidthFarUnderPeak) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "bandwidth_under_peak");
  EXPECT_TRUE(mentions(f, "27%")) << f.title;  // 1300 of 4800 GB/s
}

TEST(RulesPerf, PeakRulesSilentOnHealthyOrUnknownPeaks) {
  for (const char* name : {"h200-healthy.json", "cpu-reference-blas.json"}) {
    const auto fs = run_rules(load_report(name));
    EXPECT_FALSE(has(fs, "gemm_under_peak")) << name << ": " << ids(fs);
    EXPECT_FALSE(has(fs, "bandwidth_under_peak")) << name << ": " << ids(fs);
  }
}

// ---------------------------------------------------------------- dtypes

TEST(RulesPerf, AutocastAdviceWhenLowPrecisionIsMuchFaster) {
  const Finding& f = only(run_rules(load_report("h200-healthy.json")), "autocast");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "torch.autocast(device_type=\"cuda\", dtype=torch.float16)")) << f.fix;
  EXPECT_TRUE(mentions(f, "GradScaler")) << f.fix;
}

TEST(RulesPerf, AutocastSilentWhenFp32IsAsFast) {
  Report r = load_report("h200-healthy.json");
  for (auto& res : r.results) {
    if (res.key.find("/gemm/") != std::string::npos && (res.dtype == "bf16" || res.dtype == "fp16")) {
      res.metrics["tflops"] = 60;
    }
  }
  EXPECT_FALSE(has(run_rules(r), "autocast"));
}

/// The recorded CPU run with OpenBLAS (102 GFLOP/s fp32) and bf16 without
/// AVX512-BF16 (2.8 GFLOP/s): the AVX2 EPYC of issue 19.
Report cpu_without_fast_bf16() {
  Report r = load_report("cpu-reference-blas.json");
  r.context.environment.blas.name = "openblas";
  for (auto& res : r.results) {
    if (res.key == "bench/cpu/gemm/square/fp32/512x512x512") res.metrics["tflops"] = 0.102;
    if (res.key == "bench/cpu/gemm/square/bf16/512x512x512") {
      res.metrics["tflops"] = 0.0028;
      res.status = Status::mismatch;  // its kernel accumulates in bf16 too
      res.reason = "8x8 block of C, relative error 0.034: this kernel accumulates in bf16";
    }
  }
  return r;
}

TEST(RulesPerf, HalfMuchSlowerThanFp32SaysStayInFp32) {
  const auto fs = run_rules(cpu_without_fast_bf16());
  const Finding& f = only(fs, "half_slower_than_fp32");
  EXPECT_EQ(to_string(f.severity), "warning");  // the CPU is the measured device
  EXPECT_TRUE(mentions(f, "bf16 is 36x slower than fp32")) << f.title;
  EXPECT_TRUE(mentions(f, "stay in fp32 here")) << f.title;
  EXPECT_TRUE(mentions(f, "bench/cpu/gemm/square/bf16/512x512x512")) << f.evidence;
  EXPECT_TRUE(mentions(f, "outside the tolerance")) << f.evidence;
  EXPECT_TRUE(mentions(f, "AVX512-BF16")) << f.why;
  EXPECT_TRUE(mentions(f, "Keep models and inputs in fp32")) << f.fix;
  // Not also "check the BLAS and threads" for the same dtype.
  for (const auto& g : with_id(fs, "gemm_under_peak")) EXPECT_FALSE(mentions(g, "bf16")) << g.title;
}

TEST(RulesPerf, HalfSlowerFromATrainingStepAlone) {
  Report r = load_report("cpu-reference-blas.json");
  r.results.erase(std::remove_if(r.results.begin(), r.results.end(),
                                 [](const Result& x) { return x.kind == ResultKind::bench; }),
                  r.results.end());
  Result step;
  step.key = "train/cpu/cnn/bf16/b64";
  step.kind = ResultKind::train;
  step.name = "cnn bf16";
  step.category = "cnn";
  step.dtype = "bf16";
  step.device = "cpu";
  step.status = Status::ok;
  step.metrics = {{"samples_per_s", 10}, {"speedup_vs_fp32", 1.0 / 15}};
  r.results.push_back(step);
  const Finding& f = only(run_rules(r), "half_slower_than_fp32");
  EXPECT_TRUE(mentions(f, "15x slower")) << f.title;
  EXPECT_TRUE(mentions(f, "train/cpu/cnn/bf16/b64")) << f.evidence;
}

TEST(RulesPerf, HalfSlowerSilentWhereHalfIsFast) {
  for (const char* name : {"h200-healthy.json", "cpu-reference-blas.json"}) {
    EXPECT_FALSE(has(run_rules(load_report(name)), "half_slower_than_fp32")) << name;
  }
}

TEST(RulesPerf, Tf32OffOnATensorCoreGpu) {
  const Finding& f = only(run_rules(load_report("h200-healthy.json")), "tf32_off");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "set_float32_matmul_precision(\"high\")")) << f.fix;
  EXPECT_TRUE(mentions(f, "7.1x")) << f.title;  // 360 vs 51 TFLOP/s
}

TEST(RulesPerf, Tf32SilentWithoutATf32Row) {
  EXPECT_FALSE(has(run_rules(load_report("rx6650xt-windows-selfbuilt.json")), "tf32_off"));
}

TEST(RulesPerf, Bf16EmulatedOnRdna2) {
  const auto fs = run_rules(load_report("rx6650xt-windows-selfbuilt.json"));
  const Finding& f = only(fs, "bf16_emulated");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "rdna2")) << f.evidence;
  EXPECT_TRUE(mentions(f, "fp16")) << f.fix;
  // The emulated bf16 rate is not advertised as an autocast win.
  for (const auto& a : testing::with_id(fs, "autocast")) EXPECT_FALSE(mentions(a, "bf16 GEMM")) << a.evidence;
}

TEST(RulesPerf, Bf16EmulatedOnPreAmpereNvidia) {
  Report r = load_report("h200-healthy.json");
  r.context.environment.devices.front().arch = "sm_75";
  EXPECT_TRUE(mentions(only(run_rules(r), "bf16_emulated"), "sm_75"));
}

TEST(RulesPerf, Bf16EmulatedSilentOnHopper) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "bf16_emulated"));
}

// ---------------------------------------------------------------- attention

TEST(RulesPerf, SdpaOnTheMathPath) {
  const Finding& f = only(run_rules(load_report("rx6650xt-windows-selfbuilt.json")), "sdpa_math");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "ops/attention/sdpa/fp16")) << f.evidence;
  EXPECT_TRUE(mentions(f, "AOTriton")) << f.fix;
}

TEST(RulesPerf, FlashWarningHarmlessWhenAFusedKernelRan) {
  Report r = load_report("h200-healthy.json");
  for (auto& res : r.results) {
    if (res.key == "ops/attention/sdpa/bf16") res.warnings = {"Torch was not compiled with flash attention."};
  }
  const auto fs = run_rules(r);
  EXPECT_FALSE(has(fs, "sdpa_math")) << ids(fs);
  EXPECT_EQ(to_string(only(fs, "sdpa_warning_harmless").severity), "info");
}

TEST(RulesPerf, SdpaSilentOnFlash) {
  const auto fs = run_rules(load_report("h200-healthy.json"));
  EXPECT_FALSE(has(fs, "sdpa_math")) << ids(fs);
  EXPECT_FALSE(has(fs, "sdpa_warning_harmless")) << ids(fs);
}

// ---------------------------------------------------------------- copies and LLM

TEST(RulesPerf, PinnedCopiesFaster) {
  const Finding& f = only(run_rules(load_report("h200-healthy.json")), "pageable_copies");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "pin_memory=True")) << f.fix;
}

TEST(RulesPerf, PinnedSilentWhenEqual) {
  Report r = load_report("h200-healthy.json");
  for (auto& res : r.results) {
    if (res.key.find("/transfer/") != std::string::npos) res.metrics["gbps"] = 50;
  }
  EXPECT_FALSE(has(run_rules(r), "pageable_copies"));
}

TEST(RulesPerf, LaunchBoundDecodeWithGraphSpeedup) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "launch_bound_decode");
  EXPECT_EQ(to_string(f.severity), "info");  // graph replay proved the remedy here: a tip
  EXPECT_TRUE(mentions(f, "72%")) << f.title;
  EXPECT_TRUE(mentions(f, "2.6x")) << f.evidence;  // 390 vs 150 tokens/s from the graph row
  EXPECT_TRUE(mentions(f, "reduce-overhead")) << f.fix;
}

TEST(RulesPerf, LaunchBoundWithoutGraphRowIsAWarning) {
  Report r = load_report("h200-slow.json");
  r.results.erase(std::remove_if(r.results.begin(), r.results.end(),
                                 [](const Result& x) {
                                   return x.key.size() > 6 && x.key.substr(x.key.size() - 6) == "/graph";
                                 }),
                  r.results.end());
  const Finding& f = only(run_rules(r), "launch_bound_decode");
  EXPECT_EQ(to_string(f.severity), "warning");
}

TEST(RulesPerf, LaunchBoundSilentWhenDeviceBound) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "launch_bound_decode"));
}

TEST(RulesPerf, SmallBatchUnderUsesTheDevice) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "small_batch");
  EXPECT_TRUE(mentions(f, "batch 8")) << f.title;
  EXPECT_TRUE(mentions(f, "7.3x")) << f.title;  // 1100 vs 150 tokens/s
}

TEST(RulesPerf, SmallBatchSilentWithOneBatch) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "small_batch"));
}

// ---------------------------------------------------------------- sustained load

/// h200-healthy.json with its largest bf16 device GEMM slowing by `drop`%
/// after its first calls (what add_burst_figures records).
Report with_sustained_drop(double drop, const std::string& device = "cuda:0", double median_us = 1620) {
  Report rep = load_report("h200-healthy.json");
  Result* gemm = nullptr;
  for (auto& r : rep.results) {
    if (r.kind == ResultKind::bench && r.category == "gemm" && r.dtype == "bf16" && r.device == "cuda:0" &&
        (!gemm || r.work.flops > gemm->work.flops)) {
      gemm = &r;
    }
  }
  EXPECT_NE(gemm, nullptr);
  if (!gemm) return rep;
  gemm->device = device;
  gemm->evidence["sustained_drop_pct"] = drop;
  if (!gemm->timing) gemm->timing = Timing{};
  gemm->timing->median_us = median_us;
  gemm->timing->burst_us = median_us * (1 - drop / 100);
  gemm->metrics["tflops_burst"] = gemm->metrics["tflops"] / (1 - drop / 100);
  return rep;
}

TEST(RulesPerf, SustainedThrottleTipOnAPowerCappedGpu) {
  const Finding& f = only(run_rules(with_sustained_drop(13)), "sustained_throttle");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "13% below its first calls")) << f.title;
  EXPECT_TRUE(mentions(f, "SW Power Cap")) << f.fix;
}

TEST(RulesPerf, SustainedThrottleWarningWhenTheClockCollapses) {
  EXPECT_EQ(to_string(only(run_rules(with_sustained_drop(35)), "sustained_throttle").severity), "warning");
}

TEST(RulesPerf, SustainedThrottleSilentWhenSteadyOrOnTheCpu) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "sustained_throttle"));
  EXPECT_FALSE(has(run_rules(with_sustained_drop(5)), "sustained_throttle"));
  EXPECT_FALSE(has(run_rules(with_sustained_drop(30, "cpu")), "sustained_throttle"));
  // A short GEMM (16 µs a call, H200 fp16 1024^3, 2026-11-30): not a clock figure.
  EXPECT_FALSE(has(run_rules(with_sustained_drop(32, "cuda:0", 15.7)), "sustained_throttle"));
}
// ---------------------------------------------------------------- first-use cost

/// The H200's default run of 2026-11-30c (recorded, with per-check phase_ms):
/// its checks' first calls cost 3.0 s beyond an ordinary call, of 11.6 s.
Report h200_default_run() {
  return read_report_file(std::string(ACCEL_KB_DIR) + "/../docs/validation/2026-11-30c-h200/doctor.json");
}

TEST(RulesPerf, FirstUseCostTipOnTheRecordedH200Run) {
  const Finding& f = only(run_rules(h200_default_run()), "first_use_cost");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "3.0 s in this run")) << f.title;
  EXPECT_TRUE(mentions(f, "conv2d_depthwise fp16 0.15 s")) << f.evidence;
  EXPECT_TRUE(mentions(f, "PYTORCH_KERNEL_CACHE_PATH")) << f.fix;
  EXPECT_FALSE(mentions(f, "MIOpen's kernel cache")) << f.fix;
}

TEST(RulesPerf, FirstUseCostNamesADisabledCacheOfThisBackend) {
  Report rep = h200_default_run();
  rep.context.environment.env_vars.push_back({"USE_PYTORCH_KERNEL_CACHE", "0", ""});
  rep.context.environment.env_vars.push_back({"CUDA_CACHE_DISABLE", "1", ""});
  rep.context.environment.env_vars.push_back({"MIOPEN_DISABLE_CACHE", "1", ""});  // no effect on CUDA
  const Finding& f = only(run_rules(rep), "first_use_cost");
  // Still a tip: the evidence cannot tell which part a cache would have kept.
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "USE_PYTORCH_KERNEL_CACHE=0 and CUDA_CACHE_DISABLE=1 is set")) << f.evidence;
  EXPECT_TRUE(mentions(f, "Unset USE_PYTORCH_KERNEL_CACHE=0 and CUDA_CACHE_DISABLE=1")) << f.fix;
  EXPECT_FALSE(mentions(f, "MIOPEN_DISABLE_CACHE=1")) << f.fix;
}

TEST(RulesPerf, FirstUseCostNamesMiopenOnRocm) {
  Report rep = h200_default_run();
  rep.context.environment.torch.backend = "rocm";
  rep.context.environment.env_vars.push_back({"MIOPEN_DISABLE_CACHE", "Yes", ""});
  rep.context.environment.env_vars.push_back({"CUDA_CACHE_DISABLE", "1", ""});  // no effect on ROCm
  const Finding& f = only(run_rules(rep), "first_use_cost");
  EXPECT_TRUE(mentions(f, "MIOpen's kernel cache")) << f.fix;
  EXPECT_TRUE(mentions(f, "Unset MIOPEN_DISABLE_CACHE=Yes;")) << f.fix;
  EXPECT_FALSE(mentions(f, "CUDA_CACHE_DISABLE=1")) << f.fix;
  EXPECT_EQ(f.reference, "https://rocm.docs.amd.com/projects/MIOpen/en/latest/cache.html");
}

TEST(RulesPerf, FirstUseCostCacheAdviceOnlyWhereTorchHasTheCache) {
  Report rep = h200_default_run();
  rep.context.environment.host.os = "Windows 11 Pro 23H2";
  EXPECT_TRUE(mentions(only(run_rules(rep), "first_use_cost"), "%TEMP%\\torch\\kernels on Windows"));
  // An MPS device: warm-up advice only, no CUDA/ROCm caches.
  rep = h200_default_run();
  rep.context.environment.torch.backend = "mps";
  const Finding& f = only(run_rules(rep), "first_use_cost");
  EXPECT_TRUE(mentions(f, "Warm up before timing")) << f.fix;
  EXPECT_FALSE(mentions(f, "PYTORCH_KERNEL_CACHE_PATH")) << f.fix;
  EXPECT_FALSE(mentions(f, "CUDA_CACHE")) << f.fix;
}

TEST(RulesPerf, FirstUseCostSilentWhenSmallOrOnTheCpu) {
  // First calls as fast as the timed ones: nothing to say.
  Report rep = h200_default_run();
  for (auto& r : rep.results) {
    if (r.phase_ms.count("first_call") && r.timing) r.phase_ms["first_call"] = r.timing->median_us / 1000;
  }
  EXPECT_FALSE(has(run_rules(rep), "first_use_cost"));
  // The same costs on the CPU are not an accelerator's first use.
  rep = h200_default_run();
  for (auto& r : rep.results) r.device = "cpu";
  EXPECT_FALSE(has(run_rules(rep), "first_use_cost"));
  // Synthetic fixtures carry no phase_ms.
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "first_use_cost"));
}

}  // namespace
}  // namespace accel
