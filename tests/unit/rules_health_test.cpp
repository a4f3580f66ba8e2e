// Health rules: errors grouped by cause, wrong results, CPU fallbacks, noise,
// figures above peak, threads, power policy, shared/throttled GPUs, PCIe
// link, slow debug settings.
#include <gtest/gtest.h>

#include "rules_test_util.hpp"

namespace accel {
namespace {

TEST(RulesHealth, ErrorsGroupedByCause) {
  const auto fs = run_rules(load_report("rx6650xt-windows-selfbuilt.json"));
  const auto errors = with_id(fs, "op_errors");
  ASSERT_EQ(errors.size(), 1u) << ids(fs);
  const Finding& f = errors.front();
  EXPECT_TRUE(mentions(f, "2 checks fail")) << f.title;
  EXPECT_TRUE(mentions(f, "ops/norm/batch_norm_train/fp32")) << f.evidence;
  EXPECT_TRUE(mentions(f, "ops/norm/batch_norm_eval/fp32")) << f.evidence;
  EXPECT_TRUE(mentions(f, "torch.backends.cudnn.enabled = False")) << f.fix;
  EXPECT_EQ(f.reference, "https://github.com/ROCm/TheRock/pull/3588");
}

TEST(RulesHealth, UnrecognisedErrorsGroupedByMessageShape) {
  // Recorded: torch 1.13 has no half/bf16 FFT on the CPU; "Unsupported dtype Half" and
  // "Unsupported dtype BFloat16" are one group, the stft dtype_mismatch is another.
  const auto fs = run_rules(load_report("cpu-reference-blas.json"));
  const auto errors = with_id(fs, "op_errors");
  bool fft = false, stft = false;
  for (const auto& f : errors) {
    if (mentions(f, "Unsupported dtype")) {
      fft = true;
      EXPECT_TRUE(mentions(f, "14 checks fail")) << f.title;
    }
    if (mentions(f, "ops/fft/stft/fp16")) stft = true;
  }
  EXPECT_TRUE(fft) << ids(fs);
  EXPECT_TRUE(stft) << ids(fs);
}

TEST(RulesHealth, WrongResults) {
  // Recorded: only fp16/bf16 kernels on the CPU are wrong: a warning.
  Report r = load_report("cpu-reference-blas.json");
  const Finding& f = only(run_rules(r), "wrong_results");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "9 checks give wrong results")) << f.title;
  // A wrong fp32 result is critical, and so is any wrong result on a GPU.
  for (auto& res : r.results) {
    if (res.key == "ops/linalg/matmul/fp32") res.status = Status::mismatch;
  }
  EXPECT_EQ(to_string(only(run_rules(r), "wrong_results").severity), "critical");
  Report g = load_report("h200-healthy.json");
  g.results.front().status = Status::mismatch;
  g.results.front().dtype = "bf16";
  EXPECT_EQ(to_string(only(run_rules(g), "wrong_results").severity), "critical");
}

TEST(RulesHealth, FailureRulesSilentWhenAllPass) {
  const auto fs = run_rules(load_report("h200-healthy.json"));
  for (const char* id : {"op_errors", "wrong_results", "off_device", "cpu_fallback"}) {
    EXPECT_FALSE(has(fs, id)) << id << ": " << ids(fs);
  }
}

TEST(RulesHealth, CpuFallbackWithItsCost) {
  const auto fs = run_rules(load_report("mps-cpu-fallback.json"));
  const Finding& f = only(fs, "cpu_fallback");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "2 operations silently fall back")) << f.title;
  EXPECT_TRUE(mentions(f, "ops/fft/rfft2/fp32")) << f.evidence;
  EXPECT_TRUE(mentions(f, "840 µs of copy time")) << f.evidence;
  EXPECT_TRUE(mentions(f, "PYTORCH_ENABLE_MPS_FALLBACK")) << f.fix;
}

TEST(RulesHealth, CpuFallbackAnnouncedByThePlugin) {
  // Recorded: the test PrivateUse1 backend through the Python engine (torch 2.11, H200 machine).
  const Report r = load_report("testdev-cpu-fallback.json");
  const auto fs = run_rules(r);
  const Finding& f = only(fs, "cpu_fallback");
  EXPECT_TRUE(mentions(f, "6 operations silently fall back")) << f.title;
  EXPECT_TRUE(
      mentions(f,
               "the backend announced these ops on the CPU: aten::mul.out, aten::exp.out, aten::tanh, "
               "aten::sum.IntList_out"))
      << f.evidence;
  EXPECT_TRUE(mentions(f, "µs on the CPU")) << f.evidence;
  EXPECT_FALSE(mentions(f, "of copies"))
      << "announced fallbacks are timed by their ops, not copies: " << f.evidence;
  EXPECT_FALSE(mentions(f, "DirectML")) << "the test backend is not DirectML: " << f.fix;
  // The native ops count as device work in the verdict.
  EXPECT_NE(verdict_line(r, fs).find("6/12 checks ran on the device"), std::string::npos)
      << verdict_line(r, fs);
}

