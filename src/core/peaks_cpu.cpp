// The CPU's compute peak estimated from its properties (cores, SIMD width,
// FMA units, clock). Formulas and their sources: docs/roofline.md.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

namespace accel {

using peaks_detail::estimate;
using peaks_detail::num;
using peaks_detail::rate;
using peaks_detail::unknown_peak;

Peak compute_peak(const CpuProperties& cpu, std::string_view dtype_in) {
  const std::string dtype = normalize_peak_dtype(dtype_in);
  if (dtype.empty()) return unknown_peak("TFLOP/s", fmt::format("no compute peak for dtype '{}'", dtype_in));
  const std::string unit = peak_unit(dtype);
  if (!cpu.physical_cores || *cpu.physical_cores <= 0) {
    return unknown_peak(unit, "CPU: physical core count not known, no estimate");
  }
  if (!cpu.max_clock_mhz || !(*cpu.max_clock_mhz > 0) || !std::isfinite(*cpu.max_clock_mhz)) {
    return unknown_peak(unit, "CPU: max clock not known, no estimate");
  }
  const std::set<std::string> f(cpu.simd.begin(), cpu.simd.end());
  auto has = [&](const char* flag) { return f.count(flag) > 0; };
  const std::string a = lower(cpu.arch);
  const bool x86 = a.find("x86") != std::string::npos || a.find("amd64") != std::string::npos ||
                   a.find("i686") != std::string::npos || has("sse4_2") || has("sse2") || has("avx");
  const bool arm =
      a.find("aarch64") != std::string::npos || a.find("arm64") != std::string::npos || has("asimd");

  static const char* kIntelManual = "Intel 64 and IA-32 Architectures Optimization Reference Manual";
  static const char* kAmdManual = "AMD Software Optimization Guide for AMD Family 19h/1Ah processors";

  // FP32 FLOP per cycle per core and how it was reached.
  double fp32 = 0;
  std::string fp32_how;
  if (has("avx512f")) {
    fp32 = 64;
    fp32_how = fmt::format(
        "AVX-512: 2 FMA units x 16 fp32 lanes x 2 FLOP/FMA; two 512-bit FMA units is an assumption: some "
        "parts "
        "have one (Xeon Bronze/Silver before Ice Lake, client Ice/Tiger Lake) and Zen 4 splits 512-bit ops "
        "into "
        "two 256-bit halves, both giving 32 ({}; {})",
        kIntelManual, kAmdManual);
  } else if (has("avx2") && has("fma")) {
    fp32 = 32;
    fp32_how =
        fmt::format("AVX2+FMA: 2 FMA units x 8 fp32 lanes x 2 FLOP/FMA ({}; {})", kIntelManual, kAmdManual);
  } else if (has("avx")) {
    fp32 = 16;
    fp32_how =
        fmt::format("AVX without FMA: one 8-lane add + one 8-lane multiply per cycle ({})", kIntelManual);
  } else if (x86) {
    fp32 = 8;
    fp32_how = fmt::format("SSE: one 4-lane add + one 4-lane multiply per cycle ({})", kIntelManual);
  } else if (arm) {
    fp32 = 16;
    fp32_how =
        "NEON: 2 x 128-bit FMA pipes x 4 fp32 lanes x 2 FLOP/FMA; the pipe count is an assumption "
        "(Cortex-A76 / "
        "Neoverse N1 class; wider cores have 4, smaller ones 1)";
  } else {
    return unknown_peak(unit, fmt::format("CPU: no SIMD flags known for arch '{}', no estimate", cpu.arch));
  }

  double per_cycle = fp32;
  std::string how = fp32_how;
  bool emulated = false;
  std::string prefix;
  if (dtype == "fp64") {
    per_cycle = fp32 / 2;
    how = "fp64 = half the fp32 lanes; " + fp32_how;
  } else if (dtype == "tf32") {
    prefix = "no TF32 on CPUs: fp32 matmuls run in fp32; ";
  } else if (dtype == "bf16") {
    if (has("amx_bf16")) {
      per_cycle = 1024;
      how = fmt::format(
          "AMX: one TMUL unit, TDPBF16PS 16x16x32 tile product (8192 bf16 MACs) every 16 cycles = "
          "1024 bf16 FLOP/cycle ({})",
          kIntelManual);
    } else if (has("avx512_bf16")) {
      per_cycle = 2 * fp32;
      how = "avx512_bf16: VDPBF16PS does 2 bf16 MACs per fp32 lane = 2x the fp32 rate; " + fp32_how;
    } else {
      emulated = true;
      prefix = "no bf16 instructions: torch computes bf16 in fp32, ceiling is the fp32 rate; ";
    }
  } else if (dtype == "fp16") {
    if (has("amx_fp16")) {
      per_cycle = 1024;
      how = fmt::format("AMX-FP16: one TMUL unit, TDPFP16PS at 1024 fp16 FLOP/cycle ({})", kIntelManual);
    } else if (has("avx512_fp16")) {
      per_cycle = 2 * fp32;
      how = "avx512_fp16: 32 fp16 lanes per 512-bit FMA = 2x the fp32 rate; " + fp32_how;
    } else if (arm && has("asimdhp")) {
      per_cycle = 2 * fp32;
      how = "NEON fp16 (asimdhp): 8 fp16 lanes per 128-bit FMA = 2x the fp32 rate; " + fp32_how;
    } else {
      emulated = true;
      prefix = "no fp16 arithmetic: torch computes fp16 in fp32, ceiling is the fp32 rate; ";
    }
  } else if (dtype == "int8") {
    if (has("amx_int8")) {
      per_cycle = 2048;
      how = fmt::format(
          "AMX: TDPBSSD 16x16x64 tile product (16384 int8 MACs) every 16 cycles = 2048 int8 "
          "ops/cycle ({})",
          kIntelManual);
    } else if (has("avx512_vnni")) {
      per_cycle = 256;
      how = fmt::format(
          "AVX512-VNNI: VPDPBUSD 64 int8 MACs per 512-bit op x 2 units (assumed) x 2 ops/MAC ({})",
          kIntelManual);
    } else if (has("avx_vnni")) {
      per_cycle = 128;
      how = fmt::format("AVX-VNNI: VPDPBUSD 32 int8 MACs per 256-bit op x 2 units x 2 ops/MAC ({})",
                        kIntelManual);
    } else {
      return unknown_peak(unit,
                          "CPU: no int8 dot-product instructions (VNNI/AMX) in the SIMD flags, no estimate");
    }
  }

  const double cores = *cpu.physical_cores, mhz = *cpu.max_clock_mhz;
  const double value = cores * mhz * 1e6 * per_cycle / 1e12;
  const std::string what = dtype == "int8" ? "int8 ops" : dtype + " FLOP";
  Peak p =
      estimate(value, unit,
               fmt::format("{}{} physical cores x {} MHz (max clock; all-core and AVX-512 clocks are lower, "
                           "so this is an upper bound) x {} {}/cycle/core ({})",
                           prefix, num(cores), num(mhz), num(per_cycle), what, how),
               mhz);
  p.emulated = emulated;
  return p;
}

}  // namespace accel
