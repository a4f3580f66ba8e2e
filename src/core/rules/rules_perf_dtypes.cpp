// Performance rules: which dtype to compute in (autocast, TF32, emulated bf16). Thresholds and shared
// helpers: rules_perf_detail.hpp.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- dtypes

void rule_autocast(const Ctx& c, std::vector<Finding>& out) {
  if (c.platform.backend == "directml")
    return;  // autocast is not reliable there (see the bf16/fp16 advice below)
  const auto best = best_by_device_dtype(bench_rows(c, "gemm"), "tflops");
  std::set<std::string> devices;
  for (const auto& [k, r] : best) devices.insert(k.first);
  for (const auto& dev : devices) {
    const auto f32 = best.find({dev, "fp32"});
    if (f32 == best.end() || metric(*f32->second, "tflops") <= 0) continue;
    const Result* low = nullptr;
    for (const char* dt : {"bf16", "fp16"}) {
      const auto it = best.find({dev, dt});
      if (it == best.end()) continue;
      if (std::string(dt) == "bf16" && it->second->roofline && peak_emulated(*it->second->roofline)) continue;
      if (!low || metric(*it->second, "tflops") > metric(*low, "tflops")) low = it->second;
    }
    if (!low) continue;
    const double ratio = metric(*low, "tflops") / metric(*f32->second, "tflops");
    if (ratio < kAutocastRatio) continue;
    const std::string dt = low->dtype == "fp16" ? "float16" : "bfloat16";
    const std::string adev = autocast_device(c.platform, dev);
    std::string fix = fmt::format(
        "Run the model under autocast: with torch.autocast(device_type=\"{}\", dtype=torch.{}): out = "
        "model(x)",
        adev, dt);
    if (low->dtype == "fp16") fix += "; for training add torch.amp.GradScaler(\"" + adev + "\")";
    if (dev != "cpu") fix += "; for fp32 matmuls that must stay fp32, see the TF32 advice";
    std::string evidence = fmt::format(
        "{} GEMM {} vs fp32 {} on {} ({} faster)", low->dtype, rate(metric(*low, "tflops"), "TFLOP/s"),
        rate(metric(*f32->second, "tflops"), "TFLOP/s"), c.device_label(dev), times(ratio));
    if (dev == "cpu" && lower(c.env.blas.name) == "reference") {
      evidence += " (fp32 goes through the reference BLAS here, bf16 through oneDNN)";
    }
    out.push_back(make_finding(
        "autocast", Severity::info, std::min(30.0, 10 + 5 * std::log2(ratio)),
        fmt::format("{} matmuls are {} faster than fp32 on {}", low->dtype, times(ratio),
                    c.device_label(dev)),
        evidence,
        "Models left in fp32 leave most of that speed unused; autocast runs matmuls and convolutions in the "
        "low-precision dtype and keeps precision-sensitive ops in fp32.",
        fix, kRefAmp));
  }
}

void rule_tf32(const Ctx& c, std::vector<Finding>& out) {
  const auto best = best_by_device_dtype(bench_rows(c, "gemm"), "tflops");
  for (const auto& [k, r] : best) {
    if (k.second != "tf32") continue;
    const auto f32 = best.find({k.first, "fp32"});
    if (f32 == best.end() || metric(*f32->second, "tflops") <= 0) continue;
    const double ratio = metric(*r, "tflops") / metric(*f32->second, "tflops");
    if (ratio < kTf32Ratio) continue;
    std::string fix =
        "If fp32 models may use TF32 (10-bit mantissa inputs, fp32 accumulate; fine for most training and "
        "inference): torch.set_float32_matmul_precision(\"high\") (or torch.backends.cuda.matmul.allow_tf32 "
        "= "
        "True) at start-up; convolutions already use TF32 (torch.backends.cudnn.allow_tf32)";
    if (const EnvVar* v = c.env_var("NVIDIA_TF32_OVERRIDE"); v && v->value == "0") {
      fix += "; and unset NVIDIA_TF32_OVERRIDE=0, which forbids TF32 for the whole process";
    }
    out.push_back(make_finding(
        "tf32_off", Severity::info, std::min(28.0, 8 + 5 * std::log2(ratio)),
        fmt::format("TF32 would make fp32 matmuls {} faster on {}", times(ratio), c.device_label(k.first)),
        fmt::format("fp32 GEMM with TF32 off (torch's default for matmuls) {} vs TF32 {}",
                    rate(metric(*f32->second, "tflops"), "TFLOP/s"), rate(metric(*r, "tflops"), "TFLOP/s")),
        "torch leaves TF32 off for matmuls by default, so fp32 models run on the slower full-precision path "
        "even "
        "on tensor-core GPUs.",
        fix, kRefTf32));
  }
}