TEST(RulesHealth, NoisyResultsOnTheLoadedCiMachine) {
  // Recorded while other builds ran on the same two cores.
  const Finding& f = only(run_rules(load_report("cpu-reference-blas.json")), "noisy_results");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "of 63 timings are noisy")) << f.evidence;
}

TEST(RulesHealth, NoisySilentOnQuietRuns) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "noisy_results"));
}

TEST(RulesHealth, AbovePeakIsATimingErrorNotASuccess) {
  const auto fs = run_rules(load_report("h200-slow.json"));
  const Finding& f = only(fs, "above_peak");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "bench/cuda/gemm/square/fp16/8192x8192x8192")) << f.evidence;
  EXPECT_TRUE(mentions(f, "timing error")) << f.title;
  // The suspect figure is never quoted as the device's GEMM rate.
  EXPECT_EQ(verdict_line(load_report("h200-slow.json"), fs).find("fp16 GEMM"), std::string::npos);
}

TEST(RulesHealth, SmallChecksAboveTheDramRoofAreCacheEffects) {
  // Recorded: small CPU checks beat the measured DRAM copy bandwidth.
  const auto fs = run_rules(load_report("cpu-reference-blas.json"));
  EXPECT_FALSE(has(fs, "above_peak")) << ids(fs);
  EXPECT_EQ(to_string(only(fs, "above_peak_cached").severity), "info");
}

TEST(RulesHealth, ThreadOversubscription) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "thread_oversubscription");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "32 threads on 16 logical cores")) << f.title;
}

TEST(RulesHealth, NestedBlasThreads) {
  Report r = load_report("h200-healthy.json");
  r.context.environment.torch.intra_op_threads = 8;
  r.context.environment.env_vars.push_back(env_var("OPENBLAS_NUM_THREADS", "8"));
  EXPECT_TRUE(mentions(only(run_rules(r), "thread_oversubscription"), "OPENBLAS_NUM_THREADS=8"));
}

TEST(RulesHealth, ThreadsSilentWhenMatched) {
  for (const char* name : {"h200-healthy.json", "cpu-reference-blas.json"}) {
    EXPECT_FALSE(has(run_rules(load_report(name)), "thread_oversubscription")) << name;
  }
}

TEST(RulesHealth, PowerSavingPolicy) {
  EXPECT_EQ(to_string(only(run_rules(load_report("h200-slow.json")), "cpu_power_saving").severity), "info");
  // The seed's Windows machine on the Power saver plan.
  const Finding& f = only(run_rules(load_report("rx6650xt-windows-selfbuilt.json")), "cpu_power_saving");
  EXPECT_TRUE(mentions(f, "Best performance")) << f.fix;
  Report r = load_report("cpu-reference-blas.json");
  r.context.environment.host.cpu_governor = "powersave";
  const Finding& g = only(run_rules(r), "cpu_power_saving");
  EXPECT_EQ(to_string(g.severity), "warning");  // the CPU is the measured device
  EXPECT_TRUE(mentions(g, "cpupower frequency-set -g performance")) << g.fix;
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "cpu_power_saving"));
}

TEST(RulesHealth, OtherProcessesOnTheGpu) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "gpu_shared");
  EXPECT_TRUE(mentions(f, "1 other process")) << f.evidence;
  EXPECT_TRUE(mentions(f, "4242")) << f.evidence;
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "gpu_shared"));
}

TEST(RulesHealth, ThrottledGpu) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "gpu_throttled");
  EXPECT_TRUE(mentions(f, "hw_thermal_slowdown")) << f.evidence;
  EXPECT_TRUE(mentions(f, "91 °C")) << f.evidence;
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "gpu_throttled"));  // gpu_idle only
}

TEST(RulesHealth, PcieLinkWidthDegraded) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "pcie_link_degraded");
  EXPECT_TRUE(mentions(f, "x8 of x16")) << f.title;
}

