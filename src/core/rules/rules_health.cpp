// Health rules: failing checks grouped by cause, wrong results, work that
// left the device, CPU fallbacks, measurements that cannot be trusted (noise,
// figures above peak), and the state of the host and the GPU (threads,
// governor, other processes, PCIe link, throttling, slow debug settings).
//
// The rules themselves are in rules_health_*.cpp, one concept per file.
#include "core/rules/rules_health_detail.hpp"

namespace accel::rules {

std::vector<RuleEntry> health_rules() {
  using namespace health;
  return {
      {"op_errors",
       "checks with status error/crashed/hung, one finding per kb cause (or per normalised message); "
       "setting_breaks_checks first when a set variable's documented symptom (kb/rules.json "
       "setting_symptoms) is in the failure's text",
       rule_errors},
      {"wrong_results", "checks with status mismatch", rule_wrong_results},
      {"off_device", "checks whose output left the device", rule_off_device},
      {"cpu_fallback", "checks whose profile.where is cpu_fallback, with fallback_cost_us and copy counts",
       rule_cpu_fallback},
      {"noisy_results", ">= 25% (and >= 5) of timings noisy or stopped by the time budget", rule_noisy},
      {"above_peak",
       "roofline.above_peak on a compute roof or a bench row, or an LLM roofline % > 105; small "
       "memory-bound checks above a DRAM roof are info (above_peak_cached)",
       rule_above_peak},
      {"thread_oversubscription",
       "intra-op threads > logical cores, or x BLAS threads > logical cores; info: > "
       "physical cores on a CPU run; thread_undersubscription: on a CPU run fewer intra-op threads than "
       "cores (warning at half or less); on a GPU run half the cores or less (of >= 4)",
       rule_threads},
      {"host_cpu_limited",
       "the process's CPU affinity or cgroup CPU quota allows fewer CPUs than the machine has (warning at "
       "half or "
       "less, or with more torch threads than usable CPUs)",
       rule_host_cpu_limited},
      {"cpu_power_saving", "cpu_governor powersave / a power-saver plan", rule_governor},
      {"gpu_shared", "NVML other_compute_processes > 0", rule_gpu_processes},
      {"pcie_link_degraded",
       "PCIe width below max; or speed below max with pinned copies < 50% of the max link", rule_pcie},
      {"gpu_throttled", "NVML clocks event reasons: hardware/thermal slowdown or power brake",
       rule_throttled},
      {"slow_setting", "an environment variable from kb/rules.json slow_env_vars set to a slowing value",
       rule_slow_env},
  };
}

}  // namespace accel::rules
