// Performance rules: the CPU BLAS, GEMM and bandwidth against their peaks,
// which dtype to compute in (autocast, TF32, emulated bf16), the attention
// path, host<->device copies, and LLM decode (launch-bound, batch size).
//
// Thresholds, with why they sit where they do:
//  - kGemmLowPercent 30 (GPU) / 20 (CPU): cuBLAS, hipBLASLt and rocBLAS reach
//    60-80% of the datasheet peak on large square GEMMs, MKL/OpenBLAS 50-90%
//    of the CPU estimate; below 30% the library, the clocks or the dtype path
//    is wrong, not the shape. The CPU estimate (cores x clock x SIMD width)
//    is rougher, hence 20%.
//  - kBandwidthLowPercent 40: a device copy reaches 80-90% of datasheet HBM or
//    GDDR bandwidth; under 40% is a throttled or misconfigured device.
//  - kAutocastRatio 2: fp16/bf16 at least twice the fp32 (TF32 off) rate
//    means the matrix units are idle in fp32 code.
//  - kTf32Ratio 1.5: TF32 at least 1.5x plain fp32.
//  - kHalfSlowRatio 2: fp16/bf16 GEMMs (or training steps) at least twice as
//    slow as fp32: the device has no fast path for the dtype (a CPU without
//    AVX512-BF16/AMX ran bf16 GEMMs 36x slower than fp32 and a bf16 CNN
//    training step 15x slower, issue 19), so low precision only costs.
//  - kPinnedRatio 1.5: pinned copies at least 1.5x pageable ones.
//  - kLaunchIdle 0.4: the engine calls a decode step launch-bound when the
//    device is busy less than 60% of it (llm_suite.cpp).
//  - small batch: throughput at the largest batch at least 2x the smallest,
//    at >= 50% scaling efficiency.
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "core/roofline.hpp"
#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr double kGemmLowPercentGpu = 30;
constexpr double kGemmLowPercentCpu = 20;
constexpr double kBandwidthLowPercent = 40;
constexpr double kAutocastRatio = 2.0;
constexpr double kTf32Ratio = 1.5;
constexpr double kHalfSlowRatio = 2.0;
constexpr double kPinnedRatio = 1.5;
constexpr double kLaunchIdle = 0.4;
constexpr double kBatchGain = 2.0;
constexpr double kBatchEfficiency = 0.5;
/// GEMMs smaller than this (2 x 464^3 FLOP) are dominated by launch and tiling overheads.
constexpr double kMinGemmFlops = 2e8;
/// First calls that cost at least this much more than a timed call, summed
/// over a device's checks, and this share of their time, are worth a tip
/// (the H200's default run: 3.0 s of 11.6 s; its full ops: 10.2 of 29.8 s).
constexpr double kFirstUseMinMs = 1000;
constexpr double kFirstUseMinShare = 0.10;

constexpr const char* kRefAmp = "https://pytorch.org/docs/stable/amp.html";
constexpr const char* kRefTf32 =
    "https://pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices";
constexpr const char* kRefPinned =
    "https://pytorch.org/docs/stable/notes/cuda.html#use-pinned-memory-buffers";
constexpr const char* kRefJit = "https://pytorch.org/docs/stable/notes/cuda.html#just-in-time-compilation";
constexpr const char* kRefWarmup = "https://pytorch.org/tutorials/recipes/recipes/benchmark.html";
constexpr const char* kRefMiopenCache = "https://rocm.docs.amd.com/projects/MIOpen/en/latest/cache.html";
constexpr const char* kRefGraphs = "https://pytorch.org/docs/stable/notes/cuda.html#cuda-graphs";
constexpr const char* kRefSdpa =
    "https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html";
constexpr const char* kRefRoofline =
    "docs/roofline.md (accel-doctor); https://doi.org/10.1145/1498765.1498785";

bool ok(const Result& r) { return r.status == Status::ok; }

double metric(const Result& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() || !std::isfinite(it->second) ? 0.0 : it->second;
}

std::string device_type(const std::string& device) { return device.substr(0, device.find(':')); }

struct BenchRow {
  const Result* r;
  BenchKey k;
};

std::vector<BenchRow> bench_rows(const Ctx& c, std::string_view group) {
  std::vector<BenchRow> out;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || !ok(r)) continue;
    auto k = BenchKey::parse(r.key);
    if (k && k->group == group) out.push_back({&r, *k});
  }
  return out;
}