TEST(RulesHealth, PcieLinkOfABoardWithItsOwnSwitchIsTheSlots) {
  // An Arc board: the GPU endpoint's link is internal (x1 of x1, silent);
  // its slot link trained at x8 of x16 is the finding.
  Report r = load_report("h200-healthy.json");
  GpuHardware& g = r.context.environment.gpus.front();
  g.link = PcieLink{"2.5 GT/s PCIe", "2.5 GT/s PCIe", 1, 1};
  g.vendor_info["pci"]["slot_link"] = {{"address", "0000:01:00.0"},
                                       {"current_speed", "16.0 GT/s PCIe"},
                                       {"max_speed", "16.0 GT/s PCIe"},
                                       {"current_width", 8},
                                       {"max_width", 16}};
  EXPECT_TRUE(mentions(only(run_rules(r), "pcie_link_degraded"), "x8 of x16"));
  g.vendor_info["pci"]["slot_link"]["current_width"] = 16;
  EXPECT_FALSE(has(run_rules(r), "pcie_link_degraded"));
}

TEST(RulesHealth, PcieIdleSpeedIsNotAFinding) {
  // Recorded-style idle link (2.5 GT/s of 16 GT/s) without slow copies: silent.
  EXPECT_FALSE(has(run_rules(load_report("rtx4090-cpu-only-torch.json")), "pcie_link_degraded"));
  // Slow at the maximum width and trained below max speed under load: a finding.
  Report r = load_report("h200-healthy.json");
  r.context.environment.gpus.front().link = PcieLink{"8.0 GT/s PCIe", "32.0 GT/s PCIe", 16, 16};
  for (auto& res : r.results) {
    if (res.key.find("h2d_pinned") != std::string::npos) res.metrics["gbps"] = 12;
  }
  EXPECT_TRUE(mentions(only(run_rules(r), "pcie_link_degraded"), "8.0 GT/s"));
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "pcie_link_degraded"));
}

TEST(RulesHealth, SlowDebugSettings) {
  const Finding& f = only(run_rules(load_report("h200-slow.json")), "slow_setting");
  EXPECT_TRUE(mentions(f, "CUDA_LAUNCH_BLOCKING=1")) << f.title;
  Report r = load_report("h200-healthy.json");
  r.context.environment.env_vars.push_back(env_var("CUDA_LAUNCH_BLOCKING", "0"));
  r.context.environment.env_vars.push_back(env_var("AMD_LOG_LEVEL", "1"));
  EXPECT_FALSE(has(run_rules(r), "slow_setting"));
}

TEST(RulesHealth, ThreadUndersubscriptionOnACpuRun) {
  Report r = load_report("cpu-reference-blas.json");
  r.context.environment.torch.intra_op_threads = 1;
  r.context.environment.host.physical_cores = 8;
  r.context.environment.host.logical_cores = 16;
  const Finding& f = only(run_rules(r), "thread_undersubscription");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "set_num_threads(8)")) << f.fix;
  // All cores in use: silent.
  r.context.environment.torch.intra_op_threads = 8;
  EXPECT_FALSE(has(run_rules(r), "thread_undersubscription"));
}

// ---------------------------------------------------------------- settings and limits (issue 18)

/// The recorded H200 run with its matmul checks failing the way the dot
/// products did with
/// CUBLAS_WORKSPACE_CONFIG=:0:0 on the H200 (2026-12-01).
Report h200_with_failing_dots(const std::string& var, const std::string& value) {
  Report r = load_report("h200-healthy.json");
  for (auto& res : r.results) {
    if (res.key.rfind("ops/linalg/matmul/", 0) != 0) continue;
    res.status = Status::error;
    res.timing.reset();
    res.error = ErrorInfo{
        "CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasSdot(handle, n, x, incx, y, "
        "incy, result)`",
        "blas_status_error", "the GPU or the BLAS library does not support this dtype or operation",
        "bf16 GEMMs need Ampere", ""};
  }
  if (!var.empty()) r.context.environment.env_vars.push_back(env_var(var, value));
  return r;
}

TEST(RulesHealth, ASettingThatBreaksChecksIsNamedInsteadOfTheDevice) {
  const auto fs = run_rules(h200_with_failing_dots("CUBLAS_WORKSPACE_CONFIG", ":0:0"));
  const Finding& f = only(fs, "setting_breaks_checks");
  EXPECT_TRUE(mentions(f, "because CUBLAS_WORKSPACE_CONFIG=:0:0 is set")) << f.title;
  EXPECT_TRUE(mentions(f, "ops/linalg/matmul/fp32")) << f.evidence;
  EXPECT_TRUE(mentions(f, "The device is not the cause")) << f.why;
  EXPECT_TRUE(mentions(f, ":4096:8")) << f.fix;
  EXPECT_FALSE(has(fs, "op_errors")) << ids(fs);  // no "does not support this dtype" next to it
  // Without the setting, the failure stays the library's (op_errors).
  EXPECT_TRUE(has(run_rules(h200_with_failing_dots("", "")), "op_errors"));
}

