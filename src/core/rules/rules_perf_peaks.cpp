// Performance rules: GEMM, bandwidth, throttling and first-use cost against the peaks. Thresholds and shared
// helpers: rules_perf_detail.hpp.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- peaks

/// fp16/bf16 on a device where they are much slower than fp32: the GEMM
/// bench rows (timed, right or not: a result outside its tolerance is still a
/// speed) and the training steps' speed over fp32 (speedup_vs_fp32).
struct HalfSlow {
  std::string device, dtype;
  double gemm_ratio = 0;  ///< best fp32 over best half GEMM rate; 0 when not measured
  const Result* gemm_half = nullptr;
  const Result* gemm_fp32 = nullptr;
  double train_ratio = 0;  ///< fp32 over half samples/s of the slowest training step; 0 when none
  const Result* train_row = nullptr;
  std::vector<std::string> inaccurate;  ///< half results of this device outside their tolerance
};

std::vector<HalfSlow> half_slower_than_fp32(const Ctx& c) {
  std::vector<BenchRow> timed;  // bench_rows() keeps ok rows only
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || (r.status != Status::ok && r.status != Status::mismatch)) continue;
    const auto k = BenchKey::parse(r.key);
    if (k && k->group == "gemm" && metric(r, "tflops") > 0) timed.push_back({&r, *k});
  }
  const auto best = best_by_device_dtype(timed, "tflops");
  std::vector<HalfSlow> out;
  std::set<std::string> devices;
  for (const auto& r : c.report.results) {
    if (!r.device.empty()) devices.insert(r.device);
  }
  for (const auto& dev : devices) {
    for (const char* dt : {"bf16", "fp16"}) {
      HalfSlow h;
      h.device = dev;
      h.dtype = dt;
      const auto f = best.find({dev, "fp32"});
      const auto lo = best.find({dev, dt});
      if (f != best.end() && lo != best.end()) {
        h.gemm_fp32 = f->second;
        h.gemm_half = lo->second;
        h.gemm_ratio = metric(*f->second, "tflops") / metric(*lo->second, "tflops");
      }
      for (const auto& r : c.report.results) {
        if (r.kind != ResultKind::train || r.device != dev || r.dtype != dt || !ok(r)) continue;
        const double s = metric(r, "speedup_vs_fp32");
        if (s > 0 && 1 / s > h.train_ratio) {
          h.train_ratio = 1 / s;
          h.train_row = &r;
        }
      }
      if (h.gemm_ratio < kHalfSlowRatio && h.train_ratio < kHalfSlowRatio) continue;
      for (const auto& r : c.report.results) {
        if (r.device == dev && r.dtype == dt && r.status == Status::mismatch) h.inaccurate.push_back(r.key);
      }
      out.push_back(std::move(h));
    }
  }
  return out;
}