void rule_bf16_emulated(const Ctx& c, std::vector<Finding>& out) {
  if (c.target_is_cpu() || !c.target_device) return;
  const DeviceInfo& d = *c.target_device;
  std::string basis;
  if (starts_with(d.arch, "gfx") && c.options.kb && c.options.data) {
    if (const auto a = c.options.kb->gfx_arch(d.arch)) {
      const auto& fams = c.options.data->bf16_emulated_gfx_families;
      if (std::find(fams.begin(), fams.end(), a->family) != fams.end()) {
        basis = fmt::format("{} ({}) has no bf16 arithmetic", d.arch, a->family);
      }
    }
  }
  if (starts_with(d.arch, "sm_") && c.options.data) {
    try {
      const int sm = std::stoi(d.arch.substr(3));
      if (sm < c.options.data->bf16_min_sm) {
        basis = fmt::format("{} has no bf16 tensor cores (they start at sm_{})", d.arch,
                            c.options.data->bf16_min_sm);
      }
    } catch (const std::exception&) {
    }
  }
  const auto gemm = best_by_device_dtype(bench_rows(c, "gemm"), "tflops");
  const auto bf = gemm.find({d.id, "bf16"});
  if (basis.empty() && bf != gemm.end() && bf->second->roofline && peak_emulated(*bf->second->roofline)) {
    basis = "the peak table says bf16 runs as fp32 on this GPU";
  }
  if (basis.empty()) return;
  // Only worth saying when bf16 is used here.
  std::vector<std::string> uses;
  for (const auto& r : c.report.results) {
    if (r.device == d.id && r.dtype == "bf16" && ok(r) && r.kind != ResultKind::check) uses.push_back(r.key);
  }
  bool any_check = false;
  for (const auto& r : c.report.results)
    any_check = any_check || (r.device == d.id && r.dtype == "bf16" && ok(r));
  if (uses.empty() && !any_check) return;
  std::string evidence = basis;
  auto rate_of = [&](const char* dt) -> double {
    const auto it = gemm.find({d.id, dt});
    return it == gemm.end() ? 0 : metric(*it->second, "tflops");
  };
  if (rate_of("bf16") > 0) {
    evidence += fmt::format("; GEMM bf16 {}", rate(rate_of("bf16"), "TFLOP/s"));
    if (rate_of("fp16") > 0) evidence += fmt::format(", fp16 {}", rate(rate_of("fp16"), "TFLOP/s"));
    if (rate_of("fp32") > 0) evidence += fmt::format(", fp32 {}", rate(rate_of("fp32"), "TFLOP/s"));
  }
  if (!uses.empty()) evidence += "; bf16 used by " + list_some(uses, 3);
  std::string fix =
      c.platform.backend == "directml"
          ? "Use fp32 (DirectML's half-precision and autocast support is incomplete) or model.half() "
            "where it works"
          : "Use fp16 instead: torch.autocast(device_type=\"cuda\", dtype=torch.float16) with "
            "torch.amp.GradScaler for training, or model.half() for inference (LLM runners: "
            "--dtype float16)";
  out.push_back(make_finding("bf16_emulated", Severity::warning, 50,
                             fmt::format("bf16 is emulated on {}", c.device_label(d.id)), evidence,
                             "Without bf16 hardware, torch converts bf16 to fp32 for every operation: bf16 "
                             "runs no faster than fp32 (often "
                             "slower), while fp16 runs at the full packed or matrix rate.",
                             fix, kRefAmp));
}

}  // namespace accel::rules::perf
