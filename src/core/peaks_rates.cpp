// kb/arch.json `peak_rates`: reading and validating the per-architecture
// rates, and looking them up. Formulas that use them: peaks_gpu.cpp,
// peaks_cpu.cpp; the format: docs/knowledge-base.md.
#include "core/peaks_rates.hpp"

#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/json.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "core/peaks_detail.hpp"
#include "core/strings.hpp"

namespace accel {

namespace peaks_detail {

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
      if (++n > 4) return -1;  // no compute capability has 5 digits (and no int overflow)
      v = v * 10 + (c - '0');
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

}  // namespace peaks_detail

using peaks_detail::parse_compute_capability;

namespace {

/// Errors name the file and the row: "kb file X: peak_rates.amd[2]: ...".
struct RowPath {
  std::string at;
  [[noreturn]] void fail(const std::string& what) const { throw KbError(fmt::format("{}: {}", at, what)); }
  RowPath operator/(const std::string& key) const { return {at + "." + key}; }
  RowPath operator[](std::size_t i) const { return {fmt::format("{}[{}]", at, i)}; }
};

const json& member(const json& obj, const char* key, const RowPath& w) {
  if (!obj.is_object() || !obj.contains(key)) w.fail(fmt::format("missing '{}'", key));
  return obj.at(key);
}

const json& array_member(const json& obj, const char* key, const RowPath& w) {
  const json& v = member(obj, key, w);
  if (!v.is_array() || v.empty()) (w / key).fail("expected a non-empty array");
  return v;
}

std::string text(const json& obj, const char* key, const RowPath& w, bool required) {
  if (!obj.contains(key) || obj.at(key).is_null()) {
    if (required) w.fail(fmt::format("missing or empty string '{}'", key));
    return {};
  }
  const json& v = obj.at(key);
  if (!v.is_string() || (required && v.get<std::string>().empty()))
    w.fail(fmt::format("missing or empty string '{}'", key));
  return v.get<std::string>();
}

double positive(const json& v, const RowPath& w) {
  if (!v.is_number()) w.fail("expected a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0) w.fail("expected a positive number");
  return d;
}

std::vector<std::string> strings(const json& obj, const char* key, const RowPath& w, bool required) {
  if (!obj.contains(key)) {
    if (required) w.fail(fmt::format("missing '{}'", key));
    return {};
  }
  const json& v = obj.at(key);
  if (!v.is_array() || (required && v.empty())) (w / key).fail("expected a non-empty array of strings");
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string() || s.get<std::string>().empty()) (w / key).fail("expected non-empty strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

int compute_capability(const std::string& arch, const RowPath& w) {
  const int cc = parse_compute_capability(arch);
  if (cc <= 0) w.fail(fmt::format("'{}' is not a compute capability (sm_NN)", arch));
  return cc;
}

bool is_peak_dtype(std::string_view d) {
  for (const char* k : kPeakDtypes) {
    if (d == k) return true;
  }
  return false;
}

NvidiaLanes parse_lanes(const json& obj, const RowPath& w) {
  NvidiaLanes t;
  t.source = text(obj, "source", w, true);
  t.url = text(obj, "url", w, false);
  t.note = text(obj, "note", w, false);
  const json& lanes = member(obj, "lanes", w);
  if (!lanes.is_object() || lanes.empty()) (w / "lanes").fail("expected an object of sm_NN: lanes");
  for (const auto& [arch, n] : lanes.items()) {
    const RowPath at = w / "lanes" / arch;
    const int cc = compute_capability(arch, at);
    if (!n.is_number_integer() || n.get<int>() <= 0) at.fail("expected a positive integer");
    if (!t.by_cc.emplace(cc, n.get<int>()).second) at.fail("listed twice");
  }
  return t;
}

std::vector<NvidiaTensorRates> parse_tensor(const json& rows, const RowPath& w) {
  std::vector<NvidiaTensorRates> out;
  std::set<int> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowPath at = w[i];
    NvidiaTensorRates r;
    r.cc = compute_capability(text(rows[i], "arch", at, true), at);
    if (!seen.insert(r.cc).second) at.fail("compute capability listed twice");
    r.source = text(rows[i], "source", at, true);
    r.note = text(rows[i], "note", at, false);
    const json& per = member(rows[i], "per_clock", at);
    if (!per.is_object() || per.empty()) (at / "per_clock").fail("expected an object of dtype: rate");
    for (const auto& [dtype, v] : per.items()) {
      if (!is_peak_dtype(dtype)) (at / "per_clock").fail(fmt::format("unknown dtype '{}'", dtype));
      r.per_clock[dtype] = positive(v, at / "per_clock" / dtype);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<AmdFamilyRates> parse_amd(const json& rows, const RowPath& w) {
  static const std::set<std::string> kKeys = {"fp32", "fp32_matrix", "fp64", "fp64_matrix",
                                              "tf32", "fp16",        "bf16", "int8"};
  std::vector<AmdFamilyRates> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowPath at = w[i];
    AmdFamilyRates f;
    f.family = text(rows[i], "family", at, true);
    f.targets = strings(rows[i], "targets", at, true);
    for (const auto& t : f.targets) {
      if (lower(t).rfind("gfx", 0) != 0) (at / "targets").fail(fmt::format("'{}' is not a gfx target", t));
    }
    const json& per = member(rows[i], "per_cu", at);
    if (!per.is_object() || !per.contains("fp32")) (at / "per_cu").fail("expected an object with 'fp32'");
    for (const auto& [key, v] : per.items()) {
      if (!kKeys.count(key)) (at / "per_cu").fail(fmt::format("unknown rate '{}'", key));
      f.per_cu[key] = positive(v, at / "per_cu" / key);
    }
    f.fp32_note = text(rows[i], "fp32_note", at, true);
    f.fp16_how = text(rows[i], "fp16_how", at, f.per_cu.count("fp16") > 0);
    f.int8_how = text(rows[i], "int8_how", at, f.per_cu.count("int8") > 0);
    f.source = text(rows[i], "source", at, true);
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<IntelLanes> parse_intel(const json& rows, const RowPath& w) {
  std::vector<IntelLanes> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RowPath at = w[i];
    IntelLanes l;
    const json& n = member(rows[i], "lanes_per_eu", at);
    if (!n.is_number_integer() || n.get<int>() <= 0)
      (at / "lanes_per_eu").fail("expected a positive integer");
    l.lanes_per_eu = n.get<int>();
    l.names = strings(rows[i], "names", at, true);
    l.note = text(rows[i], "note", at, false);
    l.source = text(rows[i], "source", at, true);
    out.push_back(std::move(l));
  }
  return out;
}

CpuRate parse_cpu_row(const json& row, const std::string& dtype, const RowPath& at) {
  CpuRate r;
  r.needs = strings(row, "needs", at, false);
  r.isa = text(row, "isa", at, false);
  if (!r.isa.empty() && r.isa != "x86" && r.isa != "arm") (at / "isa").fail("expected x86 or arm");
  const bool per = row.contains("per_cycle"), times = row.contains("fp32_times");
  if (per == times) at.fail("needs exactly one of 'per_cycle' and 'fp32_times'");
  if (per) r.per_cycle = positive(row.at("per_cycle"), at / "per_cycle");
  if (times) {
    if (dtype == "fp32") at.fail("an fp32 row cannot be a multiple of the fp32 rate");
    r.fp32_times = positive(row.at("fp32_times"), at / "fp32_times");
  }
  r.how = text(row, "how", at, true);
  r.sources = strings(row, "sources", at, true);
  return r;
}

std::map<std::string, std::vector<CpuRate>> parse_cpu(const json& obj, const RowPath& w) {
  if (!obj.is_object() || !obj.contains("fp32")) w.fail("expected an object with 'fp32' rows");
  std::map<std::string, std::vector<CpuRate>> out;
  for (const auto& [dtype, rows] : obj.items()) {
    const RowPath at = w / dtype;
    if (!is_peak_dtype(dtype) || dtype == "tf32") at.fail("not a CPU dtype (fp64, fp32, fp16, bf16, int8)");
    if (!rows.is_array() || rows.empty()) at.fail("expected a non-empty array");
    for (std::size_t i = 0; i < rows.size(); ++i) out[dtype].push_back(parse_cpu_row(rows[i], dtype, at[i]));
  }
  return out;
}

}  // namespace

double AmdFamilyRates::rate(const std::string& key) const {
  const auto it = per_cu.find(key);
  return it == per_cu.end() ? 0 : it->second;
}

PeakRates PeakRates::load(const std::string& kb_dir) {
  std::string path;
  const std::string content = peaks_detail::read_kb_file(kb_dir, "arch.json", path);
  return parse(content, path);
}

PeakRates PeakRates::parse(const std::string& content, const std::string& origin) {
  const json doc = peaks_detail::parse_kb_json(content, origin);
  const RowPath file{fmt::format("kb file {}", origin)};
  const json& pr = member(doc, "peak_rates", file);
  const RowPath w{file.at + ": peak_rates"};
  try {
    PeakRates r;
    const json& nv = member(pr, "nvidia", w);
    r.nvidia_fp32 =
        parse_lanes(member(nv, "fp32_lanes_per_sm", w / "nvidia"), w / "nvidia" / "fp32_lanes_per_sm");
    r.nvidia_fp64 =
        parse_lanes(member(nv, "fp64_lanes_per_sm", w / "nvidia"), w / "nvidia" / "fp64_lanes_per_sm");
    r.nvidia_tensor =
        parse_tensor(array_member(nv, "tensor_per_sm", w / "nvidia"), w / "nvidia" / "tensor_per_sm");
    r.amd = parse_amd(array_member(pr, "amd", w), w / "amd");
    r.intel = parse_intel(array_member(pr, "intel", w), w / "intel");
    r.cpu = parse_cpu(member(pr, "cpu", w), w / "cpu");
    return r;
  } catch (const json::exception& e) {  // a number too large for its field
    throw KbError(fmt::format("{}: {}", w.at, e.what()));
  }
}

bool PeakRates::empty() const {
  return nvidia_fp32.by_cc.empty() && nvidia_fp64.by_cc.empty() && nvidia_tensor.empty() && amd.empty() &&
         intel.empty() && cpu.empty();
}

std::optional<int> PeakRates::nvidia_fp32_lanes_per_sm(std::string_view arch) const {
  const auto it = nvidia_fp32.by_cc.find(parse_compute_capability(arch));
  if (it == nvidia_fp32.by_cc.end()) return std::nullopt;
  return it->second;
}

std::optional<int> PeakRates::nvidia_fp64_lanes_per_sm(int cc) const {
  const auto it = nvidia_fp64.by_cc.find(cc);
  if (it == nvidia_fp64.by_cc.end()) return std::nullopt;
  return it->second;
}

const NvidiaTensorRates* PeakRates::nvidia_tensor_rates(int cc) const {
  for (const auto& t : nvidia_tensor) {
    if (t.cc == cc) return &t;
  }
  return nullptr;
}

const AmdFamilyRates* PeakRates::amd_family(std::string_view target) const {
  const std::string a = lower(target);
  for (const auto& f : amd) {
    for (const auto& t : f.targets) {
      const std::string p = lower(t);
      const bool prefix = !p.empty() && p.back() == '*';
      if (prefix ? a.rfind(p.substr(0, p.size() - 1), 0) == 0 : a == p) return &f;
    }
  }
  return nullptr;
}

std::optional<int> PeakRates::intel_lanes_per_eu(std::string_view arch) const {
  for (const auto& l : intel) {
    for (const auto& n : l.names) {
      if (contains_ci(arch, n)) return l.lanes_per_eu;
    }
  }
  return std::nullopt;
}

}  // namespace accel
