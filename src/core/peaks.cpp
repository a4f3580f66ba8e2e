// Hardware peaks: kb/gpus.json rows, estimates from device properties, the
// CPU estimate. Formulas and their sources: docs/roofline.md.
#include "core/peaks.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/json.hpp"
#include "core/kb.hpp"
#include "core/strings.hpp"

namespace accel {

namespace {

// ---------------------------------------------------------------- small helpers

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

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

const std::set<std::string>& row_peak_keys() {
  static const std::set<std::string> keys = {"fp64", "fp64_matrix", "fp32", "fp32_matrix",
                                             "tf32", "fp16",        "bf16", "int8"};
  return keys;
}

bool is_dtype(std::string_view d) {
  for (const char* k : kPeakDtypes) {
    if (d == k) return true;
  }
  return false;
}

std::string row_source(const GpuPeakRow& row) {
  return fmt::format("{}, {} ({})", row.source_title, row.source_url, row.name);
}

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

// ---------------------------------------------------------------- table loading

double positive_number(const json& v, const std::string& where) {
  if (!v.is_number()) throw KbError(fmt::format("{}: expected a number", where));
  const double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0) throw KbError(fmt::format("{}: expected a positive number", where));
  return d;
}

std::string required_string(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || !row.at(key).is_string() || row.at(key).get<std::string>().empty()) {
    throw KbError(fmt::format("{}: missing or empty string '{}'", where, key));
  }
  return row.at(key).get<std::string>();
}

std::optional<double> optional_positive(const json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || row.at(key).is_null()) return std::nullopt;
  return positive_number(row.at(key), fmt::format("{}: '{}'", where, key));
}

}  // namespace

// ---------------------------------------------------------------- dtypes

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

// ---------------------------------------------------------------- GpuPeakTable

struct GpuPeakTable::Impl {
  std::vector<GpuPeakRow> rows;
  std::vector<std::vector<std::unique_ptr<RE2>>> patterns;  ///< parallel to rows
};

GpuPeakTable::GpuPeakTable() : impl_(std::make_unique<Impl>()) {}
GpuPeakTable::~GpuPeakTable() = default;
GpuPeakTable::GpuPeakTable(GpuPeakTable&&) noexcept = default;
GpuPeakTable& GpuPeakTable::operator=(GpuPeakTable&&) noexcept = default;

const std::vector<GpuPeakRow>& GpuPeakTable::rows() const { return impl_->rows; }

GpuPeakTable GpuPeakTable::load(const std::string& kb_dir) {
  const auto path = std::filesystem::path(kb_dir) / "gpus.json";
  const auto text = read_file(path);
  if (!text) throw KbError(fmt::format("cannot read kb file {}", path.string()));
  return parse(*text, path.string());
}