void rule_half_slower(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& h : half_slower_than_fp32(c)) {
    std::vector<std::string> evidence;
    const double ratio = std::max(h.gemm_ratio, h.train_ratio);
    if (h.gemm_ratio >= kHalfSlowRatio) {
      evidence.push_back(fmt::format("{} GEMM {} ({}) vs fp32 {} ({}): {} slower", h.dtype,
                                     rate(metric(*h.gemm_half, "tflops"), "TFLOP/s"), h.gemm_half->key,
                                     rate(metric(*h.gemm_fp32, "tflops"), "TFLOP/s"), h.gemm_fp32->key,
                                     times(h.gemm_ratio)));
    }
    if (h.train_ratio >= kHalfSlowRatio) {
      evidence.push_back(fmt::format("training step {} runs {} slower than in fp32 ({})", h.train_row->key,
                                     times(h.train_ratio), h.train_row->name));
    }
    if (!h.inaccurate.empty()) {
      evidence.push_back(fmt::format("and {} {} result{} outside the tolerance: {}", h.inaccurate.size(),
                                     h.dtype, h.inaccurate.size() == 1 ? "" : "s",
                                     list_some(h.inaccurate, 3)));
    }
    const bool twin = !c.target_is_cpu() && device_type(h.device) == "cpu";
    const bool cpu = device_type(h.device) == "cpu";
    std::string evidence_text;
    for (const auto& e : evidence) evidence_text += (evidence_text.empty() ? "" : "; ") + e;
    out.push_back(make_finding(
        "half_slower_than_fp32", twin ? Severity::info : Severity::warning,
        (twin ? 12 : 45) + std::min(15.0, 3 * std::log2(ratio)),
        fmt::format("{} is {} slower than fp32 on {}: stay in fp32 here", h.dtype, times(ratio),
                    c.device_label(h.device)),
        evidence_text,
        cpu ? fmt::format(
                  "This CPU has no fast path for {}: without AVX512-BF16/AMX (bf16) or AVX512-FP16 "
                  "(fp16) torch converts every value and runs slower kernels, so {} or autocast costs "
                  "speed instead of saving it{}.",
                  h.dtype, h.dtype, h.inaccurate.empty() ? "" : ", and here precision too")
            : fmt::format("This device runs {} through a slow path (no {} units, or a library without {} "
                          "kernels for it), so {} costs speed instead of saving it{}.",
                          h.dtype, h.dtype, h.dtype, h.dtype,
                          h.inaccurate.empty() ? "" : ", and precision too"),
        fmt::format("Keep models and inputs in fp32 on {} (no .half()/.bfloat16(), no autocast to {} there); "
                    "use {} on hardware that has it{}",
                    c.device_label(h.device), h.dtype, h.dtype,
                    cpu ? " (a GPU, or a CPU with AVX512-BF16/AMX such as Xeon 4th gen or Zen 4)" : ""),
        kRefAmp));
  }
}

void rule_gemm_under_peak(const Ctx& c, std::vector<Finding>& out) {
  // A dtype much slower than fp32 is the half_slower rule's (stay in fp32),
  // not a BLAS or thread problem.
  std::set<std::pair<std::string, std::string>> half_slow;
  for (const auto& h : half_slower_than_fp32(c)) half_slow.insert({h.device, h.dtype});
  std::map<std::pair<std::string, std::string>, const Result*> best;
  for (const auto& row : bench_rows(c, "gemm")) {
    const Result& r = *row.r;
    if (!r.roofline || r.roofline->above_peak || r.roofline->bound_tflops <= 0) continue;
    if (r.work.flops < kMinGemmFlops || row.k.dtype == "int8") continue;
    if (row.k.dtype == "bf16" && peak_emulated(*r.roofline)) continue;         // the bf16 rule says it
    if (r.device == "cpu" && lower(c.env.blas.name) == "reference") continue;  // the BLAS rule says it
    if (half_slow.count({r.device, row.k.dtype})) continue;
    auto& b = best[{r.device, row.k.dtype}];
    if (!b || r.roofline->percent_of_bound > b->roofline->percent_of_bound) b = &r;
  }
  for (const auto& [key, r] : best) {
    const bool cpu = key.first == "cpu";
    const double limit = cpu ? kGemmLowPercentCpu : kGemmLowPercentGpu;
    const double p = r->roofline->percent_of_bound;
    if (p >= limit) continue;
    std::string fix;
    if (cpu) {
      fix =
          "Check which BLAS torch uses (accel-doctor env: CPU BLAS), that torch's intra-op threads match the "
          "physical cores (torch.set_num_threads), and the CPU governor; a PyPI torch wheel bundles "
          "MKL/OpenBLAS";
    } else if (c.platform.backend == "rocm") {
      fix =
          "Check clocks and power under load (rocm-smi --showclocks --showpower), that the GPU is not "
          "shared, "
          "and try the other GEMM library (TORCH_BLAS_PREFER_HIPBLASLT=1 or 0); update ROCm and torch";
    } else {
      fix =
          "Check clocks, power cap and throttling under load (nvidia-smi -q -d PERFORMANCE,CLOCK,POWER), "
          "other "
          "processes on the GPU (nvidia-smi), and the PCIe/NVLink state; update the driver and torch";
    }
    // The CPU twin of a GPU run (measured for the speed-up) only matters
    // for work left on the CPU: a tip, not a warning.
    const bool twin = cpu && !c.target_is_cpu();
    out.push_back(make_finding(
        "gemm_under_peak", twin ? Severity::info : Severity::warning,
        (twin ? 10 : 40) + (limit - p) / (twin ? 10 : 1),
        fmt::format("{} GEMM reaches only {} of peak on {}", key.second, pct(p), c.device_label(key.first)),
        fmt::format("best {} GEMM ({}) at {} = {} of the {} bound ({}){}", key.second, r->shape,
                    rate(r->roofline->achieved_tflops, "TFLOP/s"), pct(p),
                    rate(r->roofline->bound_tflops, "TFLOP/s"), r->roofline->peak_source,
                    twin ? "; measured on the CPU for the speed-up of a GPU run" : ""),
        fmt::format(
            "Large square GEMMs normally reach 60-80% of the peak; under {:.0f}% the matrix units idle: "
            "low clocks (power or thermal limit), another process, a slow library path or a "
            "misidentified device.",
            limit),
        fix, kRefRoofline));
  }
}