TEST(RulesHealth, AnInvalidAllocatorSettingThatCrashesEveryWorkerIsNamed) {
  Report r = load_report("h200-healthy.json");
  for (auto& res : r.results) {
    if (res.kind != ResultKind::check) continue;
    res.status = Status::crashed;
    res.timing.reset();
    res.reason =
        "the worker died (exit code 3) before running an item, twice: the device or torch fails to "
        "initialise";
    res.error = ErrorInfo{res.reason, "", "", "", ""};
    res.evidence["stderr_tail"] =
        "accel-doctor worker: the device could not be prepared: CachingAllocator option "
        "max_split_size_mb too small, must be >= 20";
  }
  Report valid = r;  // the same crashes with a valid setting: not the setting's
  r.context.environment.env_vars.push_back(env_var("PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:1"));
  const auto fs = run_rules(r);
  const Finding& f = only(fs, "setting_breaks_checks");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "crash because PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:1 is set")) << f.title;
  // An out-of-memory message that only suggests allocator settings is not a
  // symptom of the (valid) setting the user has.
  for (auto& res : valid.results) {
    if (res.kind != ResultKind::check) continue;
    res.status = Status::error;
    res.evidence.erase("stderr_tail");
    res.reason =
        "CUDA out of memory. Tried to allocate 2.00 GiB. If reserved but unallocated memory is large try "
        "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; max_split_size_mb to avoid fragmentation";
    res.error = ErrorInfo{res.reason, "", "", "", ""};
  }
  valid.context.environment.env_vars.push_back(
      env_var("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"));
  EXPECT_FALSE(has(run_rules(valid), "setting_breaks_checks"));
}

TEST(RulesHealth, ProcessLimitedToAFewCpus) {
  Report r = load_report("h200-healthy.json");  // a GPU run on 16 logical CPUs
  r.context.environment.host.affinity_cpus = 2;
  r.context.environment.host.affinity_list = "0-1";
  r.context.environment.torch.intra_op_threads = 2;
  const Finding& f = only(run_rules(r), "host_cpu_limited");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "may use 2 of the machine's 16 CPUs")) << f.title;
  EXPECT_TRUE(mentions(f, "CPU affinity 0-1")) << f.evidence;
  EXPECT_TRUE(mentions(f, "CPU baseline of every speed-up")) << f.why;
  EXPECT_TRUE(mentions(f, "--cpuset-cpus")) << f.fix;
  // A cgroup quota alone, and more torch threads than it allows.
  Report q = load_report("h200-healthy.json");
  q.context.environment.host.cpu_quota_cpus = 4.0;
  const Finding& g = only(run_rules(q), "host_cpu_limited");
  EXPECT_TRUE(mentions(g, "cgroup CPU quota 4 CPUs")) << g.evidence;
  EXPECT_TRUE(mentions(g, "more threads than usable CPUs")) << g.evidence;
  // The whole machine: silent.
  Report all = load_report("h200-healthy.json");
  all.context.environment.host.affinity_cpus = 16;
  EXPECT_FALSE(has(run_rules(all), "host_cpu_limited"));
}

TEST(RulesHealth, GpuRunWithTorchOnOneThreadSaysSo) {
  Report r = load_report("h200-healthy.json");
  r.context.environment.torch.intra_op_threads = 1;
  r.context.environment.env_vars.push_back(env_var("OMP_NUM_THREADS", "1"));
  const Finding& f = only(run_rules(r), "thread_undersubscription");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "OMP_NUM_THREADS=1")) << f.fix;
  EXPECT_TRUE(mentions(f, "inflated")) << f.why;
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "thread_undersubscription"));
}

TEST(RulesHealth, EagerModuleLoadingIsASlowSetting) {
  Report r = load_report("h200-healthy.json");
  r.context.environment.env_vars.push_back(env_var("CUDA_MODULE_LOADING", "EAGER"));
  EXPECT_TRUE(mentions(only(run_rules(r), "slow_setting"), "CUDA_MODULE_LOADING=EAGER"));
}

}  // namespace
}  // namespace accel
