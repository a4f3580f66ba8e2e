// Set-up rules on recorded and edited reports: is the GPU used at all, why
// not, the architecture against the build, HSA_OVERRIDE_GFX_VERSION, and an
// integrated GPU measured instead of the discrete one.
#include <gtest/gtest.h>

#include "rules_test_util.hpp"

namespace accel {
namespace {

// ---------------------------------------------------------------- no accelerator

TEST(RulesSetup, CpuOnlyTorchWithAnNvidiaGpu) {
  const auto fs = run_rules(load_report("rtx4090-cpu-only-torch.json"));
  const Finding& f = only(fs, "no_accelerator.cpu_only_torch");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "NVIDIA GeForce RTX 4090")) << f.title;
  EXPECT_TRUE(mentions(f, "1.13.0")) << f.evidence;
  // The driver reports CUDA 12.6: the newest wheel it runs is cu126.
  EXPECT_TRUE(mentions(f, "download.pytorch.org/whl/cu126")) << f.fix;
  EXPECT_EQ(fs.front().id, "no_accelerator.cpu_only_torch") << ids(fs);
}

TEST(RulesSetup, CpuOnlyTorchIsSilentWithoutAGpu) {
  // The recorded CI container: CPU-only torch and no GPU at all is not a problem.
  const auto fs = run_rules(load_report("cpu-reference-blas.json"));
  EXPECT_FALSE(has(fs, "no_accelerator.")) << ids(fs);
}

TEST(RulesSetup, CpuOnlyTorchWithAnAmdGpuMentionsTheOverride) {
  Report r = load_report("rtx4090-cpu-only-torch.json");
  auto& g = r.context.environment.gpus.front();
  g.vendor = "amd";
  g.name = "AMD Radeon RX 6650 XT";
  g.gfx_target = "gfx1032";
  r.context.environment.driver = DriverInfo{};
  const Finding& f = only(run_rules(r), "no_accelerator.cpu_only_torch");
  EXPECT_TRUE(mentions(f, "whl/rocm")) << f.fix;
  EXPECT_TRUE(mentions(f, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << f.fix;
}

TEST(RulesSetup, DevicesHiddenByVisibleDevices) {
  const auto fs = run_rules(load_report("nvidia-hidden-by-env.json"));
  const Finding& f = only(fs, "no_accelerator.hidden_by_env");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "CUDA_VISIBLE_DEVICES=\"-1\"")) << f.title;
  EXPECT_TRUE(mentions(f, "unset CUDA_VISIBLE_DEVICES")) << f.fix;
  EXPECT_FALSE(has(fs, "no_accelerator.unexplained")) << ids(fs);
}

TEST(RulesSetup, EmptyOrOutOfRangeVisibleDevicesHideToo) {
  Report r = load_report("nvidia-hidden-by-env.json");
  for (const std::string value : {"", "3", "1,2", "99999999999999999999"}) {
    r.context.environment.env_vars = {env_var("CUDA_VISIBLE_DEVICES", value)};
    EXPECT_TRUE(has(run_rules(r), "no_accelerator.hidden_by_env")) << "CUDA_VISIBLE_DEVICES=" << value;
  }
  // An index that exists does not hide the (one) GPU: something else is wrong.
  r.context.environment.env_vars = {env_var("CUDA_VISIBLE_DEVICES", "0")};
  const auto fs = run_rules(r);
  EXPECT_FALSE(has(fs, "no_accelerator.hidden_by_env")) << ids(fs);
  EXPECT_TRUE(has(fs, "no_accelerator.unexplained")) << ids(fs);
}

TEST(RulesSetup, DeviceNodesWithoutPermission) {
  const auto fs = run_rules(load_report("rocm-no-render-group.json"));
  const Finding& f = only(fs, "no_accelerator.device_permissions");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "/dev/kfd")) << f.evidence;
  EXPECT_TRUE(mentions(f, "usermod -aG render")) << f.fix;
  EXPECT_FALSE(has(fs, "no_accelerator.unexplained")) << ids(fs);
}

TEST(RulesSetup, DriverFailure) {
  Report r = load_report("nvidia-hidden-by-env.json");
  r.context.environment.env_vars.clear();
  r.context.environment.driver.cuda_init_error = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  const Finding& f = only(run_rules(r), "no_accelerator.driver");
  EXPECT_TRUE(mentions(f, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")) << f.evidence;
  EXPECT_TRUE(mentions(f, "nvidia-smi")) << f.fix;
}

TEST(RulesSetup, NoAcceleratorRulesSilentWhenTorchSeesTheGpu) {
  for (const char* name : {"h200-healthy.json", "rx6650xt-windows-selfbuilt.json",
                           "laptop-igpu-selected.json", "mps-cpu-fallback.json"}) {
    const auto fs = run_rules(load_report(name));
    EXPECT_FALSE(has(fs, "no_accelerator.")) << name << ": " << ids(fs);
  }
}

// ---------------------------------------------------------------- architecture

TEST(RulesSetup, NvidiaArchNotInBuild) {
  const auto fs = run_rules(load_report("rtx5090-arch-not-in-build.json"));
  const Finding& f = only(fs, "arch_not_in_build");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "sm_120")) << f.title;
  EXPECT_TRUE(mentions(f, "cu128")) << f.fix;  // kb/arch.json: sm_120 needs CUDA 12.8 wheels
}

