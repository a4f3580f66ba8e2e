// The CPU's compute peak estimated from its properties: physical cores x max
// clock x FLOP/cycle/core, the rate chosen by the SIMD flags from the rows of
// kb/arch.json `peak_rates.cpu` (PeakRates). Formulas and their sources:
// docs/roofline.md.
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

namespace accel {

using peaks_detail::estimate;
using peaks_detail::num;
using peaks_detail::unknown_peak;

namespace {

/// The CPU's instruction-set family and flags, as the rows ask for them.
struct Isa {
  std::set<std::string> flags;
  bool x86 = false;
  bool arm = false;

  explicit Isa(const CpuProperties& cpu) : flags(cpu.simd.begin(), cpu.simd.end()) {
    const std::string a = lower(cpu.arch);
    x86 = a.find("x86") != std::string::npos || a.find("amd64") != std::string::npos ||
          a.find("i686") != std::string::npos || has("sse4_2") || has("sse2") || has("avx");
    arm = a.find("aarch64") != std::string::npos || a.find("arm64") != std::string::npos || has("asimd");
  }
  bool has(const std::string& flag) const { return flags.count(flag) > 0; }
  bool fits(const CpuRate& r) const {
    if (r.isa == "x86" && !x86) return false;
    if (r.isa == "arm" && !arm) return false;
    return std::all_of(r.needs.begin(), r.needs.end(), [&](const std::string& f) { return has(f); });
  }
};

/// A rate per cycle per core and how it was reached.
struct PerCycle {
  double value = 0;
  std::string how;
};

/// The first row of `dtype` the CPU fits; `fp32` is the fp32 rate the
/// `fp32_times` rows scale.
std::optional<PerCycle> first_fit(const PeakRates& rates, const std::string& dtype, const Isa& isa,
                                  const PerCycle* fp32) {
  const auto rows = rates.cpu.find(dtype);
  if (rows == rates.cpu.end()) return std::nullopt;
  for (const CpuRate& r : rows->second) {
    if (!isa.fits(r)) continue;
    const std::string how = fmt::format("{} ({})", r.how, fmt::join(r.sources, "; "));
    if (r.per_cycle > 0) return PerCycle{r.per_cycle, how};
    if (fp32) return PerCycle{r.fp32_times * fp32->value, how + "; " + fp32->how};
  }
  return std::nullopt;
}

}  // namespace

Peak compute_peak(const PeakRates& rates, const CpuProperties& cpu, std::string_view dtype_in) {
  const std::string dtype = normalize_peak_dtype(dtype_in);
  if (dtype.empty()) return unknown_peak("TFLOP/s", fmt::format("no compute peak for dtype '{}'", dtype_in));
  const std::string unit = peak_unit(dtype);
  if (!cpu.physical_cores || *cpu.physical_cores <= 0) {
    return unknown_peak(unit, "CPU: physical core count not known, no estimate");
  }
  if (!cpu.max_clock_mhz || !(*cpu.max_clock_mhz > 0) || !std::isfinite(*cpu.max_clock_mhz)) {
    return unknown_peak(unit, "CPU: max clock not known, no estimate");
  }
  if (rates.empty()) return unknown_peak(unit, std::string("CPU: no estimate: ") + peaks_detail::kNoRates);
  const Isa isa(cpu);
  const auto fp32 = first_fit(rates, "fp32", isa, nullptr);
  if (!fp32)
    return unknown_peak(unit, fmt::format("CPU: no SIMD flags known for arch '{}', no estimate", cpu.arch));

  PerCycle rate = *fp32;
  bool emulated = false;
  std::string prefix;
  if (dtype == "tf32") {
    prefix = "no TF32 on CPUs: fp32 matmuls run in fp32; ";
  } else if (dtype != "fp32") {
    if (auto r = first_fit(rates, dtype, isa, &*fp32)) {
      rate = *r;
    } else if (dtype == "int8") {
      return unknown_peak(unit,
                          "CPU: no int8 dot-product instructions (VNNI/AMX) in the SIMD flags, no estimate");
    } else if (dtype == "fp64") {
      return unknown_peak(unit, "CPU: no fp64 rate in kb/arch.json peak_rates, no estimate");
    } else {  // bf16, fp16: torch computes them in fp32
      emulated = true;
      prefix = fmt::format("no {} {}: torch computes {} in fp32, ceiling is the fp32 rate; ", dtype,
                           dtype == "bf16" ? "instructions" : "arithmetic", dtype);
    }
  }

  const double cores = *cpu.physical_cores, mhz = *cpu.max_clock_mhz;
  const double value = cores * mhz * 1e6 * rate.value / 1e12;
  const std::string what = dtype == "int8" ? "int8 ops" : dtype + " FLOP";
  Peak p =
      estimate(value, unit,
               fmt::format("{}{} physical cores x {} MHz (max clock; all-core and AVX-512 clocks are lower, "
                           "so this is an upper bound) x {} {}/cycle/core ({})",
                           prefix, num(cores), num(mhz), num(rate.value), what, rate.how),
               mhz);
  p.emulated = emulated;
  return p;
}

}  // namespace accel