/// A device GEMM whose sustained rate falls well under its first calls'.
void rule_sustained_throttle(const Ctx& c, std::vector<Finding>& out) {
  const BenchRow* worst = nullptr;
  double worst_drop = 0;
  const auto rows = bench_rows(c, "gemm");
  for (const auto& row : rows) {
    const Result& r = *row.r;
    // Calls of >= 500 µs only: a short GEMM's burst and sustained figures
    // differ for reasons other than clocks (a 16 µs fp16 GEMM on the H200
    // showed 32%), while a long one runs into the power limit within ~70 ms.
    if (r.device == "cpu" || r.work.flops < kMinGemmFlops || !r.evidence.contains("sustained_drop_pct") ||
        !r.timing || r.timing->median_us < 500) {
      continue;
    }
    const double drop = r.evidence["sustained_drop_pct"].get<double>();
    if (drop > worst_drop) {
      worst_drop = drop;
      worst = &row;
    }
  }
  if (!worst || worst_drop < 8) return;
  const Result& r = *worst->r;
  const bool severe = worst_drop >= 20;
  const std::string fix =
      c.platform.backend == "rocm"
          ? "Watch clocks, power and temperature under load (rocm-smi --showclocks --showpower --showtemp): "
            "check cooling and the power cap; on Windows use the High performance power plan"
          : "Watch clocks and the throttle reasons under load (nvidia-smi -q -d PERFORMANCE,CLOCK,POWER: "
            "'SW Power Cap', 'HW Slowdown', 'Thermal'): check cooling, the power limit (nvidia-smi -pl) and, "
            "on a laptop or Windows, the power plan";
  out.push_back(make_finding(
      "sustained_throttle", severe ? Severity::warning : Severity::info,
      severe ? 30 + worst_drop / 2 : 8 + worst_drop / 4,
      fmt::format("{} slows down under sustained load: {} GEMM {:.0f}% below its first calls",
                  c.device_label(r.device), worst->k.dtype, worst_drop),
      fmt::format("{}: {} sustained (median) vs {} in the first back-to-back calls", r.key,
                  rate(metric(r, "tflops"), "TFLOP/s"), rate(metric(r, "tflops_burst"), "TFLOP/s")),
      severe ? "The clock falls far under load: long runs (training, batch inference) get the sustained "
               "figure, so the device delivers much less than its first seconds suggest."
             : "The clock falls back from its boost under sustained load (a power cap or a boost it cannot "
               "hold): normal on power-limited GPUs (an H200's bf16 GEMM runs at its 700 W cap); long "
               "runs get the sustained figure, which is the one reported.",
      fix, kRefRoofline));
}