TEST(RulesSetup, ArchRuleSilentWhenInBuild) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "arch_not_in_build"));
}

// ---------------------------------------------------------------- HSA_OVERRIDE_GFX_VERSION

TEST(RulesSetup, HsaOverrideMissingOnGfx1032) {
  const auto fs = run_rules(load_report("rx6600-linux-no-override.json"));
  const Finding& f = only(fs, "hsa_override.missing");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "HSA_OVERRIDE_GFX_VERSION=10.3.0")) << f.title;
  EXPECT_TRUE(mentions(f, "export HSA_OVERRIDE_GFX_VERSION=10.3.0")) << f.fix;
  // The arch rule leaves override-able targets to this rule: one finding, not two.
  EXPECT_FALSE(has(fs, "arch_not_in_build")) << ids(fs);
  EXPECT_EQ(fs.front().id, "hsa_override.missing") << ids(fs);
}

TEST(RulesSetup, HsaOverrideOnWindowsIsNeverAdvised) {
  // HIP on Windows does not go through HSA: the variable is ignored there
  // (ROCm/TheRock#1719), so the fix is a build with the target.
  Report r = load_report("rx6600-linux-no-override.json");
  r.context.environment.host.os = "Windows 11 Pro";
  const auto fs = run_rules(r);
  EXPECT_FALSE(has(fs, "hsa_override.missing")) << ids(fs);
  const Finding& f = only(fs, "hsa_override.windows_no_build");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_FALSE(mentions(f, "setx HSA_OVERRIDE")) << f.fix;
  EXPECT_TRUE(mentions(f, "PYTORCH_ROCM_ARCH=gfx1032")) << f.fix;
}

TEST(RulesSetup, HsaOverrideSetOnWindowsIsReportedAsIgnored) {
  Report r = load_report("rx6600-linux-no-override.json");
  r.context.environment.host.os = "Windows 11 Pro";
  r.context.environment.env_vars.push_back(EnvVar{"HSA_OVERRIDE_GFX_VERSION", "10.3.0", ""});
  const auto fs = run_rules(r);
  EXPECT_TRUE(has(fs, "hsa_override.ignored_on_windows")) << ids(fs);
}

TEST(RulesSetup, UnsupportedTargetOnWindowsIsReportedOnce) {
  // gfx1010 has no override on any OS: arch_not_in_build says so; the Windows
  // override finding is for targets an override fixes on Linux.
  Report r = load_report("rx5700xt-rdna1-override.json");
  r.context.environment.host.os = "Windows 11 Pro";
  r.context.environment.env_vars.clear();
  for (auto& d : r.context.environment.devices) {  // what torch reports without the override
    d.arch = "gfx1010";
    d.arch_in_build = false;
  }
  const auto fs = run_rules(r);
  EXPECT_TRUE(has(fs, "arch_not_in_build")) << ids(fs);
  EXPECT_FALSE(has(fs, "hsa_override.windows_no_build")) << ids(fs);
}

TEST(RulesSetup, HiddenIntegratedGpuGetsNoOverrideAdvice) {
  // The dGPU torch uses is fine; the iGPU is hidden on purpose by HIP_VISIBLE_DEVICES.
  Report r = load_report("rx6600-linux-no-override.json");
  r.context.environment.env_vars.push_back(EnvVar{"HIP_VISIBLE_DEVICES", "0", ""});
  for (auto& d : r.context.environment.devices) d.arch = "gfx1030";  // what torch sees: another target
  const auto fs = run_rules(r);
  EXPECT_FALSE(has(fs, "hsa_override.missing")) << ids(fs);
}

TEST(RulesSetup, HsaOverrideRightValueIsSilent) {
  Report r = load_report("rx6600-linux-no-override.json");
  r.context.environment.env_vars = {env_var("HSA_OVERRIDE_GFX_VERSION", "10.3.0")};
  const auto fs = run_rules(r);
  EXPECT_FALSE(has(fs, "hsa_override.")) << ids(fs);
}

TEST(RulesSetup, HsaOverrideWrongValue) {
  Report r = load_report("rx6600-linux-no-override.json");
  r.context.environment.env_vars = {env_var("HSA_OVERRIDE_GFX_VERSION", "11.0.0")};
  const Finding& f = only(run_rules(r), "hsa_override.wrong");
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_TRUE(mentions(f, "use 10.3.0")) << f.title;
}

TEST(RulesSetup, HsaOverrideOnRdna1MustNotBeSet) {
  const auto fs = run_rules(load_report("rx5700xt-rdna1-override.json"));
  const Finding& f = only(fs, "hsa_override.wrong");
  EXPECT_TRUE(mentions(f, "gfx1010")) << f.title;
  EXPECT_TRUE(mentions(f, "unset HSA_OVERRIDE_GFX_VERSION")) << f.fix;
  EXPECT_FALSE(mentions(f, "HSA_OVERRIDE_GFX_VERSION=10.3.0 before")) << f.fix;
}

