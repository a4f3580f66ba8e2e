// Performance rules: the attention (SDPA) path. Thresholds and shared helpers: rules_perf_detail.hpp.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- attention

void rule_sdpa_math(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> math, fused, warned;
  std::string fused_impl;
  for (const auto& r : c.report.results) {
    if (r.device == "cpu" || r.device.empty()) continue;
    if (r.profile) {
      const auto it = r.profile->implementation.find("sdpa");
      if (it != r.profile->implementation.end()) {
        if (starts_with(it->second, "math")) {
          math.push_back(r.key);
        } else {
          fused.push_back(r.key);
          fused_impl = it->second;
        }
      }
    }
    for (const auto& w : r.warnings) {
      if (contains_ci(w, "not compiled with flash attention") ||
          contains_ci(w, "not compiled with memory efficient attention") ||
          contains_ci(w, "Memory efficient kernel not used") ||
          contains_ci(w, "Flash attention kernel not used")) {
        warned.push_back(r.key);
        break;
      }
    }
  }
  if (!math.empty() && fused.empty()) {
    out.push_back(make_finding(
        "sdpa_math", Severity::warning, 45, "Attention (SDPA) runs the unfused math path",
        fmt::format("scaled_dot_product_attention ran as matmul + softmax in {}{}", list_some(math, 3),
                    warned.empty() ? "" : "; torch warned that its fused kernels are not available"),
        "The math path materialises the full attention matrix: memory grows with the square of the sequence "
        "and "
        "long-sequence attention is several times slower than flash or memory-efficient attention.",
        c.platform.backend == "rocm"
            ? "Use a ROCm torch with AOTriton attention (torch >= 2.3; on RDNA3 set "
              "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL=1), fp16/bf16 inputs, and head_dim <= 256"
            : "Use fp16/bf16 inputs with head_dim <= 256 on a torch build with flash or memory-efficient "
              "attention "
              "(the Linux CUDA wheels have both; Windows wheels lack flash attention but have the "
              "memory-efficient "
              "kernel)",
        kRefSdpa));
  } else if (!warned.empty() && !fused.empty()) {
    out.push_back(make_finding(
        "sdpa_warning_harmless", Severity::info, 3, "The flash-attention warning is harmless here",
        fmt::format("torch warned about a missing fused attention kernel in {}, but {} ran in {}",
                    list_some(warned, 2), fused_impl, list_some(fused, 2)),
        "torch picks the next fused backend with the same result; only the math path would be slow.",
        "Nothing to do; to silence it: warnings.filterwarnings(\"ignore\", message=\".*flash attention.*\")",
        kRefSdpa));
  }
}

}  // namespace accel::rules::perf
