// Internal to the hardware peaks (core/peaks*.cpp), not a public header: the
// helpers their parts share. The parts:
//   peaks.cpp        dtypes, these helpers, the convenience functions
//   peaks_table.cpp  kb/gpus.json rows (GpuPeakTable) and their datasheet peaks
//   peaks_rates.cpp  kb/arch.json `peak_rates` (PeakRates): the per-architecture rates
//   peaks_gpu.cpp    GPU estimates from device properties x those rates (NVIDIA, AMD, Intel)
//   peaks_cpu.cpp    the CPU estimate
// Formulas and their sources: docs/roofline.md.
#pragma once

#include <string>
#include <string_view>

#include "core/json.hpp"
#include "core/peaks.hpp"

namespace accel::peaks_detail {

/// A number as it reads in a formula: "1980", "66.9", "0.256".
std::string num(double v);
/// A result with its unit; TFLOP/s below 1 reads better in GFLOP/s.
std::string rate(double value, const std::string& unit);
/// A peak of `unit` whose value is unknown, and why.
Peak unknown_peak(std::string unit, std::string why);
/// The estimate's common tail: "units x ... x clock = result".
Peak estimate(double value, const std::string& unit, const std::string& formula, double clock_mhz);
/// The text of the kb file `name` in `kb_dir`, its path in `path`; KbError
/// "cannot read kb file <path>" when it cannot be read.
std::string read_kb_file(const std::string& kb_dir, const char* name, std::string& path);
/// `text` as JSON; KbError "kb file <origin> is not valid JSON: ..." when it is not.
json parse_kb_json(const std::string& text, const std::string& origin);
/// "sm_90", "sm90", "sm_90a", "compute_90", "9.0", "90" -> 90; 0 when not one.
int parse_compute_capability(std::string_view arch);
/// Why an estimate is unknown when no rates were loaded (PeakRates::empty()).
inline constexpr const char* kNoRates =
    "the per-architecture rates (kb/arch.json peak_rates) were not loaded";

}  // namespace accel::peaks_detail