/// Best `metric` per (device, dtype) over rows of a group.
std::map<std::pair<std::string, std::string>, const Result*> best_by_device_dtype(
    const std::vector<BenchRow>& rows, const std::string& m) {
  std::map<std::pair<std::string, std::string>, const Result*> best;
  for (const auto& row : rows) {
    if (row.r->roofline && row.r->roofline->above_peak) continue;  // a timing error, not a rate
    const auto key = std::make_pair(row.r->device, row.k.dtype);
    auto& b = best[key];
    if (!b || metric(*row.r, m) > metric(*b, m)) b = row.r;
  }
  return best;
}

bool peak_emulated(const Roofline& rf) {
  return contains_ci(rf.peak_source, "emulated") || contains_ci(rf.peak_source, " runs as fp32");
}

std::string autocast_device(const Platform& p, const std::string& device) {
  const std::string t = device_type(device);
  if (t == "cpu") return "cpu";
  if (p.backend == "mps") return "mps";
  if (p.backend == "xpu") return "xpu";
  return "cuda";  // ROCm builds call HIP devices "cuda" too
}

// ---------------------------------------------------------------- CPU BLAS

void rule_reference_blas(const Ctx& c, std::vector<Finding>& out) {
  if (lower(c.env.blas.name) != "reference") return;
  std::string evidence =
      fmt::format("the CPU BLAS loaded in this process is the netlib reference implementation{}{}",
                  c.env.blas.version.empty() ? "" : " " + c.env.blas.version,
                  c.env.blas.library.empty() ? "" : " (" + c.env.blas.library + ")");
  const Result* best = nullptr;
  for (const auto& row : bench_rows(c, "gemm")) {
    if (row.r->device != "cpu" || row.k.dtype != "fp32") continue;
    if (!best || row.r->work.flops > best->work.flops) best = row.r;
  }
  if (best) {
    evidence +=
        fmt::format("; fp32 GEMM {} on the CPU runs at {}", best->shape.empty() ? best->key : best->shape,
                    rate(metric(*best, "tflops") * 1000, "GFLOP/s"));
    if (best->roofline && best->roofline->percent_of_bound > 0) {
      evidence += fmt::format(" ({} of the CPU's estimated peak)", pct(best->roofline->percent_of_bound));
    }
  }
  if (!c.env.torch.build.empty() && c.env.torch.build.count("BLAS_INFO")) {
    evidence += fmt::format("; torch was built with BLAS_INFO={}", c.env.torch.build.at("BLAS_INFO"));
  }
  std::string fix;
  const std::string triplet =
      (c.env.host.arch == "aarch64" ? "aarch64" : "x86_64") + std::string("-linux-gnu");
  if (c.platform.debian_like) {
    fix = fmt::format(
        "sudo apt install libopenblas0-pthread, then make it the system BLAS and LAPACK: sudo "
        "update-alternatives "
        "--config libblas.so.3-{0} and sudo update-alternatives --config liblapack.so.3-{0} (choose the "
        "openblas-pthread entries); check with `accel-doctor env`. Or use a torch wheel from PyPI (pip "
        "install "
        "torch), which bundles MKL on x86-64 and OpenBLAS on aarch64",
        triplet);
  } else if (c.platform.fedora_like) {
    fix =
        "sudo dnf install flexiblas-openblas-openmp and select it (flexiblas default OPENBLAS-OPENMP), or "
        "use a "
        "torch wheel from PyPI (pip install torch), which bundles its own BLAS";
  } else if (c.platform.arch_like) {
    fix =
        "sudo pacman -S openblas blas-openblas, or use a torch wheel from PyPI (pip install torch), which "
        "bundles its own BLAS";
  } else {
    fix =
        "Use a torch build linked against an optimised BLAS: the PyPI/conda wheels bundle MKL (x86-64) or "
        "OpenBLAS (aarch64); for a distribution torch, install OpenBLAS and make it the system libblas";
  }
  const bool cpu_target = c.target_is_cpu();
  out.push_back(make_finding(
      "cpu_blas_reference", cpu_target ? Severity::critical : Severity::warning, cpu_target ? 90 : 35,
      "The CPU BLAS is the slow netlib reference implementation", evidence,
      std::string(
          "The reference BLAS is a straightforward loop nest without SIMD kernels, blocking or threads: an "
          "optimised BLAS (OpenBLAS, MKL, BLIS) is typically 10-100x faster on matrix products, which "
          "dominate linear layers and attention on the CPU") +
          (cpu_target ? "."
                      : " (here only CPU-side work: preprocessing, CPU fallbacks, the CPU comparisons)."),
      fix, "https://wiki.debian.org/DebianScience/LinearAlgebraLibraries"));
}

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

