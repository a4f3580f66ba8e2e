// Hardware peaks estimated from a GPU's properties: units x clock x the
// per-architecture rates of kb/arch.json `peak_rates` (NVIDIA by compute
// capability, AMD by gfx family, Intel by EU; PeakRates). Formulas and their
// sources: docs/roofline.md.
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

using peaks_detail::parse_compute_capability;

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

/// What every estimate needs: the device, its unit count and clock, and the
/// dtype asked for.
struct Ask {
  const PeakRates& rates;
  const GpuProperties& g;
  std::string dtype;
  std::string unit;
  std::string who;
  std::vector<std::string> missing;  ///< inputs the formula lacks

  Ask(const PeakRates& r, const GpuProperties& gpu, std::string d)
      : rates(r), g(gpu), dtype(std::move(d)), unit(peak_unit(dtype)) {
    who = g.name.empty() ? std::string("this GPU") : g.name;
    if (!g.multiprocessors || *g.multiprocessors <= 0) missing.emplace_back("multiprocessor count");
    if (!g.max_clock_mhz || !(*g.max_clock_mhz > 0) || !std::isfinite(*g.max_clock_mhz)) {
      missing.emplace_back("max clock");
    }
  }
  Peak lacking_inputs() const {
    std::string s;
    for (const auto& m : missing) s += (s.empty() ? "" : ", ") + m;
    return unknown_peak(unit, fmt::format("{}: cannot estimate without {}", who, s));
  }
  double units() const { return *g.multiprocessors; }
  double mhz() const { return *g.max_clock_mhz; }
};

// ---------------------------------------------------------------- NVIDIA

Peak nvidia_estimate(const Ask& a) {
  const int cc = parse_compute_capability(a.g.arch);
  const auto lanes = a.rates.nvidia_fp32_lanes_per_sm(a.g.arch);
  if (!lanes) {
    return unknown_peak(a.unit, fmt::format("{}: compute capability '{}' is not in the FP32 throughput table",
                                            a.who, a.g.arch));
  }
  if (!a.missing.empty()) return a.lacking_inputs();
  const double sms = a.units(), mhz = a.mhz();
  const std::string arch = fmt::format("sm_{}", cc);
  auto lanes_formula = [&](int n, const char* what, const std::string& source) {
    return estimate(sms * n * 2 * mhz / 1e6, a.unit,
                    fmt::format("{} SMs x {} {} lanes/SM ({}, {}) x 2 FLOP/FMA x {} MHz (max SM clock)",
                                num(sms), n, what, arch, source, num(mhz)),
                    mhz);
  };
  auto fp32 = [&] { return lanes_formula(*lanes, "FP32", a.rates.nvidia_fp32.source); };
  if (a.dtype == "fp32") return fp32();
  if (const NvidiaTensorRates* t = a.rates.nvidia_tensor_rates(cc)) {
    if (auto it = t->per_clock.find(a.dtype); it != t->per_clock.end()) {
      const std::string what = a.dtype == "int8" ? "int8 ops" : "FLOP";
      return estimate(
          sms * it->second * mhz / 1e6, a.unit,
          fmt::format("{} SMs x {} dense {} tensor-core {}/clock/SM ({}, {}) x {} MHz (max SM clock)",
                      num(sms), num(it->second), a.dtype, what, arch, t->source, num(mhz)),
          mhz);
    }
  }
  if (a.dtype == "fp64") {
    if (auto l64 = a.rates.nvidia_fp64_lanes_per_sm(cc))
      return lanes_formula(*l64, "FP64", a.rates.nvidia_fp64.source);
  }
  if (a.dtype == "tf32" && cc < 80) {
    Peak p = fp32();
    p.source = "no TF32 before sm_80: fp32 matmuls run in fp32; " + p.source;
    return p;
  }
  return unknown_peak(a.unit,
                      fmt::format("{}: no per-SM {} rate that holds for every {} product (GeForce and "
                                  "data-center parts differ); unknown",
                                  a.who, a.dtype, arch));
}

// ---------------------------------------------------------------- AMD

/// A gfx target with no family row: only fp32, as 64 lanes x 2 FLOP/FMA
/// per CU (the narrowest count of every GCN/RDNA/CDNA CU).
Peak amd_unknown_family(const Ask& a) {
  if (a.dtype != "fp32") {
    return unknown_peak(a.unit, fmt::format("{}: gfx target '{}' has no per-CU {} rate in accel-doctor",
                                            a.who, a.g.arch, a.dtype));
  }
  return estimate(a.units() * 128 * a.mhz() / 1e6, a.unit,
                  fmt::format("{} CUs x 64 lanes x 2 FLOP/FMA x {} MHz (max engine clock; gfx target '{}' "
                              "unknown: packed or dual-issue FP32, if any, not counted)",
                              num(a.units()), num(a.mhz()), a.g.arch.empty() ? "?" : a.g.arch),
                  a.mhz());
}