TEST(RulesSetup, HsaOverrideUnnecessaryOnNativeTarget) {
  Report r = load_report("rocm-no-render-group.json");  // RX 7900 XTX, gfx1100 (native)
  auto& env = r.context.environment;
  env.driver.device_nodes.clear();
  env.devices = {DeviceInfo{"cuda:0",
                            0,
                            "cuda",
                            "AMD Radeon RX 7900 XTX",
                            "amd",
                            "gfx1030",
                            {},
                            {},
                            false,
                            true,
                            "0000:03:00.0",
                            {}}};
  env.selection = DeviceChoice{"auto", "cuda:0", "only accelerator"};
  env.env_vars = {env_var("HSA_OVERRIDE_GFX_VERSION", "10.3.0")};
  const Finding& f = only(run_rules(r), "hsa_override.unnecessary");
  EXPECT_EQ(to_string(f.severity), "critical");  // RDNA3 told it is RDNA2: wrong ISA
  // Its own version is harmless.
  env.env_vars = {env_var("HSA_OVERRIDE_GFX_VERSION", "11.0.0")};
  EXPECT_EQ(to_string(only(run_rules(r), "hsa_override.unnecessary").severity), "info");
}

TEST(RulesSetup, HsaOverrideRiskyOnGfx1103) {
  Report r = load_report("rx6600-linux-no-override.json");
  auto& g = r.context.environment.gpus.front();
  g.gfx_target = "gfx1103";
  g.integrated = true;
  r.context.environment.devices.front().arch = "gfx1103";
  r.context.environment.env_vars = {env_var("HSA_OVERRIDE_GFX_VERSION", "11.0.0")};
  EXPECT_EQ(to_string(only(run_rules(r), "hsa_override.risky").severity), "warning");
}

TEST(RulesSetup, HsaOverridePerDeviceWhenTargetsDiffer) {
  Report r = load_report("laptop-igpu-selected.json");        // gfx1032 dGPU + gfx1035 iGPU, ROCm 6.2
  r.context.environment.gpus.front().gfx_target = "gfx1100";  // a native RDNA3 dGPU instead
  const auto fs = run_rules(r);
  const Finding& f = only(fs, "hsa_override.per_device");
  EXPECT_TRUE(mentions(f, "HSA_OVERRIDE_GFX_VERSION_<node>")) << f.fix;
  EXPECT_TRUE(has(fs, "hsa_override.unnecessary")) << ids(fs);  // gfx1100 gets the RDNA2 override
  // Before ROCm 6.2 there is no per-device variable: hide the other GPU instead.
  r.context.environment.driver.rocm_version = "6.1.3";
  r.context.environment.torch.hip_version = "6.1.40091";
  EXPECT_TRUE(mentions(only(run_rules(r), "hsa_override.per_device"), "HIP_VISIBLE_DEVICES"));
}

TEST(RulesSetup, HsaRulesSilentOffRocm) {
  for (const char* name :
       {"h200-healthy.json", "cpu-reference-blas.json", "rx6650xt-windows-selfbuilt.json"}) {
    const auto fs = run_rules(load_report(name));
    EXPECT_FALSE(has(fs, "hsa_override.")) << name << ": " << ids(fs);
  }
}

// ---------------------------------------------------------------- integrated GPU

TEST(RulesSetup, IntegratedGpuSelectedWhileDiscreteIdles) {
  const auto fs = run_rules(load_report("laptop-igpu-selected.json"));
  const Finding& f = only(fs, "integrated_gpu_selected");
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_TRUE(mentions(f, "AMD Radeon 680M")) << f.evidence;
  EXPECT_TRUE(mentions(f, "torch.device(\"cuda:1\")")) << f.fix;
}

TEST(RulesSetup, IntegratedGpuOnlyVisibleThroughVariable) {
  Report r = load_report("laptop-igpu-selected.json");
  auto& env = r.context.environment;
  env.devices.pop_back();  // HIP_VISIBLE_DEVICES exposes the iGPU only
  env.env_vars.push_back(env_var("HIP_VISIBLE_DEVICES", "1"));
  const Finding& f = only(run_rules(r), "integrated_gpu_selected");
  EXPECT_TRUE(mentions(f, "HIP_VISIBLE_DEVICES=1")) << f.evidence;
  EXPECT_TRUE(mentions(f, "Change HIP_VISIBLE_DEVICES")) << f.fix;
}

TEST(RulesSetup, IntegratedRuleSilentOnDiscreteOrAlone) {
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "integrated_gpu_selected"));
  // An Apple GPU is integrated but there is nothing else to use.
  EXPECT_FALSE(has(run_rules(load_report("mps-cpu-fallback.json")), "integrated_gpu_selected"));
  Report r = load_report("laptop-igpu-selected.json");
  r.context.environment.selection = DeviceChoice{"auto", "cuda:1", "discrete GPU"};
  EXPECT_FALSE(has(run_rules(r), "integrated_gpu_selected"));
}

}  // namespace
}  // namespace accel