// ---------------------------------------------------------------- copies

void rule_pinned(const Ctx& c, std::vector<Finding>& out) {
  struct Pair {
    const Result* pageable = nullptr;
    const Result* pinned = nullptr;
  };
  std::map<std::string, Pair> pairs;  // direction/size
  for (const auto& row : bench_rows(c, "transfer")) {
    const std::string dir = row.k.name.substr(0, 3);
    auto& p = pairs[dir + "/" + row.r->device + "/" + row.k.shape];
    if (row.k.name.find("pageable") != std::string::npos) p.pageable = row.r;
    if (row.k.name.find("pinned") != std::string::npos) p.pinned = row.r;
  }
  const Pair* best = nullptr;
  double best_ratio = 0;
  for (const auto& [k, p] : pairs) {
    if (!p.pageable || !p.pinned || metric(*p.pageable, "gbps") <= 0) continue;
    // The largest size shows the steady-state rates; among those, H2D first (input pipelines).
    if (!best || p.pinned->work.bytes > best->pinned->work.bytes ||
        (p.pinned->work.bytes == best->pinned->work.bytes && starts_with(k, "h2d"))) {
      best = &p;
      best_ratio = metric(*p.pinned, "gbps") / metric(*p.pageable, "gbps");
    }
  }
  if (!best || best_ratio < kPinnedRatio) return;
  out.push_back(make_finding(
      "pageable_copies", Severity::info, std::min(25.0, 10 + 5 * std::log2(best_ratio)),
      fmt::format("Pinned host memory copies {} faster than pageable memory", times(best_ratio)),
      fmt::format("{} {}: pageable {} vs pinned {}", best->pinned->name.substr(0, 3), best->pinned->shape,
                  rate(metric(*best->pageable, "gbps"), "GB/s"), rate(metric(*best->pinned, "gbps"), "GB/s")),
      "Copies from pageable memory go through a staging buffer and block the host; input pipelines that feed "
      "the GPU from pageable tensors spend that difference on every batch.",
      "DataLoader(..., pin_memory=True) and x.to(device, non_blocking=True); for your own buffers "
      "tensor.pin_memory() once and reuse it",
      kRefPinned));
}

// ---------------------------------------------------------------- LLM

void rule_launch_bound(const Ctx& c, std::vector<Finding>& out) {
  const Result* worst = nullptr;
  std::optional<std::string> worst_graph;  // the key of worst's graph-replay twin
  double worst_idle = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::llm || !ok(r) || r.device == "cpu") continue;
    const auto k = LlmKey::parse(r.key);
    if (!k || k->test != LlmKey::Test::decode) continue;
    const bool flagged = r.evidence.is_object() && r.evidence.value("launch_bound", false);
    const double idle = metric(r, "device_idle_fraction");
    if (!flagged && idle < kLaunchIdle) continue;
    // Prefer the rows with a graph-replay twin (the main model, not the
    // small preset run only for the speed-up vs CPU): they show the gain.
    LlmKey graph = *k;
    graph.test = LlmKey::Test::graph;
    const bool has_graph = c.find(graph.str()) != nullptr;
    const bool worst_has_graph = worst_graph && c.find(*worst_graph) != nullptr;
    if (!worst || (has_graph && !worst_has_graph) || (has_graph == worst_has_graph && idle > worst_idle)) {
      worst = &r;
      worst_idle = idle;
      worst_graph = graph.str();
    }
  }
  if (!worst) return;
  const Result* graph = c.find(*worst_graph);
  double gain = 0;
  if (graph && ok(*graph) && metric(*worst, "tokens_per_s") > 0) {
    gain = metric(*graph, "tokens_per_s") / metric(*worst, "tokens_per_s");
  }
  std::string evidence = fmt::format("{}: {} tokens/s, device idle {} of each step", worst->key,
                                     rate(metric(*worst, "tokens_per_s"), ""), pct(100 * worst_idle));
  if (metric(*worst, "kernels_per_step") > 0) {
    evidence += fmt::format(", {:.0f} kernels per step", metric(*worst, "kernels_per_step"));
  }
  if (metric(*worst, "step_time_us") > 0) {
    evidence += fmt::format(", {} per step", rate(metric(*worst, "step_time_us"), "µs"));
  }
  if (gain > 0) {
    evidence += fmt::format("; graph replay of the same decode: {} tokens/s ({})",
                            rate(metric(*graph, "tokens_per_s"), ""), times(gain));
  }
  if (worst->evidence.is_object() && worst->evidence.contains("bottleneck") &&
      worst->evidence["bottleneck"].is_string()) {
    evidence += "; " + worst->evidence["bottleneck"].get<std::string>();
  }
  // A tip when this run proved the remedy on this machine (graph replay of
  // the same decode): the device is fine, the eager code wastes it. A
  // warning when the device idles most of the step and no graph-replay
  // measurement shows the way out (backends without graphs).
  const bool warn = worst_idle >= 0.5 && gain == 0;
  std::string fix;
  if (c.platform.backend == "cuda" || c.platform.backend == "rocm") {
    fix =
        "Remove the per-kernel launch cost: torch.compile(model, mode=\"reduce-overhead\") (CUDA/HIP "
        "graphs), "
        "or capture the decode step yourself with torch.cuda.CUDAGraph and a static KV cache (Hugging Face: "
        "generate(..., cache_implementation=\"static\") with torch.compile); serve several requests per step "
        "(larger batch: same launches, more tokens); or use a serving engine with graphs (vLLM, SGLang, "
        "TensorRT-LLM)";
  } else {
    fix =
        "Batch several sequences per step (same launches, more tokens), and fuse small ops with "
        "torch.compile "
        "where this backend supports it";
  }
  out.push_back(make_finding(
      "launch_bound_decode", warn ? Severity::warning : Severity::info, 40 + 40 * worst_idle,
      fmt::format("LLM decode is launch-bound: the device idles {} of each step", pct(100 * worst_idle)),
      evidence,
      "At small batch each decode step is hundreds of tiny kernels; the host cannot launch them as fast as "
      "the "
      "device runs them, so the GPU waits on Python and the driver.",
      fix, kRefGraphs));
}

