// Hardware peaks: the dtypes, the helpers the parts share and the
// convenience functions (a table row when there is one, else an estimate).
// The parts are listed in core/peaks_detail.hpp; formulas and their sources:
// docs/roofline.md.
#include "core/peaks.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/kb.hpp"
#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

namespace accel::peaks_detail {

/// A number as it reads in a formula: "1980", "66.9", "0.256".
std::string num(double v) { return fmt::format("{:.6g}", v); }

/// A result with its unit; TFLOP/s below 1 reads better in GFLOP/s.
std::string rate(double value, const std::string& unit) {
  if (unit == "TFLOP/s" && value > 0 && value < 1) return fmt::format("{:.4g} GFLOP/s", value * 1e3);
  if (unit == "TOPS" && value > 0 && value < 1) return fmt::format("{:.4g} GOPS", value * 1e3);
  return fmt::format("{:.4g} {}", value, unit);
}

Peak unknown_peak(std::string unit, std::string why) {
  Peak p;
  p.unit = std::move(unit);
  p.basis = "unknown";
  p.source = std::move(why);
  return p;
}

std::string read_kb_file(const std::string& kb_dir, const char* name, std::string& path) {
  path = (std::filesystem::path(kb_dir) / name).string();
  auto text = read_file(path);
  if (!text) throw KbError(fmt::format("cannot read kb file {}", path));
  return std::move(*text);
}

json parse_kb_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw KbError(fmt::format("kb file {} is not valid JSON: {}", origin, e.what()));
  }
}

/// The estimate's common tail: "units x ... x clock = result".
Peak estimate(double value, const std::string& unit, const std::string& formula, double clock_mhz) {
  Peak p;
  p.value = value;
  p.unit = unit;
  p.basis = "estimated";
  p.source = fmt::format("{} = {}", formula, rate(value, unit));
  p.clock_mhz = clock_mhz;
  return p;
}

}  // namespace accel::peaks_detail

namespace accel {

using peaks_detail::estimate;
using peaks_detail::num;
using peaks_detail::rate;
using peaks_detail::unknown_peak;

std::string normalize_peak_dtype(std::string_view dtype) {
  std::string d = lower(dtype);
  if (d.rfind("torch.", 0) == 0) d = d.substr(6);
  if (d == "fp64" || d == "float64" || d == "double" || d == "f64") return "fp64";
  if (d == "fp32" || d == "float32" || d == "float" || d == "f32") return "fp32";
  if (d == "tf32") return "tf32";
  if (d == "fp16" || d == "float16" || d == "half" || d == "f16") return "fp16";
  if (d == "bf16" || d == "bfloat16") return "bf16";
  if (d == "int8" || d == "i8" || d == "uint8" || d == "u8" || d == "qint8" || d == "quint8") return "int8";
  return "";
}

std::string peak_unit(std::string_view dtype) {
  return normalize_peak_dtype(dtype) == "int8" ? "TOPS" : "TFLOP/s";
}

Peak device_compute_peak(const GpuPeakTable& table, const GpuProperties& gpu, std::string_view dtype) {
  const auto row = table.lookup(gpu.name, gpu.arch, DeviceHints{gpu.multiprocessors, gpu.memory_bytes});
  if (!row) return compute_peak(table.rates(), gpu, dtype);
  Peak p = compute_peak(*row, dtype);
  if (p.known()) return p;
  Peak e = compute_peak(table.rates(), gpu, dtype);
  if (e.known()) {
    e.source = fmt::format("{} (no datasheet figure: {})", e.source, p.source);
    return e;
  }
  return p;
}

Peak device_bandwidth_peak(const GpuPeakTable& table, const GpuProperties& gpu) {
  const auto row = table.lookup(gpu.name, gpu.arch, DeviceHints{gpu.multiprocessors, gpu.memory_bytes});
  if (row) {
    Peak p = memory_bandwidth_peak(*row);
    if (p.known()) return p;
  }
  return memory_bandwidth_peak(gpu);
}

Peak measured_peak(double value, std::string unit, std::string how) {
  if (!(value > 0) || !std::isfinite(value))
    return unknown_peak(std::move(unit), "measurement gave no positive figure: " + how);
  Peak p;
  p.value = value;
  p.unit = std::move(unit);
  p.basis = "measured";
  p.source = std::move(how);
  return p;
}

Peak scale_peak_to_clock(const Peak& peak, double actual_mhz) {
  if (!peak.known() || !(peak.clock_mhz > 0) || !(actual_mhz > 0) || !std::isfinite(actual_mhz)) return peak;
  Peak p = peak;
  p.value = peak.value * actual_mhz / peak.clock_mhz;
  p.basis = "estimated";
  p.clock_mhz = actual_mhz;
  p.source =
      fmt::format("{} x {} MHz / {} MHz = {} (rescaled from {}: {})", rate(peak.value, peak.unit),
                  num(actual_mhz), num(peak.clock_mhz), rate(p.value, p.unit), peak.basis, peak.source);
  return p;
}

}  // namespace accel