Peak amd_estimate(const Ask& a) {
  const AmdFamilyRates* fam = a.rates.amd_family(a.g.arch);
  if (!a.missing.empty()) return a.lacking_inputs();
  if (!fam) return amd_unknown_family(a);
  const double cus = a.units(), mhz = a.mhz();
  auto per_cu = [&](double per, const std::string& what, const std::string& how) {
    return estimate(cus * per * mhz / 1e6, a.unit,
                    fmt::format("{} CUs x {} {}/clock/CU ({} {}, {}) x {} MHz (max engine clock)", num(cus),
                                num(per), what, fam->family, how, fam->source, num(mhz)),
                    mhz);
  };
  const std::string& dtype = a.dtype;
  if (dtype == "fp32" || dtype == "tf32") {
    const bool matrix = fam->rate("fp32_matrix") > fam->rate("fp32");
    Peak p = matrix ? per_cu(fam->rate("fp32_matrix"), "FP32 FLOP", "matrix cores (MFMA)")
                    : per_cu(fam->rate("fp32"), "FP32 FLOP", fam->fp32_note);
    if (dtype == "tf32") {
      if (fam->rate("tf32") > 0) return per_cu(fam->rate("tf32"), "TF32 FLOP", "MFMA");
      p.source = fmt::format("no TF32 on {}: fp32 matmuls run in fp32; {}", fam->family, p.source);
    }
    return p;
  }
  if (dtype == "fp64") {
    const double vector = fam->rate("fp64"), matrix = fam->rate("fp64_matrix");
    if (std::max(vector, matrix) <= 0)
      return unknown_peak(a.unit, fmt::format("{}: no FP64 rate for {} in accel-doctor", a.who, fam->family));
    return per_cu(std::max(vector, matrix), "FP64 FLOP", matrix > vector ? "matrix cores" : "vector");
  }
  if (dtype == "fp16") return per_cu(fam->rate("fp16"), "FP16 FLOP", fam->fp16_how);
  if (dtype == "bf16") {
    if (fam->rate("bf16") > 0) return per_cu(fam->rate("bf16"), "BF16 FLOP", fam->fp16_how);
    Peak p = per_cu(fam->rate("fp32"), "FP32 FLOP", fam->fp32_note);
    p.emulated = true;
    p.source = fmt::format(
        "bf16 emulated on {} (no bf16 arithmetic; torch computes it in fp32), ceiling is the "
        "fp32 rate: {}",
        fam->family, p.source);
    return p;
  }
  // int8
  if (fam->rate("int8") <= 0)
    return unknown_peak(a.unit, fmt::format("{}: no int8 rate for {} in accel-doctor", a.who, fam->family));
  return per_cu(fam->rate("int8"), "int8 ops", fam->int8_how);
}

// ---------------------------------------------------------------- Intel

Peak intel_estimate(const Ask& a) {
  const auto lanes = a.rates.intel_lanes_per_eu(a.g.arch);
  if (a.dtype != "fp32" && a.dtype != "tf32") {
    return unknown_peak(
        a.unit, fmt::format("{}: no per-Xe-core {} (XMX) rate in accel-doctor; unknown", a.who, a.dtype));
  }
  if (!lanes)
    return unknown_peak(a.unit, fmt::format("{}: Intel architecture '{}' not known", a.who, a.g.arch));
  if (!a.missing.empty()) return a.lacking_inputs();
  const double eus = a.units(), mhz = a.mhz();
  return estimate(eus * *lanes * 2 * mhz / 1e6, "TFLOP/s",
                  fmt::format("{} EUs x {} FP32 lanes/EU ({}) x 2 FLOP/FMA x {} MHz (max clock)", num(eus),
                              *lanes, a.g.arch, num(mhz)),
                  mhz);
}

}  // namespace

// ---------------------------------------------------------------- GPU estimates

bool arch_has_tf32(std::string_view arch) {
  const std::string a = lower(arch);
  if (a == "gfx942" || a == "gfx950") return true;
  if (a.rfind("gfx", 0) == 0) return false;
  return parse_compute_capability(a) >= 80;
}

Peak compute_peak(const PeakRates& rates, const GpuProperties& g, std::string_view dtype_in) {
  const std::string dtype = normalize_peak_dtype(dtype_in);
  if (dtype.empty()) return unknown_peak("TFLOP/s", fmt::format("no compute peak for dtype '{}'", dtype_in));
  const Ask ask(rates, g, dtype);
  if (rates.empty())
    return unknown_peak(ask.unit, fmt::format("{}: no estimate: {}", ask.who, peaks_detail::kNoRates));
  const std::string vendor = infer_vendor(g);
  if (vendor == "nvidia") return nvidia_estimate(ask);
  if (vendor == "amd") return amd_estimate(ask);
  if (vendor == "intel") return intel_estimate(ask);
  return unknown_peak(ask.unit,
                      fmt::format("{}: vendor not known (arch '{}'), no estimate", ask.who, g.arch));
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
