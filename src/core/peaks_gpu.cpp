// Hardware peaks estimated from a GPU's properties: per-architecture lanes
// (NVIDIA by compute capability, AMD by gfx family, Intel by EU) x units x
// clock. Formulas and their sources: docs/roofline.md.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

namespace accel {

using peaks_detail::estimate;
using peaks_detail::num;
using peaks_detail::rate;
using peaks_detail::unknown_peak;

namespace {

// ---------------------------------------------------------------- NVIDIA tables

/// "sm_90", "sm90", "sm_90a", "compute_90", "9.0", "90" -> 90; 0 when not one.
int parse_compute_capability(std::string_view arch) {
  std::string s = lower(arch);
  for (const char* prefix : {"sm_", "sm", "compute_"}) {
    if (s.rfind(prefix, 0) == 0) {
      s = s.substr(std::string_view(prefix).size());
      break;
    }
  }
  const auto dot = s.find('.');
  auto digits = [](std::string_view t) {
    int v = 0, n = 0;
    for (char c : t) {
      if (!std::isdigit(static_cast<unsigned char>(c))) break;
      v = v * 10 + (c - '0');
      ++n;
    }
    return n == 0 ? -1 : v;
  };
  if (dot != std::string::npos) {
    const int major = digits(std::string_view(s).substr(0, dot));
    const int minor = digits(std::string_view(s).substr(dot + 1));
    if (major < 0 || minor < 0 || minor > 9) return 0;
    return major * 10 + minor;
  }
  const int cc = digits(s);
  return cc < 10 ? 0 : cc;
}

/// Per-SM rates of the tensor cores, dense, FLOP (or int8 ops) per clock,
/// where one is justified for every product of the architecture:
///   sm_70: V100 whitepaper, 8 tensor cores x 64 FP16 FMA per SM (FP32 accumulate at full rate)
///   sm_80: A100 whitepaper, 1024 FP16/BF16 FMA, 512 TF32 FMA, 2048 INT8 MAC, 64 FP64 FMA per SM
///   sm_90: H100 whitepaper, twice the A100 SM's dense MMA rate clock for clock
/// sm_75/86/89/120 are left out: GeForce parts run FP32 accumulate at half
/// the rate of the data-center parts of the same architecture, so no single
/// per-SM figure is right.
std::optional<double> nvidia_tensor_per_sm(int cc, const std::string& dtype, std::string* basis) {
  struct Rate {
    int cc;
    const char* dtype;
    double per_clock;
  };
  static const Rate kRates[] = {
      {70, "fp16", 1024}, {80, "fp16", 2048}, {80, "bf16", 2048}, {80, "tf32", 1024},
      {80, "int8", 4096}, {80, "fp64", 128},  {90, "fp16", 4096}, {90, "bf16", 4096},
      {90, "tf32", 2048}, {90, "int8", 8192}, {90, "fp64", 256},
  };
  for (const auto& r : kRates) {
    if (r.cc == cc && dtype == r.dtype) {
      *basis = cc == 70   ? "NVIDIA Tesla V100 GPU architecture whitepaper"
               : cc == 80 ? "NVIDIA A100 Tensor Core GPU architecture whitepaper"
                          : "NVIDIA H100 Tensor Core GPU architecture whitepaper";
      return r.per_clock;
    }
  }
  return std::nullopt;
}

/// FP64 results per clock per SM (CUDA C++ Programming Guide, Arithmetic
/// Instructions), only where FP64 is a meaningful ceiling (1/2 of FP32).
std::optional<int> nvidia_fp64_lanes_per_sm(int cc) {
  switch (cc) {
    case 60:
    case 70:
    case 80:
      return 32;
    case 90:
      return 64;
    default:
      return std::nullopt;
  }
}

// ---------------------------------------------------------------- AMD tables

struct AmdFamily {
  const char* name;
  double fp32;         ///< vector FP32 FLOP/clock/CU (with dual-issue / packed where AMD counts it)
  double fp32_matrix;  ///< 0: none
  double fp64;
  double fp64_matrix;
  double tf32;
  double fp16;
  double bf16;  ///< 0: none (emulated in fp32)
  double int8;
  const char* fp32_note;
  const char* fp16_how;
  const char* int8_how;
  const char* source;
};

/// Per-CU rates (FLOP or int8 ops per clock per CU, dense) of each gfx family.
std::optional<AmdFamily> amd_family(std::string_view arch) {
  const std::string a = lower(arch);
  auto starts = [&](const char* p) { return a.rfind(p, 0) == 0; };
  static const char* kRdnaSource =
      "AMD GPUOpen, 'Using the Matrix Cores of AMD RDNA 4 architecture GPUs' (FLOPS/clock/CU table)";
  static const char* kCdnaSource =
      "AMD lab notes 'AMD matrix cores' (FLOPS/clock/CU tables) and the AMD Instinct specifications";
  if (starts("gfx101")) {
    return AmdFamily{
        "RDNA1", 128,        0, 0, 0, 0, 256, 0, 0, "64 lanes x 2 FLOP/FMA", "packed math, no matrix units",
        "",      kRdnaSource};
  }
  if (starts("gfx103")) {
    return AmdFamily{"RDNA2",
                     128,
                     0,
                     0,
                     0,
                     0,
                     256,
                     0,
                     512,
                     "64 lanes x 2 FLOP/FMA",
                     "packed math, no matrix units",
                     "v_dot4_i32_i8 dot instructions",
                     kRdnaSource};
  }
  if (starts("gfx11")) {
    return AmdFamily{
        "RDNA3",    256,
        0,          0,
        0,          0,
        512,        512,
        512,        "64 lanes x 2 FLOP/FMA x 2 (RDNA3 dual-issue; single-issue code reaches half)",
        "WMMA",     "WMMA",
        kRdnaSource};
  }
  if (starts("gfx12")) {
    return AmdFamily{"RDNA4",    256,
                     0,          0,
                     0,          0,
                     1024,       1024,
                     2048,       "64 lanes x 2 FLOP/FMA x 2 (dual-issue; single-issue code reaches half)",
                     "WMMA",     "WMMA",
                     kRdnaSource};
  }
  if (a == "gfx908") {
    return AmdFamily{"CDNA1", 128,    256,        64, 0, 0, 1024, 512, 1024, "64 lanes x 2 FLOP/FMA",
                     "MFMA",  "MFMA", kCdnaSource};
  }
  if (a == "gfx90a") {
    return AmdFamily{"CDNA2", 128,    256,        128, 256, 0, 1024, 1024, 1024, "64 lanes x 2 FLOP/FMA",
                     "MFMA",  "MFMA", kCdnaSource};
  }
  if (a == "gfx940" || a == "gfx941" || a == "gfx942") {
    return AmdFamily{"CDNA3",    256,
                     256,        128,
                     256,        1024,
                     2048,       2048,
                     4096,       "64 lanes x 2 FLOP/FMA x 2 (packed FP32, as AMD counts its vector peak)",
                     "MFMA",     "MFMA",
                     kCdnaSource};
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- Intel

/// FP32 lanes per EU/XVE of an Intel GPU architecture name.
std::optional<int> intel_lanes_per_eu(std::string_view arch) {
  if (contains_ci(arch, "xe2") || contains_ci(arch, "bmg") || contains_ci(arch, "battlemage") ||
      contains_ci(arch, "lnl") || contains_ci(arch, "xe-hpc") || contains_ci(arch, "pvc")) {
    return 16;
  }
  if (contains_ci(arch, "xe-hpg") || contains_ci(arch, "dg2") || contains_ci(arch, "alchemist") ||
      contains_ci(arch, "acm") || contains_ci(arch, "xe-lp") || contains_ci(arch, "xe-lpg")) {
    return 8;
  }
  return std::nullopt;
}

std::string infer_vendor(const GpuProperties& g) {
  if (!g.vendor.empty()) return lower(g.vendor);
  const std::string a = lower(g.arch);
  if (a.rfind("sm", 0) == 0 || a.rfind("compute_", 0) == 0) return "nvidia";
  if (a.rfind("gfx", 0) == 0) return "amd";
  if (contains_ci(a, "xe")) return "intel";
  if (contains_ci(g.name, "nvidia") || contains_ci(g.name, "geforce") || contains_ci(g.name, "tesla"))
    return "nvidia";
  if (contains_ci(g.name, "amd") || contains_ci(g.name, "radeon") || contains_ci(g.name, "instinct"))
    return "amd";
  if (contains_ci(g.name, "intel") || contains_ci(g.name, "arc")) return "intel";
  return "";
}

}  // namespace

// ---------------------------------------------------------------- GPU estimates

bool arch_has_tf32(std::string_view arch) {
  const std::string a = lower(arch);
  if (a == "gfx942" || a == "gfx950") return true;
  if (a.rfind("gfx", 0) == 0) return false;
  return parse_compute_capability(a) >= 80;
}

std::optional<int> nvidia_fp32_lanes_per_sm(std::string_view arch) {
  switch (parse_compute_capability(arch)) {
    case 50:
    case 52:
    case 53:
    case 61:
    case 62:
    case 86:
    case 87:
    case 89:
    case 90:
    case 100:
    case 103:
    case 120:
    case 121:
      return 128;
    case 60:
    case 70:
    case 72:
    case 75:
    case 80:
      return 64;
    default:
      return std::nullopt;
  }
}

Peak compute_peak(const GpuProperties& g, std::string_view dtype_in) {
  const std::string dtype = normalize_peak_dtype(dtype_in);
  if (dtype.empty()) return unknown_peak("TFLOP/s", fmt::format("no compute peak for dtype '{}'", dtype_in));
  const std::string unit = peak_unit(dtype);
  const std::string vendor = infer_vendor(g);
  const std::string who = g.name.empty() ? std::string("this GPU") : g.name;

  std::vector<std::string> missing;
  if (!g.multiprocessors || *g.multiprocessors <= 0) missing.emplace_back("multiprocessor count");
  if (!g.max_clock_mhz || !(*g.max_clock_mhz > 0) || !std::isfinite(*g.max_clock_mhz)) {
    missing.emplace_back("max clock");
  }
  auto missing_text = [&] {
    std::string s;
    for (const auto& m : missing) s += (s.empty() ? "" : ", ") + m;
    return s;
  };

  if (vendor == "nvidia") {
    const int cc = parse_compute_capability(g.arch);
    const auto lanes = nvidia_fp32_lanes_per_sm(g.arch);
    if (!lanes) {
      return unknown_peak(
          unit, fmt::format("{}: compute capability '{}' is not in the FP32 throughput table", who, g.arch));
    }
    if (!missing.empty())
      return unknown_peak(unit, fmt::format("{}: cannot estimate without {}", who, missing_text()));
    const double sms = *g.multiprocessors, mhz = *g.max_clock_mhz;
    const std::string arch = fmt::format("sm_{}", cc);
    auto fp32 = [&] {
      return estimate(sms * *lanes * 2 * mhz / 1e6, "TFLOP/s",
                      fmt::format("{} SMs x {} FP32 lanes/SM ({}, CUDA C++ Programming Guide, Arithmetic "
                                  "Instructions) x 2 FLOP/FMA x {} MHz (max SM clock)",
                                  num(sms), *lanes, arch, num(mhz)),
                      mhz);
    };
    if (dtype == "fp32") return fp32();
    std::string wp;
    if (auto per = nvidia_tensor_per_sm(cc, dtype, &wp)) {
      const std::string what = dtype == "int8" ? "int8 ops" : "FLOP";
      return estimate(
          sms * *per * mhz / 1e6, unit,
          fmt::format("{} SMs x {} dense {} tensor-core {}/clock/SM ({}, {}) x {} MHz (max SM clock)",
                      num(sms), num(*per), dtype, what, arch, wp, num(mhz)),
          mhz);
    }
    if (dtype == "fp64") {
      if (auto l64 = nvidia_fp64_lanes_per_sm(cc)) {
        return estimate(sms * *l64 * 2 * mhz / 1e6, unit,
                        fmt::format("{} SMs x {} FP64 lanes/SM ({}, CUDA C++ Programming Guide, Arithmetic "
                                    "Instructions) x 2 FLOP/FMA x {} MHz (max SM clock)",
                                    num(sms), *l64, arch, num(mhz)),
                        mhz);
      }
    }
    if (dtype == "tf32" && (cc < 80)) {
      Peak p = fp32();
      p.source = "no TF32 before sm_80: fp32 matmuls run in fp32; " + p.source;
      return p;
    }
    return unknown_peak(unit,
                        fmt::format("{}: no per-SM {} rate that holds for every {} product (GeForce and "
                                    "data-center parts differ); unknown",
                                    who, dtype, arch));
  }

  if (vendor == "amd") {
    const auto fam = amd_family(g.arch);
    if (!missing.empty())
      return unknown_peak(unit, fmt::format("{}: cannot estimate without {}", who, missing_text()));
    const double cus = *g.multiprocessors, mhz = *g.max_clock_mhz;
    if (!fam) {
      if (dtype != "fp32") {
        return unknown_peak(unit, fmt::format("{}: gfx target '{}' has no per-CU {} rate in accel-doctor",
                                              who, g.arch, dtype));
      }
      return estimate(
          cus * 128 * mhz / 1e6, unit,
          fmt::format("{} CUs x 64 lanes x 2 FLOP/FMA x {} MHz (max engine clock; gfx target '{}' "
                      "unknown: packed or dual-issue FP32, if any, not counted)",
                      num(cus), num(mhz), g.arch.empty() ? "?" : g.arch),
          mhz);
    }
    auto per_cu = [&](double per, const std::string& what, const std::string& how) {
      return estimate(cus * per * mhz / 1e6, unit,
                      fmt::format("{} CUs x {} {}/clock/CU ({} {}, {}) x {} MHz (max engine clock)", num(cus),
                                  num(per), what, fam->name, how, fam->source, num(mhz)),
                      mhz);
    };
    if (dtype == "fp32" || dtype == "tf32") {
      const bool matrix = fam->fp32_matrix > fam->fp32;
      Peak p = matrix ? per_cu(fam->fp32_matrix, "FP32 FLOP", "matrix cores (MFMA)")
                      : per_cu(fam->fp32, "FP32 FLOP", fam->fp32_note);
      if (dtype == "tf32") {
        if (fam->tf32 > 0) return per_cu(fam->tf32, "TF32 FLOP", "MFMA");
        p.source = fmt::format("no TF32 on {}: fp32 matmuls run in fp32; {}", fam->name, p.source);
      }
      return p;
    }
    if (dtype == "fp64") {
      const double r = std::max(fam->fp64, fam->fp64_matrix);
      if (r <= 0)
        return unknown_peak(unit, fmt::format("{}: no FP64 rate for {} in accel-doctor", who, fam->name));
      return per_cu(r, "FP64 FLOP", fam->fp64_matrix > fam->fp64 ? "matrix cores" : "vector");
    }
    if (dtype == "fp16") {
      return per_cu(fam->fp16, "FP16 FLOP", fam->fp16_how);
    }
    if (dtype == "bf16") {
      if (fam->bf16 > 0) return per_cu(fam->bf16, "BF16 FLOP", fam->fp16_how);
      Peak p = per_cu(fam->fp32, "FP32 FLOP", fam->fp32_note);
      p.emulated = true;
      p.source = fmt::format(
          "bf16 emulated on {} (no bf16 arithmetic; torch computes it in fp32), ceiling is the "
          "fp32 rate: {}",
          fam->name, p.source);
      return p;
    }
    if (dtype == "int8") {
      if (fam->int8 <= 0)
        return unknown_peak(unit, fmt::format("{}: no int8 rate for {} in accel-doctor", who, fam->name));
      return per_cu(fam->int8, "int8 ops", fam->int8_how);
    }
  }

  if (vendor == "intel") {
    const auto lanes = intel_lanes_per_eu(g.arch);
    if (dtype != "fp32" && dtype != "tf32") {
      return unknown_peak(
          unit, fmt::format("{}: no per-Xe-core {} (XMX) rate in accel-doctor; unknown", who, dtype));
    }
    if (!lanes) return unknown_peak(unit, fmt::format("{}: Intel architecture '{}' not known", who, g.arch));
    if (!missing.empty())
      return unknown_peak(unit, fmt::format("{}: cannot estimate without {}", who, missing_text()));
    const double eus = *g.multiprocessors, mhz = *g.max_clock_mhz;
    return estimate(eus * *lanes * 2 * mhz / 1e6, "TFLOP/s",
                    fmt::format("{} EUs x {} FP32 lanes/EU ({}) x 2 FLOP/FMA x {} MHz (max clock)", num(eus),
                                *lanes, g.arch, num(mhz)),
                    mhz);
  }

  return unknown_peak(unit, fmt::format("{}: vendor not known (arch '{}'), no estimate", who, g.arch));
}

Peak memory_bandwidth_peak(const GpuProperties& g) {
  const std::string who = g.name.empty() ? std::string("this GPU") : g.name;
  const bool clock_ok = g.memory_clock_mhz && *g.memory_clock_mhz > 0 && std::isfinite(*g.memory_clock_mhz);
  const bool width_ok = g.memory_bus_width_bits && *g.memory_bus_width_bits > 0;
  const bool rate_ok = g.memory_transfers_per_clock > 0 && std::isfinite(g.memory_transfers_per_clock);
  if (!clock_ok || !width_ok || !rate_ok) {
    return unknown_peak("GB/s", fmt::format("{}: no bandwidth estimate without {}", who,
                                            !clock_ok ? "the memory clock" : "the memory bus width"));
  }
  const double gbps =
      *g.memory_clock_mhz * 1e6 * g.memory_transfers_per_clock * *g.memory_bus_width_bits / 8 / 1e9;
  return estimate(
      gbps, "GB/s",
      fmt::format("{} MHz memory clock x {} transfers/clock x {}-bit bus / 8 bits/byte",
                  num(*g.memory_clock_mhz), num(g.memory_transfers_per_clock), *g.memory_bus_width_bits),
      0);
}

}  // namespace accel