GpuPeakTable GpuPeakTable::parse(const std::string& text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw KbError(fmt::format("kb file {} is not valid JSON: {}", origin, e.what()));
  }
  if (!doc.is_object() || !doc.contains("gpus") || !doc.at("gpus").is_array()) {
    throw KbError(fmt::format("kb file {}: expected an object with a 'gpus' array", origin));
  }
  GpuPeakTable table;
  std::set<std::string> ids;
  std::size_t index = 0;
  for (const auto& r : doc.at("gpus")) {
    const std::string at = fmt::format("kb file {}: gpus[{}]", origin, index++);
    if (!r.is_object()) throw KbError(at + ": expected an object");
    GpuPeakRow row;
    row.id = required_string(r, "id", at);
    const std::string where = fmt::format("kb file {}: gpu '{}'", origin, row.id);
    if (!ids.insert(row.id).second) throw KbError(where + ": duplicate id");
    row.name = required_string(r, "name", where);
    row.vendor = required_string(r, "vendor", where);
    if (row.vendor != "nvidia" && row.vendor != "amd" && row.vendor != "intel") {
      throw KbError(fmt::format("{}: vendor '{}' is not nvidia, amd or intel", where, row.vendor));
    }
    row.arch = required_string(r, "arch", where);

    if (!r.contains("patterns") || !r.at("patterns").is_array() || r.at("patterns").empty()) {
      throw KbError(where + ": 'patterns' must be a non-empty array of RE2 patterns");
    }
    std::vector<std::unique_ptr<RE2>> compiled;
    for (const auto& p : r.at("patterns")) {
      if (!p.is_string()) throw KbError(where + ": a pattern is not a string");
      auto re = std::make_unique<RE2>(p.get<std::string>(), RE2::Quiet);
      if (!re->ok()) {
        throw KbError(fmt::format("{}: bad pattern '{}': {}", where, p.get<std::string>(), re->error()));
      }
      row.patterns.push_back(p.get<std::string>());
      compiled.push_back(std::move(re));
    }

    if (r.contains("units") && !r.at("units").is_null()) {
      if (!r.at("units").is_number_integer() || r.at("units").get<int>() <= 0) {
        throw KbError(where + ": 'units' must be a positive integer");
      }
      row.units = r.at("units").get<int>();
    }
    row.unit_name = r.value("unit_name", "");
    row.boost_mhz = optional_positive(r, "boost_mhz", where);
    row.memory_gb = optional_positive(r, "memory_gb", where);
    row.memory_type = r.value("memory_type", "");
    row.bandwidth_gbps = optional_positive(r, "bandwidth_gbps", where);
    row.llc = parse_cache_fact(r, where);

    if (!r.contains("peaks") || !r.at("peaks").is_object()) throw KbError(where + ": missing 'peaks' object");
    for (const auto& [key, value] : r.at("peaks").items()) {
      if (!row_peak_keys().count(key)) throw KbError(fmt::format("{}: unknown peak '{}'", where, key));
      if (value.is_null()) continue;
      row.peaks[key] = positive_number(value, fmt::format("{}: peak '{}'", where, key));
    }
    if (r.contains("fallback")) {
      if (!r.at("fallback").is_object()) throw KbError(where + ": 'fallback' must be an object");
      for (const auto& [key, f] : r.at("fallback").items()) {
        if (!is_dtype(key)) throw KbError(fmt::format("{}: fallback for unknown dtype '{}'", where, key));
        if (!f.is_object()) throw KbError(fmt::format("{}: fallback '{}' must be an object", where, key));
        DtypeFallback fb;
        fb.use = f.value("use", "");
        if (!fb.use.empty() && (!is_dtype(fb.use) || fb.use == key)) {
          throw KbError(fmt::format("{}: fallback '{}' uses unknown dtype '{}'", where, key, fb.use));
        }
        fb.emulated = f.value("emulated", false);
        fb.why = f.value("why", "");
        if (fb.why.empty()) throw KbError(fmt::format("{}: fallback '{}' needs a 'why'", where, key));
        row.fallback[key] = fb;
      }
    }
    if (r.contains("dtype_notes")) {
      for (const auto& [key, note] : r.at("dtype_notes").items()) {
        if (!is_dtype(key) || !note.is_string()) {
          throw KbError(fmt::format("{}: bad dtype_notes entry '{}'", where, key));
        }
        row.dtype_notes[key] = note.get<std::string>();
      }
    }
    if (row.peaks.empty() && !row.bandwidth_gbps) {
      throw KbError(where + ": a row needs at least one peak or a bandwidth");
    }
    row.derived = r.value("derived", "");
    row.notes = r.value("notes", "");
    if (!r.contains("source") || !r.at("source").is_object()) {
      throw KbError(where + ": missing 'source' object (title, url)");
    }
    row.source_title = required_string(r.at("source"), "title", where + ": source");
    row.source_url = required_string(r.at("source"), "url", where + ": source");

    table.impl_->rows.push_back(std::move(row));
    table.impl_->patterns.push_back(std::move(compiled));
  }
  return table;
}

std::optional<GpuPeakRow> GpuPeakTable::lookup(std::string_view name, std::string_view arch,
                                               const DeviceHints& hints) const {
  const auto& rows = impl_->rows;
  std::vector<std::size_t> candidates;
  if (!name.empty()) {
    const re2::StringPiece text(name.data(), name.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (const auto& re : impl_->patterns[i]) {
        if (RE2::PartialMatch(text, *re)) {
          candidates.push_back(i);
          break;
        }
      }
    }
  }
  const std::string unit_word = [&] {
    if (!candidates.empty() && !rows[candidates.front()].unit_name.empty())
      return rows[candidates.front()].unit_name;
    return std::string("SM/CU");
  }();

  if (!candidates.empty()) {
    std::string how = "name";
    if (candidates.size() > 1 && hints.multiprocessors) {
      std::vector<std::size_t> same;
      for (auto i : candidates) {
        if (rows[i].units && *rows[i].units == *hints.multiprocessors) same.push_back(i);
      }
      if (!same.empty() && same.size() < candidates.size()) {
        candidates = same;
        how = fmt::format("name and {} count", unit_word);
      }
    }
    if (candidates.size() > 1 && hints.memory_bytes && *hints.memory_bytes > 0) {
      const double gb = *hints.memory_bytes / 1e9;
      double best = 0;
      std::optional<std::size_t> pick;
      for (auto i : candidates) {
        if (!rows[i].memory_gb) continue;
        const double d = std::fabs(std::log(gb / *rows[i].memory_gb));
        if (!pick || d < best) {
          best = d;
          pick = i;
        }
      }
      if (pick) {
        candidates = {*pick};
        how += " and memory size";
      }
    }
    if (candidates.size() > 1) {
      how = fmt::format("name (first of {} rows sharing it; the {} count or memory size would choose)",
                        candidates.size(), unit_word);
    }
    GpuPeakRow row = rows[candidates.front()];
    row.matched_by = how;
    return row;
  }

  if (arch.empty()) return std::nullopt;
  std::optional<std::size_t> only;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (lower(rows[i].arch) == lower(arch)) {
      if (only) return std::nullopt;  // more than one row has this arch
      only = i;
    }
  }
  if (!only) return std::nullopt;
  const auto& row = rows[*only];
  std::string how;
  if (hints.multiprocessors && row.units) {
    if (*hints.multiprocessors != *row.units) return std::nullopt;
    how = fmt::format("arch {} and {} count {}", row.arch, row.unit_name.empty() ? "SM/CU" : row.unit_name,
                      *row.units);
  } else if (!has_digit(name)) {
    how = fmt::format("arch {} (the name '{}' carries no model number)", row.arch, name);
  } else {
    return std::nullopt;  // a named product the table does not list
  }
  GpuPeakRow out = row;
  out.matched_by = how;
  return out;
}

