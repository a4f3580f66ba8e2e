// Performance rules: the CPU BLAS, GEMM and bandwidth against their peaks,
// which dtype to compute in (autocast, TF32, emulated bf16), the attention
// path, host<->device copies, and LLM decode (launch-bound, batch size).
//
// Thresholds, with why they sit where they do: rules_perf_detail.hpp.
//
// The rules themselves are in rules_perf_*.cpp, one concept per file.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules {

std::vector<RuleEntry> perf_rules() {
  using namespace perf;
  return {
      {"cpu_blas_reference",
       "BlasInfo.name is reference (netlib); critical when the CPU is the measured device",
       rule_reference_blas},
      {"gemm_under_peak",
       "the best large bench GEMM of a dtype under 30% (GPU) / 20% (CPU) of its roofline bound",
       rule_gemm_under_peak},
      {"bandwidth_under_peak", "the best bench memory row under 40% of a datasheet/estimated bandwidth",
       rule_bandwidth_under_peak},
      {"sustained_throttle",
       "a large device bench GEMM whose median is >= 8% (info) / 20% (warning) slower than its burst",
       rule_sustained_throttle},
      {"first_use_cost",
       "an accelerator's checks spend >= 1 s and >= 10% of their time in first calls beyond an ordinary call "
       "(info; warning when USE_PYTORCH_KERNEL_CACHE=0 or MIOPEN_DISABLE_CACHE is set)",
       rule_first_use_cost},
      {"autocast", "bench GEMM fp16/bf16 >= 2x fp32 on a device (info)", rule_autocast},
      {"tf32_off", "bench GEMM tf32 row >= 1.5x the fp32 row (info)", rule_tf32},
      {"half_slower_than_fp32",
       "bench GEMM fp16/bf16 >= 2x slower than fp32 on a device, or a training step >= 2x slower than its "
       "fp32 "
       "twin: stay in fp32 there (info for the CPU twin of a GPU run)",
       rule_half_slower},
      {"bf16_emulated",
       "bf16 used on a GPU without bf16 hardware (kb/arch.json family in kb/rules.json, sm < 80, "
       "or an emulated peak)",
       rule_bf16_emulated},
      {"sdpa_math",
       "profile.implementation[sdpa] is the math path and no fused backend ran; info when only the "
       "flash warning appeared",
       rule_sdpa_math},
      {"pageable_copies", "bench transfer pinned >= 1.5x pageable at the largest size (info)", rule_pinned},
      {"launch_bound_decode",
       "llm decode row with launch_bound or device_idle_fraction >= 0.4, with the graph "
       "row's speed-up",
       rule_launch_bound},
      {"small_batch", "llm/train throughput >= 2x from smallest to largest batch at >= 50% efficiency (info)",
       rule_small_batch},
  };
}

}  // namespace accel::rules