/// The one-time cost of first calls on an accelerator: runtime kernel
/// compilation, library plans and graphs, code loaded on first use.
void rule_first_use_cost(const Ctx& c, std::vector<Finding>& out) {
  struct Cost {
    double ms;
    const Result* r;
  };
  std::map<std::string, std::vector<Cost>> by_device;
  std::map<std::string, double> wall_ms;
  for (const Result* r : c.of_kind(ResultKind::check)) {
    if (r->device.empty() || r->device == "cpu" || !r->timing) continue;
    const auto first = r->phase_ms.find("first_call");
    if (first == r->phase_ms.end()) continue;
    wall_ms[r->device] += r->wall_ms;
    const double extra = first->second - r->timing->median_us / 1000.0;  // minus an ordinary call
    if (extra > 0 && std::isfinite(extra)) by_device[r->device].push_back({extra, r});
  }
  // Settings that throw away what first calls compile, where they apply:
  // torch's kernel cache (jiterator, NVRTC/hipRTC) on CUDA and ROCm, the
  // driver's PTX compute cache on CUDA, MIOpen's kernel cache on ROCm.
  const bool cuda = c.platform.backend == "cuda";
  const bool rocm = c.platform.backend == "rocm";
  auto is_set = [&](const char* name, std::initializer_list<const char*> values) -> std::string {
    const EnvVar* v = c.env_var(name);
    if (!v) return "";
    for (const char* want : values) {
      if (lower(v->value) == want) return fmt::format("{}={}", name, v->value);
    }
    return "";
  };
  std::vector<std::string> disabled;
  if (cuda || rocm) {
    if (auto s = is_set("USE_PYTORCH_KERNEL_CACHE", {"0"}); !s.empty()) disabled.push_back(s);
  }
  if (cuda) {
    if (auto s = is_set("CUDA_CACHE_DISABLE", {"1"}); !s.empty()) disabled.push_back(s);
  }
  if (rocm) {
    if (auto s = is_set("MIOPEN_DISABLE_CACHE", {"1", "true", "yes", "on", "enable", "enabled"});
        !s.empty()) {
      disabled.push_back(s);
    }
  }
  for (auto& [device, costs] : by_device) {
    double total = 0;
    for (const auto& x : costs) total += x.ms;
    const double share = wall_ms[device] > 0 ? total / wall_ms[device] : 0;
    if (total < kFirstUseMinMs || share < kFirstUseMinShare) continue;
    std::sort(costs.begin(), costs.end(), [](const Cost& a, const Cost& b) { return a.ms > b.ms; });
    std::vector<std::string> slowest;
    for (std::size_t i = 0; i < std::min<std::size_t>(3, costs.size()); ++i) {
      const Result& r = *costs[i].r;
      slowest.push_back(fmt::format("{} {} {:.2f} s", r.name, r.dtype, costs[i].ms / 1000));
    }
    std::string fix =
        "Warm up before timing or serving: run one or two batches of the real shapes first and keep shapes "
        "stable (a new shape can need a new plan)";
    if (cuda || rocm) {
      fix +=
          "; keep torch's kernel cache on (USE_PYTORCH_KERNEL_CACHE unset) in a writable folder that "
          "outlives "
          "the process (PYTORCH_KERNEL_CACHE_PATH, default ~/.cache/torch/kernels, %TEMP%\\torch\\kernels on "
          "Windows; mount it in containers)";
    }
    if (cuda) {
      fix +=
          ", and the driver's compute cache (CUDA_CACHE_DISABLE unset, CUDA_CACHE_MAXSIZE large enough when "
          "torch has no binary for this GPU and the driver compiles its PTX)";
    }
    if (rocm) {
      fix +=
          "; keep MIOpen's kernel cache (~/.cache/miopen, MIOPEN_CUSTOM_CACHE_DIR) and find database "
          "(MIOPEN_USER_DB_PATH) writable and persistent with MIOPEN_DISABLE_CACHE unset, install the "
          "precompiled MIOpen kernel package for your gfx target where ROCm ships one, and "
          "MIOPEN_FIND_MODE=FAST shortens the first search";
    }
    if (!disabled.empty()) fix = fmt::format("Unset {}; then: ", fmt::join(disabled, " and ")) + fix;
    // Always a tip: the evidence cannot tell which part of the cost a cache
    // would have kept (lazy loading and library set-up are paid anyway).
    out.push_back(make_finding(
        "first_use_cost", Severity::info, (disabled.empty() ? 4 : 12) + std::min(10.0, total / 1000),
        fmt::format("The first call of an operator costs up to {:.2f} s on {} ({:.1f} s in this run)",
                    costs.front().ms / 1000, c.device_label(device), total / 1000),
        fmt::format("first calls minus an ordinary call, summed over {} checks: {:.1f} s, {} of the checks' "
                    "time; slowest: {}{}",
                    costs.size(), total / 1000, pct(100 * share), list_some(slowest, 3),
                    disabled.empty() ? ""
                                     : fmt::format("; {} is set: what first calls compile is not kept for "
                                                   "the next run",
                                                   fmt::join(disabled, " and "))),
        "An operator's first call on a GPU loads and prepares its kernels: GPU code loaded on first use "
        "(CUDA's lazy loading; the driver compiling PTX when the build has no binary for this GPU), library "
        "handles, heuristics and plans (cuBLAS, cuDNN or MIOpen convolution and attention, cuFFT or rocFFT), "
        "kernels compiled at run time (torch's jiterator through NVRTC or hipRTC, MIOpen's kernels on ROCm). "
        "A model pays this in its first batch, so the first iteration is slow and must not be timed; a later "
        "process gets back only what is cached on disk.",
        fix,
        rocm   ? kRefMiopenCache
        : cuda ? kRefJit
               : kRefWarmup));
  }
}