// ---------------------------------------------------------------- datasheet peaks

Peak compute_peak(const GpuPeakRow& row, std::string_view dtype_in) {
  const std::string dtype = normalize_peak_dtype(dtype_in);
  if (dtype.empty()) return unknown_peak("TFLOP/s", fmt::format("no compute peak for dtype '{}'", dtype_in));
  const std::string unit = peak_unit(dtype);

  auto figure = [&](const std::string& d, std::string* which) -> std::optional<double> {
    std::optional<double> v;
    if (auto it = row.peaks.find(d); it != row.peaks.end()) {
      v = it->second;
      *which = d;
    }
    if (d == "fp32" || d == "fp64") {
      if (auto it = row.peaks.find(d + "_matrix"); it != row.peaks.end() && (!v || it->second > *v)) {
        v = it->second;
        *which = d + " matrix units";
      }
    }
    return v;
  };

  auto make = [&](double value, const std::string& note) {
    Peak p;
    p.value = value;
    p.unit = unit;
    p.basis = "datasheet";
    p.source = row_source(row);
    if (!note.empty()) p.source += "; " + note;
    if (!row.derived.empty()) p.source += "; derived: " + row.derived;
    p.clock_mhz = row.boost_mhz.value_or(0);
    return p;
  };

  std::string which;
  if (auto v = figure(dtype, &which)) {
    std::string note = fmt::format("dense {} {}", which, rate(*v, unit));
    if (auto it = row.dtype_notes.find(dtype); it != row.dtype_notes.end()) note += " (" + it->second + ")";
    return make(*v, note);
  }
  if (auto fb = row.fallback.find(dtype); fb != row.fallback.end()) {
    const auto& f = fb->second;
    if (!f.use.empty()) {
      std::string used;
      if (auto v = figure(f.use, &used)) {
        Peak p = make(*v, fmt::format("{} runs as {}: {}; ceiling is the {} rate {}", dtype, f.use, f.why,
                                      used, rate(*v, unit)));
        p.emulated = f.emulated;
        return p;
      }
    }
    Peak p = unknown_peak(unit, fmt::format("{}: {} (no figure)", row.name, f.why));
    p.emulated = f.emulated;
    return p;
  }
  std::string why = fmt::format("{}: no datasheet {} figure in kb/gpus.json", row.name, dtype);
  if (auto it = row.dtype_notes.find(dtype); it != row.dtype_notes.end()) why += " (" + it->second + ")";
  return unknown_peak(unit, why);
}

Peak memory_bandwidth_peak(const GpuPeakRow& row) {
  if (!row.bandwidth_gbps) return unknown_peak("GB/s", row.name + ": no datasheet bandwidth in kb/gpus.json");
  Peak p;
  p.value = *row.bandwidth_gbps;
  p.unit = "GB/s";
  p.basis = "datasheet";
  p.source = fmt::format("{}; {} {} GB/s", row_source(row),
                         row.memory_type.empty() ? "memory" : row.memory_type, num(*row.bandwidth_gbps));
  return p;
}

// ---------------------------------------------------------------- GPU estimates

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

// ---------------------------------------------------------------- CPU estimate

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

// ---------------------------------------------------------------- convenience

Peak device_compute_peak(const GpuPeakTable& table, const GpuProperties& gpu, std::string_view dtype) {
  const auto row = table.lookup(gpu.name, gpu.arch, DeviceHints{gpu.multiprocessors, gpu.memory_bytes});
  if (!row) return compute_peak(gpu, dtype);
  Peak p = compute_peak(*row, dtype);
  if (p.known()) return p;
  Peak e = compute_peak(gpu, dtype);
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