void rule_small_batch(const Ctx& c, std::vector<Finding>& out) {
  static const std::regex kBatch("/b([0-9]+)/");
  struct Point {
    int batch;
    const Result* r;
  };
  std::map<std::string, std::vector<Point>> groups;
  for (const auto& r : c.report.results) {
    if ((r.kind != ResultKind::llm && r.kind != ResultKind::train) || !ok(r)) continue;
    std::smatch m;
    if (!std::regex_search(r.key, m, kBatch)) continue;
    const std::string group = m.prefix().str() + "/b*/" + m.suffix().str();
    groups[group].push_back({std::stoi(m[1].str()), &r});
  }
  const Point *lo_best = nullptr, *hi_best = nullptr;
  double best_gain = 0;
  std::string metric_name;
  for (auto& [g, pts] : groups) {
    if (pts.size() < 2) continue;
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.batch < b.batch; });
    const Point &lo = pts.front(), &hi = pts.back();
    if (lo.batch == hi.batch) continue;
    const std::string m = lo.r->metrics.count("samples_per_s") ? "samples_per_s" : "tokens_per_s";
    const double a = metric(*lo.r, m), b = metric(*hi.r, m);
    if (a <= 0 || b <= 0) continue;
    const double gain = b / a;
    const double efficiency = gain / (static_cast<double>(hi.batch) / lo.batch);
    if (gain >= kBatchGain && efficiency >= kBatchEfficiency && gain > best_gain) {
      best_gain = gain;
      lo_best = &lo;
      hi_best = &hi;
      metric_name = m;
    }
  }
  if (!lo_best) return;
  const std::string unit = metric_name == "samples_per_s" ? "samples/s" : "tokens/s";
  out.push_back(make_finding(
      "small_batch", Severity::info, std::min(35.0, 10 + 6 * std::log2(best_gain)),
      fmt::format("Batch {} under-uses the device: batch {} gives {} the throughput", lo_best->batch,
                  hi_best->batch, times(best_gain)),
      fmt::format("{}: {} {} at batch {}, {} {} at batch {} ({:.0f}% scaling efficiency)", lo_best->r->key,
                  rate(metric(*lo_best->r, metric_name), ""), unit, lo_best->batch,
                  rate(metric(*hi_best->r, metric_name), ""), unit, hi_best->batch,
                  100 * best_gain / (static_cast<double>(hi_best->batch) / lo_best->batch)),
      "A small batch reads the same weights for fewer tokens or samples: the device is bound by launches and "
      "weight reads, not by its compute.",
      "Raise the batch size as far as memory and latency allow (serve several requests together, gradient "
      "accumulation keeps the effective batch for training); watch peak memory with "
      "torch.cuda.max_memory_allocated()",
      kRefRoofline));
}

}  // namespace

std::vector<RuleEntry> perf_rules() {
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