void rule_bandwidth_under_peak(const Ctx& c, std::vector<Finding>& out) {
  std::map<std::string, const Result*> best;
  for (const auto& row : bench_rows(c, "memory")) {
    const Result& r = *row.r;
    if (!r.roofline || r.roofline->above_peak || r.roofline->bandwidth_gbps <= 0) continue;
    if (starts_with(r.roofline->bandwidth_source, "measured")) continue;  // compared with itself
    auto& b = best[r.device];
    if (!b || r.roofline->percent_of_bound > b->roofline->percent_of_bound) b = &r;
  }
  for (const auto& [device, r] : best) {
    const double p = r->roofline->percent_of_bound;
    if (p >= kBandwidthLowPercent) continue;
    const bool twin = device == "cpu" && !c.target_is_cpu();  // see rule_gemm_under_peak
    out.push_back(make_finding(
        "bandwidth_under_peak", twin ? Severity::info : Severity::warning,
        (twin ? 10 : 35) + (kBandwidthLowPercent - p) / 2,
        fmt::format("Memory bandwidth reaches only {} of peak on {}", pct(p), c.device_label(device)),
        fmt::format("best memory benchmark ({}) moves {} = {} of {} ({})", r->name,
                    rate(r->roofline->achieved_gbps, "GB/s"), pct(p),
                    rate(r->roofline->bandwidth_gbps, "GB/s"), r->roofline->bandwidth_source),
        "Memory-bound work (elementwise ops, normalisation, LLM decode) runs at this fraction of what the "
        "device "
        "can do; copies normally reach 80-90% of the datasheet bandwidth.",
        device == "cpu"
            ? "Check that all memory channels are populated and the NUMA placement (numactl --hardware), and "
              "the "
              "CPU governor"
            : "Check memory clocks and throttling under load (nvidia-smi -q -d CLOCK,PERFORMANCE or rocm-smi "
              "--showclocks), ECC/row-remapping state, and other processes on the GPU",
        kRefRoofline));
  }
}

}  // namespace accel::rules::perf
