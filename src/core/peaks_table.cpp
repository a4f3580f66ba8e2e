// Hardware peaks from kb/gpus.json: the rows (GpuPeakTable: loading,
// validation, lookup by name/arch) and the datasheet peaks they give.
// Formulas and their sources: docs/roofline.md.
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include <set>
#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

#include "core/json.hpp"
#include "core/kb.hpp"

namespace accel {

using peaks_detail::num;
using peaks_detail::rate;
using peaks_detail::unknown_peak;

namespace {

bool has_digit(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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

/// The row's RE2 patterns, compiled into `compiled`.
std::vector<std::string> parse_patterns(const json& r, const std::string& where,
                                        std::vector<std::unique_ptr<RE2>>& compiled) {
  if (!r.contains("patterns") || !r.at("patterns").is_array() || r.at("patterns").empty()) {
    throw KbError(where + ": 'patterns' must be a non-empty array of RE2 patterns");
  }
  std::vector<std::string> patterns;
  for (const auto& p : r.at("patterns")) {
    if (!p.is_string()) throw KbError(where + ": a pattern is not a string");
    auto re = std::make_unique<RE2>(p.get<std::string>(), RE2::Quiet);
    if (!re->ok()) {
      throw KbError(fmt::format("{}: bad pattern '{}': {}", where, p.get<std::string>(), re->error()));
    }
    patterns.push_back(p.get<std::string>());
    compiled.push_back(std::move(re));
  }
  return patterns;
}

/// `peaks`, `fallback` and `dtype_notes`: the figures per dtype and what a
/// dtype without one runs as.
void parse_dtype_figures(const json& r, const std::string& where, GpuPeakRow& row) {
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
}

/// One row of gpus.json (its id already checked); `where` names it in errors.
GpuPeakRow parse_row(const json& r, const std::string& where, std::vector<std::unique_ptr<RE2>>& compiled) {
  GpuPeakRow row;
  row.id = r.at("id").get<std::string>();
  row.name = required_string(r, "name", where);
  row.vendor = required_string(r, "vendor", where);
  if (row.vendor != "nvidia" && row.vendor != "amd" && row.vendor != "intel") {
    throw KbError(fmt::format("{}: vendor '{}' is not nvidia, amd or intel", where, row.vendor));
  }
  row.arch = required_string(r, "arch", where);
  row.patterns = parse_patterns(r, where, compiled);
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
  parse_dtype_figures(r, where, row);
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
  return row;
}

}  // namespace

struct GpuPeakTable::Impl {
  std::vector<GpuPeakRow> rows;
  std::vector<std::vector<std::unique_ptr<RE2>>> patterns;  ///< parallel to rows
  PeakRates rates;
};

GpuPeakTable::GpuPeakTable() : impl_(std::make_unique<Impl>()) {}

GpuPeakTable::~GpuPeakTable() = default;

GpuPeakTable::GpuPeakTable(GpuPeakTable&&) noexcept = default;

GpuPeakTable& GpuPeakTable::operator=(GpuPeakTable&&) noexcept = default;

const std::vector<GpuPeakRow>& GpuPeakTable::rows() const { return impl_->rows; }

const PeakRates& GpuPeakTable::rates() const { return impl_->rates; }

GpuPeakTable GpuPeakTable::load(const std::string& kb_dir) {
  std::string path;
  GpuPeakTable table = parse(peaks_detail::read_kb_file(kb_dir, "gpus.json", path), path);
  table.impl_->rates = PeakRates::load(kb_dir);
  return table;
}

GpuPeakTable GpuPeakTable::parse(const std::string& text, const std::string& origin) {
  const json doc = peaks_detail::parse_kb_json(text, origin);
  if (!doc.is_object() || !doc.contains("gpus") || !doc.at("gpus").is_array()) {
    throw KbError(fmt::format("kb file {}: expected an object with a 'gpus' array", origin));
  }
  GpuPeakTable table;
  std::set<std::string> ids;
  std::size_t index = 0;
  for (const auto& r : doc.at("gpus")) {
    const std::string at = fmt::format("kb file {}: gpus[{}]", origin, index++);
    if (!r.is_object()) throw KbError(at + ": expected an object");
    const std::string id = required_string(r, "id", at);
    const std::string where = fmt::format("kb file {}: gpu '{}'", origin, id);
    if (!ids.insert(id).second) throw KbError(where + ": duplicate id");
    std::vector<std::unique_ptr<RE2>> compiled;
    table.impl_->rows.push_back(parse_row(r, where, compiled));
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

}  // namespace accel
