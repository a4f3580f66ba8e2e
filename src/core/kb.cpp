// The knowledge-base loader and matcher. Pure C++ (RE2, nlohmann json, fmt),
// no torch. Formats: docs/knowledge-base.md.
//
// Matching is one pass over the lines: every pattern of every entry, hint and
// fact is compiled into one RE2::Set (a DFA), so the cost per line does not grow
// with the number of entries; the individual RE2 objects only run on the rare
// lines the set reports, to extract named captures. A second set holds the
// two-line ("window") patterns, matched against "previous line\ncurrent line".
#include "core/kb.hpp"
#include "core/kb_directml.hpp"
#include "core/kb_tool_output.hpp"
#include "core/kb_wheels.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <istream>
#include <set>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/paths.hpp"
#include "core/strings.hpp"

namespace accel {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- small helpers

json read_json_file(const fs::path& path) {
  const auto text = read_file(path);
  if (!text) throw KbError(fmt::format("cannot read kb file {}", path.string()));
  try {
    return json::parse(*text);
  } catch (const json::parse_error& e) {
    throw KbError(
        fmt::format("kb file {} is not valid JSON at byte {}: {}", path.string(), e.byte, e.what()));
  } catch (const json::exception& e) {  // out_of_range: a number too large
    throw KbError(fmt::format("kb file {} is not valid JSON: {}", path.string(), e.what()));
  }
}

re2::StringPiece sp(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

/// "48.01 GiB" -> bytes; nullopt when not a size.
std::optional<double> parse_size(std::string_view text) {
  static const RE2 re(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?)(i?)B?\s*$)");
  std::string num, unit, ibit;
  if (!RE2::FullMatch(sp(text), re, &num, &unit, &ibit)) return std::nullopt;
  double v = std::strtod(num.c_str(), nullptr);
  const double base = ibit.empty() ? 1000.0 : 1024.0;
  const std::string units = "KMGTP";
  if (!unit.empty()) {
    const auto pos = units.find(unit[0]);
    for (std::size_t i = 0; i <= pos; ++i) v *= base;
  }
  return v;
}

/// Removes ANSI escape sequences (colours) in place.
void strip_ansi(std::string& s) {
  if (s.find('\x1b') == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      if (i + 1 < s.size() && s[i + 1] == '[') {
        std::size_t j = i + 2;
        while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
        i = j;  // skip the final byte too
        continue;
      }
      continue;
    }
    out.push_back(s[i]);
  }
  s.swap(out);
}

std::string cap_display(std::string_view line, std::size_t max = 400) {
  if (line.size() <= max) return std::string(line);
  return std::string(line.substr(0, max)) + " [...]";
}

enum class Tri { F, T, U };
Tri tri(bool b) { return b ? Tri::T : Tri::F; }
Tri tri_not(Tri t) { return t == Tri::U ? Tri::U : (t == Tri::T ? Tri::F : Tri::T); }
Tri tri_from(const std::optional<bool>& b) { return b ? tri(*b) : Tri::U; }

// The fact names log patterns and the context parser fill; entry captures may
// not reuse them (a capture would otherwise shadow the machine's facts).
const std::set<std::string>& fact_names() {
  static const std::set<std::string> names = {
      "gfx",        "sm",     "cc",      "driver",        "driver_cuda",    "os",    "gpu", "torch_cuda",
      "torch_rocm", "vendor", "backend", "torch_version", "cpu_only_torch", "python"};
  return names;
}

// ---------------------------------------------------------------- kb data

struct Variant {
  json when;  // null: no condition
  bool fallback = false;
  std::string label, fix, cause;
  std::string check;  // how to tell whether this fix is the one (shown with listed possibilities)
};

struct ErrorEntry {
  std::string id, title, cause, fix, reference, severity = "error", fix_set;
  Status status = Status::error;
  double priority = 50;
  std::vector<std::unique_ptr<RE2>> patterns, window_patterns, unless;
  std::vector<Variant> variants;
  std::vector<std::string> examples, suppresses;
  /// An evidence entry: its lines only carry facts (a torch version, a wheel
  /// tag); it is reported only when one of its regular fixes is true.
  bool evidence = false;
  /// What an operator check whose warnings match this entry shows as its
  /// profile.where ("cpu_fallback"); "" for none.
  std::string check_where;
};

struct Hint {
  std::string id;
  std::vector<std::unique_ptr<RE2>> patterns, window_patterns;
};

struct FactPattern {
  std::unique_ptr<RE2> re;
  std::map<std::string, std::string> set;
};

struct GpuName {
  std::unique_ptr<RE2> re;
  std::string arch;
};

struct DriverMin {
  std::string cuda, linux_min, windows_min;
};

struct EnvEntry {
  std::string name;  // exact, or prefix ending in '*'
  std::string effect;
};

// One pattern in a matching set and what it belongs to.
struct SetItem {
  enum Kind { kEntry, kUnless, kHint, kFact } kind;
  std::size_t owner;
  const RE2* re;
};

struct PatternSet {
  std::unique_ptr<RE2::Set> set;
  std::vector<SetItem> items;
};

}  // namespace

namespace {

struct KbData {
  std::vector<ErrorEntry> errors;
  std::vector<Hint> hints;
  std::vector<FactPattern> facts;
  std::map<std::string, std::vector<Variant>> fix_sets;
  std::map<std::string, GfxArch> gfx;
  std::map<std::string, SmArch> sm;
  std::vector<DriverMin> drivers;
  WheelTables tables;  // kb/wheels.json: torch wheels, releases, TheRock families
  std::map<std::string, std::string> windows_hip_sdk;  // gfx -> "hip_sdk", "runtime", "none"
  std::string dml_dtypes;                  // DirectML's tensor data types, rendered for {dml_dtypes}
  DirectMlVersionTable directml_versions;  // arch.json directml_versions, rendered for {directml_inbox}
  std::vector<GpuName> gpu_names;
  std::vector<EnvEntry> env;
  std::map<std::string, std::unique_ptr<RE2>> cond_regex;  // regexes used in conditions
  PatternSet line_set, window_set;

  const std::vector<Variant>& variants_of(const ErrorEntry& e, std::vector<Variant>& scratch) const {
    if (e.fix_set.empty()) return e.variants;
    scratch = e.variants;
    const auto& extra = fix_sets.at(e.fix_set);
    scratch.insert(scratch.end(), extra.begin(), extra.end());
    return scratch;
  }
};

}  // namespace

struct KnowledgeBase::Impl : KbData {};

namespace {

// ---------------------------------------------------------------- loading

std::unique_ptr<RE2> compile(const std::string& pattern, const std::string& where) {
  RE2::Options opt;
  opt.set_log_errors(false);
  auto re = std::make_unique<RE2>(pattern, opt);
  if (!re->ok()) throw KbError(fmt::format("{}: bad pattern '{}': {}", where, pattern, re->error()));
  return re;
}

std::vector<std::string> string_list(const json& j, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  const auto& arr = j.at(key);
  if (!arr.is_array()) throw KbError(fmt::format("{}: '{}' must be an array of strings", where, key));
  for (const auto& s : arr) {
    if (!s.is_string()) throw KbError(fmt::format("{}: '{}' must be an array of strings", where, key));
    out.push_back(s.get<std::string>());
  }
  return out;
}

void check_captures(const RE2& re, const std::string& where) {
  for (const auto& [name, idx] : re.NamedCapturingGroups()) {
    (void)idx;
    if (fact_names().count(name)) {
      throw KbError(fmt::format("{}: capture group '{}' shadows a machine fact; use a fact pattern instead",
                                where, name));
    }
  }
}

const std::set<std::string> kBoolConds = {
    "integrated_and_discrete", "override_set",     "cpu_only_torch",  "cuda_older_than_arch",
    "driver_older_than_cuda",  "wheel_lacks_arch", "therock_has_arch"};
const std::set<std::string> kStringConds = {"vendor",      "backend",        "os",           "os_not",
                                            "gfx_support", "gfx_family",     "gfx_override", "env_set",
                                            "measured_on", "windows_hip_sdk"};

void validate_condition(const json& c, KbData& kb, const std::string& where) {
  if (!c.is_object()) throw KbError(fmt::format("{}: a condition must be an object", where));
  for (const auto& [key, value] : c.items()) {
    if (kBoolConds.count(key)) {
      if (!value.is_boolean()) throw KbError(fmt::format("{}: '{}' takes true or false", where, key));
    } else if (kStringConds.count(key)) {
      if (value.is_string()) continue;
      if (!value.is_array()) throw KbError(fmt::format("{}: '{}' takes a string or an array", where, key));
      for (const auto& v : value) {
        if (!v.is_string()) throw KbError(fmt::format("{}: '{}' takes strings", where, key));
      }
    } else if (key == "hint") {
      if (!value.is_string()) throw KbError(fmt::format("{}: 'hint' takes a hint id", where));
      const auto id = value.get<std::string>();
      const bool known =
          std::any_of(kb.hints.begin(), kb.hints.end(), [&](const Hint& h) { return h.id == id; }) ||
          id == "visible_devices_empty";
      if (!known) throw KbError(fmt::format("{}: unknown hint '{}'", where, id));
    } else if (key == "known") {
      if (!value.is_string()) throw KbError(fmt::format("{}: 'known' takes a fact name", where));
    } else if (key == "sm_at_least") {
      if (!value.is_number_integer())
        throw KbError(fmt::format("{}: 'sm_at_least' takes a compute capability as a number (80)", where));
    } else if (key == "capture") {
      if (!value.is_object()) throw KbError(fmt::format("{}: 'capture' takes {{name: regex}}", where));
      for (const auto& [name, re] : value.items()) {
        (void)name;
        if (!re.is_string()) throw KbError(fmt::format("{}: 'capture' regexes must be strings", where));
        const auto pattern = re.get<std::string>();
        if (!kb.cond_regex.count(pattern)) kb.cond_regex[pattern] = compile(pattern, where);
      }
    } else if (key == "capture_gt") {
      if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_string()) {
        throw KbError(fmt::format("{}: 'capture_gt' takes [name, name]", where));
      }
    } else if (key == "all" || key == "any") {
      if (!value.is_array()) throw KbError(fmt::format("{}: '{}' takes an array of conditions", where, key));
      for (const auto& sub : value) validate_condition(sub, kb, where);
    } else if (key == "not") {
      validate_condition(value, kb, where);
    } else {
      throw KbError(fmt::format("{}: unknown condition '{}'", where, key));
    }
  }
}

std::vector<Variant> load_variants(const json& arr, KbData& kb, const std::string& where) {
  std::vector<Variant> out;
  if (!arr.is_array()) throw KbError(fmt::format("{}: 'fixes' must be an array", where));
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const auto& v = arr[i];
    const std::string w = fmt::format("{} fix #{}", where, i + 1);
    if (!v.is_object() || !v.contains("fix") || !v.at("fix").is_string()) {
      throw KbError(fmt::format("{}: needs a 'fix' string", w));
    }
    Variant var;
    var.fix = v.at("fix").get<std::string>();
    var.label = v.value("label", "");
    var.cause = v.value("cause", "");
    var.fallback = v.value("fallback", false);
    var.check = v.value("check", "");
    if (v.contains("when")) {
      var.when = v.at("when");
      validate_condition(var.when, kb, w);
    }
    if (var.label.empty() && !var.when.is_null())
      throw KbError(fmt::format("{}: a conditional fix needs a 'label'", w));
    out.push_back(std::move(var));
  }
  return out;
}

/// The error files of a kb directory: every `errors/*.json` (one file per
/// ecosystem) in name order; without an `errors/` directory, the single
/// `errors.json` of the older layout (small test kbs; an `errors.json` left
/// beside `errors/` by an older copy or install is ignored). Empty when there
/// are none.
std::vector<fs::path> error_files(const fs::path& root) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_directory(root / "errors", ec)) {
    for (const auto& e : fs::directory_iterator(root / "errors", ec)) {
      if (e.is_regular_file() && e.path().extension() == ".json") out.push_back(e.path());
    }
    std::sort(out.begin(), out.end());
  }
  if (out.empty() && fs::is_regular_file(root / "errors.json", ec)) out.push_back(root / "errors.json");
  return out;
}

/// Loads every error file as one knowledge base: the hints, facts and fix
/// sets of all files first (an entry may use a hint or fix set of another
/// file), then the entries; ids are unique across files.
void load_errors(const std::vector<fs::path>& paths, KbData& kb) {
  std::vector<json> docs;
  docs.reserve(paths.size());
  for (const auto& path : paths) docs.push_back(read_json_file(path));
  // Pass 0: hints and facts; pass 1: fix sets (their conditions name hints).
  for (std::size_t k = 0; k < 2 * paths.size(); ++k) {
    const std::size_t i = k % paths.size();
    const bool first_pass = k < paths.size();
    const json& doc = docs[i];
    const std::string file = paths[i].filename().string();
    try {
      if (!doc.is_object()) throw KbError(fmt::format("{}: the file must hold a JSON object", file));
      if (first_pass && doc.contains("hints")) {
        for (const auto& h : doc.at("hints")) {
          Hint hint;
          hint.id = h.at("id").get<std::string>();
          const std::string where = fmt::format("{} hint {}", file, hint.id);
          for (const auto& p : string_list(h, "patterns", where)) hint.patterns.push_back(compile(p, where));
          for (const auto& p : string_list(h, "window_patterns", where))
            hint.window_patterns.push_back(compile(p, where));
          kb.hints.push_back(std::move(hint));
        }
      }
      if (first_pass && doc.contains("facts")) {
        for (const auto& f : doc.at("facts")) {
          FactPattern fp;
          const std::string pattern = f.at("pattern").get<std::string>();
          const std::string where = fmt::format("{} fact '{}'", file, pattern);
          fp.re = compile(pattern, where);
          for (const auto& [name, idx] : fp.re->NamedCapturingGroups()) {
            (void)idx;
            if (!fact_names().count(name))
              throw KbError(fmt::format("{}: unknown fact name '{}'", where, name));
          }
          if (f.contains("set")) {
            for (const auto& [k, v] : f.at("set").items()) {
              if (!fact_names().count(k)) throw KbError(fmt::format("{}: unknown fact name '{}'", where, k));
              fp.set[k] = v.get<std::string>();
            }
          }
          kb.facts.push_back(std::move(fp));
        }
      }
      if (!first_pass && doc.contains("fix_sets")) {
        for (const auto& [name, arr] : doc.at("fix_sets").items()) {
          kb.fix_sets[name] = load_variants(arr, kb, fmt::format("{} fix set {}", file, name));
        }
      }
    } catch (const json::exception& ex) {
      throw KbError(fmt::format("kb file {}: {}", paths[i].string(), ex.what()));
    }
  }
  std::map<std::string, std::string> ids;  // id -> file
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const json& doc = docs[i];
    const std::string file = paths[i].filename().string();
    try {
      if (!doc.contains("errors")) continue;
      for (const auto& e : doc.at("errors")) {
        ErrorEntry entry;
        entry.id = e.at("id").get<std::string>();
        const std::string where = fmt::format("{} entry {}", file, entry.id);
        if (const auto [it, fresh] = ids.emplace(entry.id, file); !fresh) {
          throw KbError(fmt::format("{}: duplicate id (also in {})", where, it->second));
        }
        entry.title = e.value("title", "");
        entry.cause = e.value("cause", "");
        entry.fix = e.value("fix", "");
        entry.reference = e.value("reference", "");
        entry.severity = e.value("severity", "error");
        if (entry.severity != "error" && entry.severity != "warning" && entry.severity != "info") {
          throw KbError(fmt::format("{}: severity must be error, warning or info", where));
        }
        entry.priority = e.value("priority", 50.0);
        const auto status = status_from_string(e.value("status", "error"));
        if (!status || (*status != Status::error && *status != Status::unavailable)) {
          throw KbError(
              fmt::format("{}: status must be error or unavailable (what an operator check that fails "
                          "with this message becomes)",
                          where));
        }
        entry.status = *status;
        for (const auto& p : string_list(e, "patterns", where)) {
          entry.patterns.push_back(compile(p, where));
          check_captures(*entry.patterns.back(), where);
        }
        for (const auto& p : string_list(e, "window_patterns", where)) {
          entry.window_patterns.push_back(compile(p, where));
          check_captures(*entry.window_patterns.back(), where);
        }
        if (entry.patterns.empty() && entry.window_patterns.empty()) {
          throw KbError(fmt::format("{}: no patterns", where));
        }
        for (const auto& p : string_list(e, "unless", where)) entry.unless.push_back(compile(p, where));
        if (e.contains("fixes")) entry.variants = load_variants(e.at("fixes"), kb, where);
        entry.fix_set = e.value("fix_set", "");
        if (!entry.fix_set.empty() && !kb.fix_sets.count(entry.fix_set)) {
          throw KbError(fmt::format("{}: unknown fix_set '{}'", where, entry.fix_set));
        }
        if (entry.fix.empty() && entry.variants.empty() && entry.fix_set.empty()) {
          throw KbError(fmt::format("{}: needs 'fix', 'fixes' or 'fix_set'", where));
        }
        entry.examples = string_list(e, "examples", where);
        entry.suppresses = string_list(e, "suppresses", where);
        entry.evidence = e.value("evidence", false);
        entry.check_where = e.value("check_where", "");
        if (!entry.check_where.empty() && entry.check_where != "cpu_fallback") {
          throw KbError(
              fmt::format("{}: check_where must be cpu_fallback (what an operator check whose "
                          "warning matches this entry shows as where it ran)",
                          where));
        }
        if (!entry.check_where.empty() &&
            (entry.patterns.empty() || entry.patterns.front()->NamedCapturingGroups().count("op") == 0)) {
          throw KbError(
              fmt::format("{}: check_where needs an (?P<op>...) capture in its first pattern", where));
        }
        if (entry.evidence && std::none_of(entry.variants.begin(), entry.variants.end(),
                                           [](const Variant& v) { return !v.fallback; })) {
          throw KbError(fmt::format("{}: an evidence entry needs conditional (non-fallback) fixes", where));
        }
        kb.errors.push_back(std::move(entry));
      }
    } catch (const json::exception& ex) {
      throw KbError(fmt::format("kb file {}: {}", paths[i].string(), ex.what()));
    }
  }
}

void load_arch(const fs::path& path, KbData& kb) {
  const json doc = read_json_file(path);
  const std::string file = path.filename().string();
  try {
    for (const auto& [target, g] : doc.at("gfx").items()) {
      GfxArch a;
      a.target = target;
      a.family = g.value("family", "");
      a.name = g.value("name", "");
      a.support = g.value("support", "");
      if (a.support != "native" && a.support != "override" && a.support != "override_risky" &&
          a.support != "none") {
        throw KbError(
            fmt::format("{} gfx {}: support must be native, override, override_risky or none", file, target));
      }
      a.override_value = g.value("override", "");
      if ((a.support == "override" || a.support == "override_risky") && a.override_value.empty()) {
        throw KbError(fmt::format("{} gfx {}: an override target needs an 'override' value", file, target));
      }
      a.integrated = g.value("integrated", false);
      a.note = g.value("note", "");
      if (g.contains("sources")) a.sources = g.at("sources").get<std::vector<std::string>>();
      if (a.sources.empty()) throw KbError(fmt::format("{} gfx {}: needs 'sources'", file, target));
      kb.gfx[target] = a;
    }
    if (doc.contains("sm")) {
      for (const auto& [target, s] : doc.at("sm").items()) {
        SmArch a;
        a.target = target;
        a.family = s.value("family", "");
        a.name = s.value("name", "");
        a.min_cuda = s.value("min_cuda", "");
        a.wheel = s.value("wheel", "");
        if (s.contains("wheels_without")) {
          for (const auto& w : s.at("wheels_without")) {
            a.wheels_without.push_back({w.at("cuda").get<std::string>(), w.at("torch").get<std::string>()});
          }
        }
        kb.sm[target] = a;
      }
    }
    if (doc.contains("cuda_driver_min")) {
      for (const auto& d : doc.at("cuda_driver_min")) {
        kb.drivers.push_back({d.at("cuda").get<std::string>(), d.at("linux").get<std::string>(),
                              d.at("windows").get<std::string>()});
      }
      std::sort(kb.drivers.begin(), kb.drivers.end(),
                [](const DriverMin& a, const DriverMin& b) { return compare_versions(a.cuda, b.cuda) < 0; });
    }
    if (doc.contains("windows_hip_sdk")) {
      const auto& w = doc.at("windows_hip_sdk");
      if (w.value("source", "").empty()) throw KbError(file + " windows_hip_sdk: needs 'source'");
      for (const auto& [target, level] : w.at("targets").items()) {
        const auto l = level.get<std::string>();
        if (l != "hip_sdk" && l != "runtime" && l != "none") {
          throw KbError(
              fmt::format("{} windows_hip_sdk {}: level must be hip_sdk, runtime or none", file, target));
        }
        kb.windows_hip_sdk[target] = l;
      }
    }
    if (doc.contains("directml_tensor_types")) {
      const auto& d = doc.at("directml_tensor_types");
      if (d.value("source", "").empty()) throw KbError(file + " directml_tensor_types: needs 'source'");
      const auto optional = d.value("optional", std::vector<std::string>{});
      std::string always, maybe;
      for (const auto& t : d.at("types").get<std::vector<std::string>>()) {
        std::string& into = std::find(optional.begin(), optional.end(), t) != optional.end() ? maybe : always;
        into += (into.empty() ? "" : ", ") + t;
      }
      kb.dml_dtypes = always + (maybe.empty() ? "" : " (" + maybe + " only on devices that report it)");
    }
    if (doc.contains("directml_versions"))
      kb.directml_versions = parse_directml_versions(doc.at("directml_versions"), file);
    if (doc.contains("gpu_names")) {
      for (const auto& n : doc.at("gpu_names")) {
        const auto pattern = n.at("match").get<std::string>();
        kb.gpu_names.push_back(
            {compile(pattern, fmt::format("{} gpu_names", file)), n.at("arch").get<std::string>()});
      }
    }
  } catch (const json::exception& ex) {
    throw KbError(fmt::format("kb file {}: {}", path.string(), ex.what()));
  }
}

void load_wheels(const fs::path& path, KbData& kb) {
  kb.tables = WheelTables::load(read_json_file(path), path.filename().string());
}

/// The newest CUDA the machine's driver runs: nvidia-smi's "CUDA Version",
/// else the largest CUDA of the driver table whose minimum this driver meets
/// (on the machine's OS); "" when the driver is not known.
std::string driver_max_cuda(const KbData& kb, const MachineFacts& f) {
  if (!f.driver_cuda.empty()) return f.driver_cuda;
  if (f.driver.empty()) return {};
  std::string best;
  for (const auto& d : kb.drivers) {
    const std::string& need = f.os == "windows" ? d.windows_min : d.linux_min;
    if (need.empty() || compare_versions(f.driver, need) < 0) continue;
    if (best.empty() || compare_versions(d.cuda, best) > 0) best = d.cuda;
  }
  // From CUDA 11.1 on, one driver runs every minor version of its major
  // (NVIDIA's minor-version compatibility): 11.1 -> any 11.x.
  if (!best.empty() && compare_versions(best, "11.1") >= 0)
    best = fmt::format("{}.99", parse_version(best)[0]);
  return best;
}

void add_to_set(PatternSet& ps, SetItem::Kind kind, std::size_t owner, const RE2& re) {
  std::string err;
  const int idx = ps.set->Add(sp(re.pattern()), &err);
  if (idx < 0) throw KbError(fmt::format("pattern '{}' cannot join the matching set: {}", re.pattern(), err));
  ps.items.push_back({kind, owner, &re});
}

void build_sets(KbData& kb) {
  RE2::Options opt;
  opt.set_log_errors(false);
  opt.set_max_mem(int64_t{256} << 20);  // the DFA state cache; matching falls back per pattern if exceeded
  kb.line_set.set = std::make_unique<RE2::Set>(opt, RE2::UNANCHORED);
  kb.window_set.set = std::make_unique<RE2::Set>(opt, RE2::UNANCHORED);
  for (std::size_t i = 0; i < kb.errors.size(); ++i) {
    for (const auto& re : kb.errors[i].patterns) add_to_set(kb.line_set, SetItem::kEntry, i, *re);
    for (const auto& re : kb.errors[i].unless) add_to_set(kb.line_set, SetItem::kUnless, i, *re);
    for (const auto& re : kb.errors[i].window_patterns) add_to_set(kb.window_set, SetItem::kEntry, i, *re);
  }
  for (std::size_t i = 0; i < kb.hints.size(); ++i) {
    for (const auto& re : kb.hints[i].patterns) add_to_set(kb.line_set, SetItem::kHint, i, *re);
    for (const auto& re : kb.hints[i].window_patterns) add_to_set(kb.window_set, SetItem::kHint, i, *re);
  }
  for (std::size_t i = 0; i < kb.facts.size(); ++i)
    add_to_set(kb.line_set, SetItem::kFact, i, *kb.facts[i].re);
  if (!kb.line_set.items.empty() && !kb.line_set.set->Compile()) {
    throw KbError("the kb patterns do not fit in RE2's memory budget");
  }
  if (kb.window_set.items.empty()) {
    kb.window_set.set.reset();
  } else if (!kb.window_set.set->Compile()) {
    throw KbError("the kb window patterns do not fit in RE2's memory budget");
  }
}

/// Named captures of `re` in `text`; existing keys are kept (first value wins).
void extract_captures(const RE2& re, std::string_view text, std::map<std::string, std::string>& out) {
  const int n = re.NumberOfCapturingGroups();
  if (n <= 0) return;
  std::vector<re2::StringPiece> sub(static_cast<std::size_t>(n) + 1);
  if (!re.Match(sp(text), 0, text.size(), RE2::UNANCHORED, sub.data(), n + 1)) return;
  for (const auto& [name, idx] : re.NamedCapturingGroups()) {
    const auto& m = sub[static_cast<std::size_t>(idx)];
    if (m.data() == nullptr || out.count(name)) continue;
    const std::string value = trim(std::string_view(m.data(), m.size()));
    if (!value.empty()) out[name] = value.substr(0, 200);
  }
}

// ---------------------------------------------------------------- machine context

std::string cc_to_sm(std::string_view cc) {
  const auto v = parse_version(cc);
  if (v.size() < 2) return {};
  return fmt::format("sm_{}{}", v[0], v[1]);
}

std::string os_family(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 wsl(R"(\bwsl)");
  static const RE2 win(R"(\bwin(?:dows|10|11|32|64)?\b|\bwindows)");
  static const RE2 mac(
      R"(\bmac\s?os|\bos\s?x\b|\bdarwin\b|apple silicon|\bmacbook|\bmac (?:mini|studio|pro)\b|\bimac\b)");
  static const RE2 linux_re(
      R"(\blinux\b|ubuntu|debian|fedora|\barch\b|manjaro|\brhel\b|red hat|centos|rocky|alma|opensuse|\bsuse|mint|pop!?_os|gentoo|nixos|endeavour|cachyos|kubuntu|\bsteamos|\bbazzite)");
  if (RE2::PartialMatch(t, wsl)) return "wsl";
  if (RE2::PartialMatch(t, win)) return "windows";
  if (RE2::PartialMatch(t, mac)) return "macos";
  if (RE2::PartialMatch(t, linux_re)) return "linux";
  return {};
}

std::string backend_family(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 dml(R"(directml|\bdml\b|privateuse)");
  static const RE2 mps(R"(\bmps\b|\bmetal\b)");
  static const RE2 xpu(R"(\bxpu\b|\bipex\b|oneapi|intel extension)");
  static const RE2 rocm(R"(\brocm|\bhip\b|miopen|therock|\+rocm)");
  static const RE2 cuda(R"(\bcuda|cudnn|\+cu[0-9])");
  static const RE2 cpu(R"(^\s*cpu\b)");
  if (RE2::PartialMatch(t, cpu)) return "cpu";
  if (RE2::PartialMatch(t, dml)) return "directml";
  if (RE2::PartialMatch(t, rocm)) return "rocm";
  if (RE2::PartialMatch(t, xpu)) return "xpu";
  if (RE2::PartialMatch(t, mps)) return "mps";
  if (RE2::PartialMatch(t, cuda)) return "cuda";
  return {};
}

std::string vendor_of(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 nvidia(R"(nvidia|geforce|\brtx\b|\bgtx\b|quadro|tesla|\bsm_[0-9])");
  static const RE2 amd(R"(radeon|instinct|\bgfx[0-9]|\brx\s?[0-9]{3,4}|\bamd gpu|\bmi[0-9]{2,3}x?\b)");
  static const RE2 intel(
      R"(intel arc|\barc\s?[ab][0-9]{3}|\bxe-|\bxe\b|iris xe|data center gpu max|\bxpu\b)");
  static const RE2 apple(R"(apple|\bm[1-4](?: pro| max| ultra)?\b)");
  if (RE2::PartialMatch(t, nvidia)) return "nvidia";
  if (RE2::PartialMatch(t, amd)) return "amd";
  if (RE2::PartialMatch(t, intel)) return "intel";
  if (RE2::PartialMatch(t, apple)) return "apple";
  return {};
}

std::string vendor_of_backend(std::string_view backend) {
  if (backend == "rocm") return "amd";
  if (backend == "cuda") return "nvidia";
  if (backend == "xpu") return "intel";
  if (backend == "mps") return "apple";
  return {};
}

std::string cuda_from_tag(std::string_view digits) {
  if (digits.size() == 2) return fmt::format("{}.{}", digits[0], digits[1]);
  if (digits.size() == 3) return fmt::format("{}.{}", digits.substr(0, 2), digits.substr(2));
  return {};
}

void add_gfx(MachineFacts& f, const std::string& g) {
  if (std::find(f.gfx_targets.begin(), f.gfx_targets.end(), g) == f.gfx_targets.end())
    f.gfx_targets.push_back(g);
}

/// Fills gfx/sm from GPU names when the text names no target.
void arch_from_names(const KbData& kb, std::string_view text, MachineFacts& f) {
  for (const auto& n : kb.gpu_names) {
    if (!RE2::PartialMatch(sp(text), *n.re)) continue;
    if (n.arch.rfind("gfx", 0) == 0) {
      if (f.gfx_targets.empty()) add_gfx(f, n.arch);
    } else if (f.sm.empty()) {
      f.sm = n.arch;
    }
  }
}

void choose_primary_gfx(const KbData& kb, MachineFacts& f) {
  f.gfx.clear();
  std::vector<std::string> candidates;
  for (const auto& g : f.gfx_targets) {
    if (g != f.reported_gfx || f.gfx_targets.size() == 1) candidates.push_back(g);
  }
  for (const auto& g : candidates) {  // a discrete GPU first
    const auto it = kb.gfx.find(g);
    if (it == kb.gfx.end() || !it->second.integrated) {
      f.gfx = g;
      break;
    }
  }
  if (f.gfx.empty() && !candidates.empty()) f.gfx = candidates.front();
  if (!f.gfx.empty()) {  // primary first
    auto& t = f.gfx_targets;
    t.erase(std::find(t.begin(), t.end(), f.gfx));
    t.insert(t.begin(), f.gfx);
  }
}

void derive_gpu_presence(const KbData& kb, std::string_view text, MachineFacts& f) {
  static const RE2 amd_igpu(
      R"((?i)(?:vega|radeon|amd|ryzen)[^,;+|]*\b(?:igpu|apu|integrated)\b|\b(?:igpu|apu|integrated)\b[^,;+|]*(?:vega|radeon|amd|ryzen)|radeon(?:\(tm\))? graphics|radeon\s*[0-9]{3}m\b|ryzen\s*[0-9]\s*(?:pro\s*)?[0-9]{4}g\b|\b80[56]0s\b|strix halo|steam deck)");
  static const RE2 bare_igpu(R"((?i)\bigpu\b|\bintegrated\b|\bapu\b)");
  static const RE2 intel(R"((?i)\bintel\b)");
  static const RE2 dgpu(
      R"((?i)\bdgpu\b|\bdiscrete\b|\brx\s*[0-9]{3,4}\b|instinct|radeon pro w|radeon vii|\bmi[0-9]{2,3}x?\b|geforce|\brtx\b|quadro|tesla)");
  bool igpu =
      RE2::PartialMatch(sp(text), amd_igpu) ||
      (f.vendor == "amd" && RE2::PartialMatch(sp(text), bare_igpu) && !RE2::PartialMatch(sp(text), intel));
  bool discrete = RE2::PartialMatch(sp(text), dgpu);
  for (const auto& g : f.gfx_targets) {
    const auto it = kb.gfx.find(g);
    if (it == kb.gfx.end()) continue;
    if (it->second.integrated) {
      igpu = true;
    } else {
      discrete = true;
    }
  }
  if (igpu) f.igpu = true;
  if (discrete) f.dgpu = true;
}

void parse_versions(std::string_view text, MachineFacts& f) {
  static const RE2 torch_v(
      R"((?i)\b(?:py)?torch\s*(?:version\s*)?[:=v]?\s*([0-9]+\.[0-9]+(?:\.[0-9]+)?[a-z0-9.+]*))");
  static const RE2 cu_tag(R"(\+cu([0-9]{2,3})\b)");
  static const RE2 cu_word(R"((?i)\bcu([0-9]{3})\b)");
  static const RE2 cuda_v(R"((?i)\bcuda\s*(?:version\s*)?:?\s*([0-9]{1,2}\.[0-9]))");
  static const RE2 rocm_tag(R"((?i)\+rocm([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  static const RE2 rocm_v(R"((?i)\brocm\s*([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  static const RE2 driver(R"((?i)driver\s*(?:version)?\s*:?\s*([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]+)?))");
  static const RE2 cpu_only(R"((?i)\+cpu\b|\bcpu[- ]only\b)");
  static const RE2 python_v(R"((?i)\bpython\s*(?:version\s*)?:?\s*(3\.[0-9]{1,2})\b)");
  std::string v;
  if (f.torch_version.empty() && RE2::PartialMatch(sp(text), torch_v, &v)) f.torch_version = v;
  if (f.torch_cuda.empty()) {
    if (RE2::PartialMatch(sp(text), cu_tag, &v) || RE2::PartialMatch(sp(text), cu_word, &v)) {
      f.torch_cuda = cuda_from_tag(v);
    } else if (RE2::PartialMatch(sp(text), cuda_v, &v)) {
      f.torch_cuda = v;
    }
  }
  if (f.torch_rocm.empty() &&
      (RE2::PartialMatch(sp(text), rocm_tag, &v) || RE2::PartialMatch(sp(text), rocm_v, &v))) {
    f.torch_rocm = v;
  }
  if (f.driver.empty() && RE2::PartialMatch(sp(text), driver, &v)) f.driver = v;
  if (f.python.empty() && RE2::PartialMatch(sp(text), python_v, &v)) f.python = v;
  if (!f.cpu_only_torch) {
    if (RE2::PartialMatch(sp(text), cpu_only)) {
      f.cpu_only_torch = true;
    } else if (RE2::PartialMatch(sp(text), cu_tag, &v) || RE2::PartialMatch(sp(text), rocm_tag, &v)) {
      f.cpu_only_torch = false;
    }
  }
}

void parse_env(std::string_view env, bool env_known, MachineFacts& f) {
  static const RE2 assign(R"(\b([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S*))");
  re2::StringPiece input = sp(env);
  std::string name, value;
  bool override_seen = false;
  f.env_known = f.env_known || env_known;
  while (RE2::FindAndConsume(&input, assign, &name, &value)) {
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
      value = value.substr(1, value.size() - 2);
    f.env_vars.emplace(name, value);
    if (name.rfind("HSA_OVERRIDE_GFX_VERSION", 0) == 0 && !value.empty()) {
      override_seen = true;
      if (f.override_value.empty()) f.override_value = value;
    }
    if ((name == "CUDA_VISIBLE_DEVICES" || name == "HIP_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES") &&
        (value.empty() || value == "-1")) {
      f.hints.push_back("visible_devices_empty");
    }
  }
  if (override_seen) {
    f.override_set = true;
  } else if (env_known && !f.override_set) {
    f.override_set = false;
  }
}

MachineFacts parse_context(const KbData& kb, const MachineContext& ctx) {
  MachineFacts f;
  const std::string all =
      ctx.arch + " | " + ctx.gpu + " | " + ctx.backend + " | " + ctx.versions + " | " + ctx.os;
  f.gpu = trim(ctx.gpu);
  f.measured_device = ctx.measured_device.substr(0, ctx.measured_device.find(':'));
  // OS: the os field first, then anything else that names one.
  f.os = os_family(ctx.os);
  if (f.os.empty()) f.os = os_family(all);
  // Backend: the backend field first, then version tags (+rocm6.2, +cu121).
  f.backend = backend_family(ctx.backend);
  if (f.backend.empty()) f.backend = backend_family(ctx.versions + " " + ctx.arch);
  // gfx targets, in order of mention; "reported as gfxNNNN" is what the runtime sees.
  static const RE2 gfx_re(R"((?i)\b(gfx[0-9]{2,4}[0-9a-fx])\b)");
  static const RE2 reported(
      R"((?i)(?:reported|seen|detected|shows?|identified)\s+as\s+(gfx[0-9]{2,4}[0-9a-fx])\b)");
  for (const std::string* field : {&ctx.arch, &ctx.gpu, &ctx.backend, &ctx.versions}) {
    re2::StringPiece in = sp(*field);
    std::string g;
    while (RE2::FindAndConsume(&in, gfx_re, &g)) add_gfx(f, lower(g));
  }
  std::string rep;
  if (RE2::PartialMatch(all, reported, &rep)) f.reported_gfx = lower(rep);
  // NVIDIA compute capability.
  static const RE2 sm_re(R"((?i)\bsm_?([0-9]{2,3})[a-z]?\b)");
  static const RE2 cc_re(R"((?i)(?:compute|cuda)\s*capability\s*:?\s*([0-9]+\.[0-9]+))");
  std::string v;
  if (RE2::PartialMatch(ctx.arch + " " + ctx.gpu, sm_re, &v)) {
    f.sm = "sm_" + v;
  } else if (RE2::PartialMatch(all, cc_re, &v)) {
    f.sm = cc_to_sm(v);
  }
  arch_from_names(kb, ctx.gpu + " | " + ctx.arch, f);
  choose_primary_gfx(kb, f);
  // Vendor: GPU words first, then the backend.
  f.vendor = vendor_of(ctx.gpu);
  if (f.vendor.empty()) f.vendor = vendor_of(ctx.arch);
  if (f.vendor.empty() && !f.gfx.empty()) f.vendor = "amd";
  if (f.vendor.empty() && !f.sm.empty()) f.vendor = "nvidia";
  if (f.vendor.empty()) f.vendor = vendor_of_backend(f.backend);
  if (f.vendor.empty()) {
    static const RE2 weak_amd(R"((?i)\bamd\b)");
    static const RE2 weak_intel(R"((?i)\bintel\b)");
    if (RE2::PartialMatch(ctx.gpu, weak_amd))
      f.vendor = "amd";
    else if (RE2::PartialMatch(ctx.gpu, weak_intel))
      f.vendor = "intel";
  }
  parse_versions(all, f);
  derive_gpu_presence(kb, ctx.arch + " | " + ctx.gpu, f);
  // Override: named in the text, a target "reported as" another, or in the environment.
  static const RE2 override_re(R"((?i)HSA_OVERRIDE_GFX_VERSION|\boverrid(?:e|den)\b)");
  static const RE2 override_value(R"((?i)overrid\w*[^0-9\n]{0,30}([0-9]+\.[0-9]+\.[0-9]+))");
  if (RE2::PartialMatch(all, override_re) || (!f.reported_gfx.empty() && f.reported_gfx != f.gfx)) {
    f.override_set = true;
    if (RE2::PartialMatch(all, override_value, &v)) f.override_value = v;
  }
  parse_env(ctx.env, ctx.env_known, f);
  return f;
}

/// Completes context facts with the GPUs a pasted tool output lists
/// (rocminfo, hipInfo, dxdiag, nvidia-smi): every gfx target, so an iGPU next
/// to a dGPU is seen; names through gpu_names; the driver. Context first.
void merge_tool_gpus(const KbData& kb, const std::vector<ToolGpu>& gpus, MachineFacts& f) {
  if (gpus.empty()) return;
  std::string names;
  MachineFacts found;
  for (const auto& g : gpus) {
    if (!g.arch.empty()) add_gfx(found, g.arch);
    if (!g.name.empty() && names.find(g.name) == std::string::npos)
      names += (names.empty() ? "" : " | ") + g.name;
  }
  for (const auto& g : gpus) {  // a GPU the tool names without a target: its name decides
    if (g.arch.empty() && !g.name.empty()) {
      MachineFacts named;
      arch_from_names(kb, g.name, named);
      for (const auto& t : named.gfx_targets) add_gfx(found, t);
      if (found.sm.empty()) found.sm = named.sm;
    }
  }
  if (f.gpu.empty()) f.gpu = names;
  if (f.gfx_targets.empty() && !found.gfx_targets.empty()) {
    f.gfx_targets = found.gfx_targets;
    choose_primary_gfx(kb, f);
  }
  if (f.sm.empty()) f.sm = found.sm;
  if (f.vendor.empty()) {
    if (!f.gfx.empty())
      f.vendor = "amd";
    else if (!f.sm.empty())
      f.vendor = "nvidia";
  }
  if (f.driver.empty() && f.vendor == "nvidia") {
    for (const auto& g : gpus) {
      if (g.tool == "nvidia-smi" && !g.driver.empty()) {
        f.driver = g.driver;
        break;
      }
    }
  }
  if (!f.igpu && !f.dgpu) derive_gpu_presence(kb, names, f);
}

/// Completes context facts with what the log said (context first).
void merge_log_facts(const KbData& kb, const std::map<std::string, std::string>& log, MachineFacts& f) {
  auto get = [&](const char* k) -> std::string {
    const auto it = log.find(k);
    return it == log.end() ? std::string() : it->second;
  };
  if (f.gfx_targets.empty() && !get("gfx").empty()) {
    add_gfx(f, lower(get("gfx")));
    choose_primary_gfx(kb, f);
  }
  if (f.sm.empty()) {
    if (!get("sm").empty())
      f.sm = lower(get("sm"));
    else if (!get("cc").empty())
      f.sm = cc_to_sm(get("cc"));
  }
  if (f.gpu.empty() && !get("gpu").empty()) {
    f.gpu = get("gpu");
    MachineFacts named;
    arch_from_names(kb, f.gpu, named);
    if (f.gfx_targets.empty() && !named.gfx_targets.empty()) {
      f.gfx_targets = named.gfx_targets;
      choose_primary_gfx(kb, f);
    }
    if (f.sm.empty()) f.sm = named.sm;
  }
  if (f.os.empty() && !get("os").empty()) f.os = os_family(get("os"));
  if (f.driver.empty()) f.driver = get("driver");
  if (f.driver_cuda.empty()) f.driver_cuda = get("driver_cuda");
  if (f.torch_cuda.empty()) f.torch_cuda = get("torch_cuda");
  if (f.python.empty() && !get("python").empty()) {
    // "3.11.9" -> "3.11"; a wheel tag's "313" -> "3.13".
    std::string py = get("python");
    if (py.find('.') == std::string::npos && py.size() >= 2) py = py.substr(0, 1) + "." + py.substr(1);
    const auto v = parse_version(py);
    if (v.size() >= 2) f.python = fmt::format("{}.{}", v[0], v[1]);
  }
  if (f.torch_rocm.empty()) f.torch_rocm = get("torch_rocm");
  if (f.torch_version.empty() && !get("torch_version").empty()) {
    f.torch_version = get("torch_version");
    parse_versions("torch " + f.torch_version, f);
  }
  if (!f.cpu_only_torch && get("cpu_only_torch") == "yes") f.cpu_only_torch = true;
  if (f.backend.empty()) f.backend = get("backend");
  if (f.vendor.empty()) {
    if (!f.gfx.empty())
      f.vendor = "amd";
    else if (!f.sm.empty())
      f.vendor = "nvidia";
    else if (!get("vendor").empty())
      f.vendor = get("vendor");
    else
      f.vendor = vendor_of_backend(f.backend);
  }
}

// ---------------------------------------------------------------- conditions

struct EvalContext {
  const KbData& kb;
  const MachineFacts& f;
  const std::map<std::string, std::string>& captures;
  const GfxArch* gfx = nullptr;
  const SmArch* sm = nullptr;
  const DriverMin* driver_min = nullptr;
};

bool matches_value(const json& want, const std::string& have, bool os_rule) {
  auto one = [&](const std::string& w) {
    const std::string lw = lower(w);
    if (lw == have) return true;
    return os_rule && lw == "linux" && have == "wsl";
  };
  if (want.is_string()) return one(want.get<std::string>());
  for (const auto& w : want) {
    if (one(w.get<std::string>())) return true;
  }
  return false;
}

std::string min_driver(const EvalContext& c) {
  if (!c.driver_min) return {};
  return c.f.os == "windows" ? c.driver_min->windows_min : c.driver_min->linux_min;
}

Tri eval(const json& cond, const EvalContext& c);

Tri eval_key(const std::string& key, const json& value, const EvalContext& c) {
  const MachineFacts& f = c.f;
  if (key == "vendor" || key == "backend" || key == "os") {
    const std::string& have = key == "vendor" ? f.vendor : key == "backend" ? f.backend : f.os;
    if (have.empty()) return Tri::U;
    return tri(matches_value(value, have, key == "os"));
  }
  if (key == "os_not") {
    // True unless the OS is known to be one of these: for advice that is
    // right on every OS but one (HSA_OVERRIDE_GFX_VERSION: not Windows), so
    // it is still given when nothing is known about the machine.
    if (f.os.empty()) return Tri::T;
    return tri(!matches_value(value, f.os, true));
  }
  if (key == "gfx_support" || key == "gfx_family" || key == "gfx_override") {
    if (!c.gfx) return Tri::U;
    const std::string& have = key == "gfx_support"  ? c.gfx->support
                              : key == "gfx_family" ? c.gfx->family
                                                    : c.gfx->override_value;
    return tri(matches_value(value, have, false));
  }
  if (key == "hint") {
    const auto id = value.get<std::string>();
    return tri(std::find(f.hints.begin(), f.hints.end(), id) != f.hints.end());
  }
  if (key == "measured_on") {
    // The device an operator check ran on ("cpu"): false, never unknown,
    // for a pasted log, which measured nothing.
    return tri(!f.measured_device.empty() && matches_value(value, f.measured_device, false));
  }
  if (key == "env_set") {
    // A variable of the machine's environment is set: unknown unless the
    // context lists every variable (a report, the live machine).
    const std::vector<std::string> names = value.is_string()
                                               ? std::vector<std::string>{value.get<std::string>()}
                                               : value.get<std::vector<std::string>>();
    for (const auto& n : names) {
      if (f.env_vars.count(n)) return Tri::T;
    }
    return f.env_known ? Tri::F : Tri::U;
  }
  if (key == "sm_at_least") {
    // "sm_90" >= 80: the GPU has what that architecture brings (bf16 and TF32
    // tensor cores from sm_80), so advice that it lacks it must not be given.
    int have = 0;
    if (f.sm.size() < 5 || !RE2::FullMatch(f.sm.substr(3), R"((\d+))", &have)) return Tri::U;
    return tri(have >= value.get<int>());
  }
  if (key == "known") {
    const auto name = value.get<std::string>();
    static const std::map<std::string, std::string MachineFacts::*> fields = {
        {"gfx", &MachineFacts::gfx},
        {"sm", &MachineFacts::sm},
        {"os", &MachineFacts::os},
        {"vendor", &MachineFacts::vendor},
        {"backend", &MachineFacts::backend},
        {"gpu", &MachineFacts::gpu},
        {"driver", &MachineFacts::driver},
        {"torch_cuda", &MachineFacts::torch_cuda},
        {"torch_version", &MachineFacts::torch_version},
        {"python", &MachineFacts::python}};
    const auto it = fields.find(name);
    if (it != fields.end()) return tri(!(f.*(it->second)).empty());
    return tri(c.captures.count(name) > 0);
  }
  if (key == "capture") {
    for (const auto& [name, re] : value.items()) {
      // The message is known in full: a value it does not carry makes the condition false.
      const auto it = c.captures.find(name);
      if (it == c.captures.end()) return Tri::F;
      const RE2& r = *c.kb.cond_regex.at(re.get<std::string>());
      if (!RE2::PartialMatch(it->second, r)) return Tri::F;
    }
    return Tri::T;
  }
  if (key == "capture_gt") {
    const auto a = c.captures.find(value[0].get<std::string>());
    const auto b = c.captures.find(value[1].get<std::string>());
    if (a == c.captures.end() || b == c.captures.end()) return Tri::U;
    const auto va = parse_size(a->second), vb = parse_size(b->second);
    if (!va || !vb) return Tri::U;
    return tri(*va > *vb);
  }
  Tri result = Tri::U;
  if (key == "integrated_and_discrete") {
    if ((f.igpu && !*f.igpu) || (f.dgpu && !*f.dgpu)) {
      result = Tri::F;
    } else if (f.igpu && f.dgpu) {
      result = Tri::T;
    }
  } else if (key == "override_set") {
    result = tri_from(f.override_set);
  } else if (key == "cpu_only_torch") {
    result = tri_from(f.cpu_only_torch);
  } else if (key == "cuda_older_than_arch") {
    if (c.sm && !c.sm->min_cuda.empty() && !f.torch_cuda.empty()) {
      result = tri(compare_versions(f.torch_cuda, c.sm->min_cuda) < 0);
    }
  } else if (key == "wheel_lacks_arch") {
    // The wheel table (kb/wheels.json) decides when it lists this torch
    // build and the GPU's target is known. Otherwise: true when torch's CUDA
    // and version fall in a range of official wheels that leave the GPU's
    // architecture out; unknown without the sm, torch's CUDA, or (for a range
    // that starts at some torch version) the version.
    const std::optional<bool> runs = c.kb.tables.build_runs_on(f);
    if (runs) {
      result = tri(!*runs);
    } else if (c.sm && !f.torch_cuda.empty()) {
      result = Tri::F;
      for (const auto& w : c.sm->wheels_without) {
        if (compare_versions(f.torch_cuda, w.cuda) < 0) continue;
        if (f.torch_version.empty()) {
          result = Tri::U;
        } else if (compare_versions(f.torch_version, w.torch) >= 0) {
          result = Tri::T;
          break;
        }
      }
    }
  } else if (key == "windows_hip_sdk") {
    // What AMD's HIP SDK for Windows enables for the GPU's target: "hip_sdk"
    // (runtime and libraries), "runtime" (HIP runtime only), "none"; a target
    // the table does not list counts as "none" (AMD: not listed = not supported).
    if (!f.gfx.empty() && f.gfx.find('x', 3) == std::string::npos && !c.kb.windows_hip_sdk.empty()) {
      const auto it = c.kb.windows_hip_sdk.find(f.gfx);
      result = tri(matches_value(value, it == c.kb.windows_hip_sdk.end() ? "none" : it->second, false));
    }
  } else if (key == "therock_has_arch") {
    // True when TheRock builds wheels for the GPU's gfx target on this OS.
    bool known = false;
    const TherockFamily* t = c.kb.tables.therock_family_for(f, &known);
    if (known) result = tri(t != nullptr);
  } else if (key == "driver_older_than_cuda") {
    const std::string need = min_driver(c);
    if (!f.driver.empty() && !need.empty()) {
      result = tri(compare_versions(f.driver, need) < 0);
    } else if (!f.driver_cuda.empty() && !f.torch_cuda.empty()) {
      result = tri(compare_versions(f.driver_cuda, f.torch_cuda) < 0);
    }
  } else if (key == "all") {
    result = Tri::T;
    for (const auto& sub : value) {
      const Tri t = eval(sub, c);
      if (t == Tri::F) return Tri::F;
      if (t == Tri::U) result = Tri::U;
    }
    return result;
  } else if (key == "any") {
    result = Tri::F;
    for (const auto& sub : value) {
      const Tri t = eval(sub, c);
      if (t == Tri::T) return Tri::T;
      if (t == Tri::U) result = Tri::U;
    }
    return result;
  } else if (key == "not") {
    return tri_not(eval(value, c));
  }
  if (value.is_boolean() && !value.get<bool>()) return tri_not(result);
  return result;
}

Tri eval(const json& cond, const EvalContext& c) {
  if (cond.is_null()) return Tri::T;
  Tri out = Tri::T;
  for (const auto& [key, value] : cond.items()) {
    const Tri t = eval_key(key, value, c);
    if (t == Tri::F) return Tri::F;
    if (t == Tri::U) out = Tri::U;
  }
  return out;
}

// ---------------------------------------------------------------- rendering

/// Replaces {name} and {name|default}; unknown names without a default become <name>.
std::string render(std::string_view text, const EvalContext& c) {
  auto lookup = [&](const std::string& name) -> std::string {
    if (const auto it = c.captures.find(name); it != c.captures.end()) return it->second;
    const MachineFacts& f = c.f;
    if (name == "gfx") return f.gfx;
    if (name == "gfx_name") return c.gfx ? c.gfx->name : "";
    if (name == "gfx_family") return c.gfx ? c.gfx->family : "";
    if (name == "gfx_note") return c.gfx ? c.gfx->note : "";
    if (name == "override") return c.gfx ? c.gfx->override_value : "";
    if (name == "sm") return f.sm;
    if (name == "sm_name") return c.sm ? c.sm->name : "";
    if (name == "min_cuda") return c.sm ? c.sm->min_cuda : "";
    if (name == "wheel") return c.sm ? c.sm->wheel : "";
    if (name == "torch_cuda") return f.torch_cuda;
    if (name == "torch_version") return f.torch_version;
    if (name == "driver") return f.driver;
    if (name == "min_driver") return min_driver(c);
    if (name == "dml_dtypes") return c.kb.dml_dtypes;
    if (name == "directml_inbox") return c.kb.directml_versions.inbox_text();
    if (name == "windows_hip_sdk") {
      const auto it = c.kb.windows_hip_sdk.find(f.gfx);
      if (f.gfx.empty() || c.kb.windows_hip_sdk.empty()) return {};
      if (it == c.kb.windows_hip_sdk.end() || it->second == "none") return "not supported";
      return it->second == "runtime" ? "the HIP runtime only (no HIP SDK libraries)"
                                     : "the HIP runtime and SDK libraries";
    }
    if (name == "therock_family" || name == "therock_index") {
      bool known = false;
      const TherockFamily* t = c.kb.tables.therock_family_for(f, &known);
      if (!t) return {};
      return name == "therock_family" ? t->family : "https://rocm.nightlies.amd.com/v2/" + t->family + "/";
    }
    if (name == "wheel_variant" || name == "wheel_archs" || name == "wheel_source") {
      const auto rows = c.kb.tables.rows_for(f);
      if (rows.empty()) return {};
      const TorchWheel* w = rows.front();
      if (name == "wheel_variant") return w->variant;
      if (name == "wheel_source") return w->source;
      std::string archs;
      for (const auto& a : w->archs) archs += (archs.empty() ? "" : " ") + a;
      if (!w->ptx.empty()) archs += " (+PTX " + w->ptx + ")";
      return archs;
    }
    if (name == "wheel_fit" || name == "wheel_fit_variant") {
      // The newest torch release and CUDA variant of the wheel table that
      // runs on this GPU (and this driver, when known).
      const auto fit = c.kb.tables.newest_fit(f, driver_max_cuda(c.kb, f));
      if (!fit) return {};
      if (name == "wheel_fit_variant") return fit->variant;
      return fmt::format(
          "torch {} with the {} wheels (pip install torch torchvision torchaudio --index-url "
          "https://download.pytorch.org/whl/{})",
          fit->torch, fit->variant, fit->variant);
    }
    if (name == "python") return f.python;
    if (name == "python_torch") return f.python.empty() ? "" : c.kb.tables.releases_for_python(f.python);
    if (name == "torch_newest") return c.kb.tables.newest_release();
    if (name == "os") return f.os;
    if (name == "vendor") return f.vendor;
    if (name == "backend") return f.backend;
    if (name == "gpu") return f.gpu;
    return {};
  };
  std::string out;
  out.reserve(text.size() + 32);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      out.push_back('{');
      ++i;
      continue;
    }
    if (ch == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      out.push_back('}');
      ++i;
      continue;
    }
    if (ch != '{') {
      out.push_back(ch);
      continue;
    }
    std::size_t close = std::string_view::npos;  // the matching brace: defaults may hold placeholders
    for (std::size_t j = i + 1, depth = 1; j < text.size(); ++j) {
      if (text[j] == '{') ++depth;
      if (text[j] == '}' && --depth == 0) {
        close = j;
        break;
      }
    }
    if (close == std::string_view::npos) {
      out.push_back(ch);
      continue;
    }
    const std::string_view inner = text.substr(i + 1, close - i - 1);
    const auto bar = inner.find('|');
    const std::string name(inner.substr(0, bar));
    const bool valid = !name.empty() && std::all_of(name.begin(), name.end(), [](char x) {
      return std::islower(static_cast<unsigned char>(x)) || std::isdigit(static_cast<unsigned char>(x)) ||
             x == '_';
    });
    if (!valid) {
      out.push_back(ch);
      continue;
    }
    std::string value = lookup(name);
    if (value.empty())
      value = bar == std::string_view::npos ? "<" + name + ">" : render(inner.substr(bar + 1), c);
    out += value;
    i = close;
  }
  return out;
}

// ---------------------------------------------------------------- scanning

struct EntryState {
  std::size_t count = 0;         // matching lines (not pattern hits)
  std::size_t last_counted = 0;  // line number counted last
  std::vector<std::string> lines;
  std::vector<std::size_t> numbers;
  std::map<std::string, std::string> captures;
  bool unless = false;
};

class Scanner {
 public:
  Scanner(const KbData& kb, const ExplainOptions& opt)
      : kb_(kb), opt_(opt), entries_(kb.errors.size()), hints_(kb.hints.size(), false) {}

  void feed(std::string_view line, std::size_t number) {
    if (line.empty()) return;
    tools_.line(line);
    match_set(kb_.line_set, line, number, false);
    if (kb_.window_set.set && !prev_.empty()) {
      window_.clear();
      window_.append(prev_).push_back('\n');
      window_.append(line);
      match_set(kb_.window_set, window_, number, true);
    }
    prev_.assign(line.data(), line.size());
    prev_number_ = number;
  }

  std::vector<EntryState>& entries() { return entries_; }
  const std::vector<bool>& hints() const { return hints_; }
  const std::map<std::string, std::string>& log_facts() const { return log_facts_; }
  std::vector<ToolGpu> tool_gpus() const { return tools_.gpus(); }

 private:
  void record(EntryState& st, std::string_view text, std::size_t number) {
    if (!st.numbers.empty() && st.numbers.back() == number) return;
    if (st.lines.size() >= opt_.max_lines_per_cause) return;
    std::string shown = cap_display(text);
    if (std::find(st.lines.begin(), st.lines.end(), shown) != st.lines.end()) return;  // repeated line
    st.lines.push_back(std::move(shown));
    st.numbers.push_back(number);
  }

  void handle(const SetItem& item, std::string_view text, std::size_t number, bool window) {
    switch (item.kind) {
      case SetItem::kEntry: {
        EntryState& st = entries_[item.owner];
        if (window) {
          const auto nl = text.find('\n');
          if (st.numbers.empty() || st.numbers.back() != prev_number_) {
            record(st, text.substr(0, nl), prev_number_);
          }
          record(st, text.substr(nl + 1), number);
        } else {
          record(st, text, number);
        }
        if (st.last_counted != number) {
          st.last_counted = number;
          ++st.count;
        }
        if (st.captures.size() < 24) extract_captures(*item.re, text, st.captures);
        break;
      }
      case SetItem::kUnless:
        entries_[item.owner].unless = true;
        break;
      case SetItem::kHint:
        hints_[item.owner] = true;
        break;
      case SetItem::kFact: {
        const FactPattern& fp = kb_.facts[item.owner];
        extract_captures(*fp.re, text, log_facts_);
        for (const auto& [k, v] : fp.set) log_facts_.emplace(k, v);
        break;
      }
    }
  }

  void match_set(const PatternSet& ps, std::string_view text, std::size_t number, bool window) {
    hits_.clear();
    RE2::Set::ErrorInfo info{};
    if (!ps.set->Match(sp(text), &hits_, &info)) {
      if (info.kind == RE2::Set::kNoError) return;  // nothing matched
      // The DFA ran out of memory on this input: match pattern by pattern.
      hits_.clear();
      for (std::size_t i = 0; i < ps.items.size(); ++i) {
        if (RE2::PartialMatch(sp(text), *ps.items[i].re)) hits_.push_back(static_cast<int>(i));
      }
    }
    std::sort(hits_.begin(), hits_.end());  // pattern order: specific patterns capture first
    for (const int idx : hits_) handle(ps.items[static_cast<std::size_t>(idx)], text, number, window);
  }

  const KbData& kb_;
  const ExplainOptions& opt_;
  std::vector<EntryState> entries_;
  std::vector<bool> hints_;
  std::map<std::string, std::string> log_facts_;
  ToolOutputReader tools_;
  std::vector<int> hits_;
  std::string prev_, window_;
  std::size_t prev_number_ = 0;
};

struct Chosen {
  const Variant* v;
  bool applies;
  int support = 0;  // conditions of the fix already true on this machine (ranks listed possibilities)
};

/// How many of a condition's parts are already true here: a possibility
/// whose conditions are partly met (the vendor matches, a hint was seen) is
/// more likely than one about which nothing is known.
int support(const json& cond, const EvalContext& c) {
  if (!cond.is_object()) return 0;
  int n = 0;
  for (const auto& [key, value] : cond.items()) {
    if (key == "all" || key == "any") {
      for (const auto& sub : value) n += support(sub, c);
    } else if (key != "not" && key != "os_not" && eval_key(key, value, c) == Tri::T) {
      // (os_not is true whenever the OS is unknown: no evidence either way)
      ++n;
    }
  }
  return n;
}

std::optional<Diagnosis> build_diagnosis(const KbData& kb, const ErrorEntry& e, EntryState& st,
                                         const MachineFacts& facts) {
  EvalContext c{kb, facts, st.captures};
  if (!facts.gfx.empty()) {
    const auto it = kb.gfx.find(facts.gfx);
    if (it != kb.gfx.end()) c.gfx = &it->second;
  }
  if (!facts.sm.empty()) {
    const auto it = kb.sm.find(facts.sm);
    if (it != kb.sm.end()) c.sm = &it->second;
  }
  if (!facts.torch_cuda.empty()) {
    for (const auto& d : kb.drivers) {
      if (compare_versions(d.cuda, facts.torch_cuda) <= 0) c.driver_min = &d;
    }
  }
  std::vector<Variant> scratch;
  const auto& variants = kb.variants_of(e, scratch);
  std::vector<Chosen> regular_true, regular_unknown, fallback_true, fallback_unknown;
  for (const auto& v : variants) {
    const Tri t = eval(v.when, c);
    if (t == Tri::F) continue;
    auto& bucket = v.fallback ? (t == Tri::T ? fallback_true : fallback_unknown)
                              : (t == Tri::T ? regular_true : regular_unknown);
    bucket.push_back({&v, t == Tri::T, t == Tri::U ? support(v.when, c) : 0});
  }
  if (e.evidence && regular_true.empty()) return std::nullopt;  // the facts say nothing wrong
  std::vector<Chosen> shown;
  bool listing = false;
  if (!regular_true.empty()) {
    shown = regular_true;
  } else if (!regular_unknown.empty()) {
    listing = true;
    shown = regular_unknown;
    for (auto& x : fallback_true) shown.push_back({x.v, false});
    for (auto& x : fallback_unknown) shown.push_back({x.v, false});
    for (auto& x : shown) x.applies = false;
    // Most likely first: more of its conditions already true (stable: file order otherwise).
    std::stable_sort(shown.begin(), shown.end(),
                     [](const Chosen& a, const Chosen& b) { return a.support > b.support; });
  } else if (!fallback_true.empty()) {
    shown = fallback_true;
  } else if (!fallback_unknown.empty()) {
    listing = true;
    shown = fallback_unknown;
    for (auto& x : shown) x.applies = false;
  }

  Diagnosis d;
  d.id = e.id;
  d.title = render(e.title, c);
  d.cause = render(e.cause, c);
  d.reference = e.reference;
  d.status = e.status;
  d.severity = e.severity;
  d.score = e.priority;
  d.match_count = st.count;
  d.matched_lines = std::move(st.lines);
  d.line_numbers = std::move(st.numbers);
  d.details = st.captures;
  d.check_where = e.check_where;
  d.context_needed = listing;
  for (const auto& x : shown) {
    FixOption o;
    o.when = x.v->when.is_null() && !listing ? "" : render(x.v->label, c);
    o.text = render(x.v->fix, c);
    o.applies = x.applies;
    o.check = render(x.v->check, c);
    d.fixes.push_back(std::move(o));
  }
  if (!listing) {
    for (const auto& x : shown) {
      if (!x.v->cause.empty()) {
        d.cause = render(x.v->cause, c);
        break;
      }
    }
  }
  if (d.fixes.empty()) d.fixes.push_back({"", render(e.fix, c), true});
  if (listing) {
    d.fix = "Which fix applies depends on the machine:";
    for (const auto& o : d.fixes) {
      d.fix += o.when == "otherwise" ? fmt::format("\n- otherwise: {}", o.text)
                                     : fmt::format("\n- if {}: {}", o.when, o.text);
      if (!o.check.empty()) d.fix += fmt::format(" (To tell: {})", o.check);
    }
  } else if (d.fixes.size() == 1) {
    d.fix = d.fixes.front().text;
  } else {
    for (std::size_t i = 0; i < d.fixes.size(); ++i) {
      if (i) d.fix += "\n";
      d.fix += "- " + d.fixes[i].text;
    }
  }
  return d;
}

std::vector<Diagnosis> finish(const KbData& kb, Scanner& sc, const MachineContext& ctx,
                              MachineFacts* facts_out) {
  MachineFacts facts = parse_context(kb, ctx);
  merge_tool_gpus(kb, sc.tool_gpus(), facts);
  merge_log_facts(kb, sc.log_facts(), facts);
  for (std::size_t i = 0; i < kb.hints.size(); ++i) {
    if (sc.hints()[i]) facts.hints.push_back(kb.hints[i].id);
  }
  std::vector<Diagnosis> out;
  std::set<std::string> suppressed;
  auto& states = sc.entries();
  for (std::size_t i = 0; i < kb.errors.size(); ++i) {
    if (states[i].count == 0 || states[i].unless) continue;
    for (const auto& s : kb.errors[i].suppresses) suppressed.insert(s);
  }
  for (std::size_t i = 0; i < kb.errors.size(); ++i) {
    auto& st = states[i];
    if (st.count == 0 || st.unless || suppressed.count(kb.errors[i].id)) continue;
    if (auto d = build_diagnosis(kb, kb.errors[i], st, facts)) out.push_back(std::move(*d));
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnosis& a, const Diagnosis& b) {
    if (a.score != b.score) return a.score > b.score;
    const std::size_t la = a.line_numbers.empty() ? 0 : a.line_numbers.front();
    const std::size_t lb = b.line_numbers.empty() ? 0 : b.line_numbers.front();
    return la < lb;
  });
  if (facts_out) *facts_out = std::move(facts);
  return out;
}

/// Splits text into lines on \n, \r\n and bare \r (progress bars), feeding each.
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t start = 0, number = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n' || text[i] == '\r') {
      ++number;
      fn(text.substr(start, i - start), number);
      if (i < text.size() && text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- public API

KnowledgeBase::KnowledgeBase() : impl_(std::make_unique<Impl>()) {}
KnowledgeBase::~KnowledgeBase() = default;
KnowledgeBase::KnowledgeBase(KnowledgeBase&&) noexcept = default;
KnowledgeBase& KnowledgeBase::operator=(KnowledgeBase&&) noexcept = default;

KnowledgeBase KnowledgeBase::load(const std::string& dir) {
  KnowledgeBase kb;
  const fs::path root(dir);
  const auto files = error_files(root);
  if (files.empty()) {
    throw KbError(fmt::format("kb directory {} has no errors/*.json and no errors.json", root.string()));
  }
  load_errors(files, *kb.impl_);
  const fs::path arch_path = root / "arch.json";
  if (fs::exists(arch_path)) load_arch(arch_path, *kb.impl_);
  const fs::path wheels_path = root / "wheels.json";
  if (fs::exists(wheels_path)) load_wheels(wheels_path, *kb.impl_);
  const fs::path env_path = root / "env_vars.json";
  if (fs::exists(env_path)) {
    try {
      const json doc = read_json_file(env_path);  // kept alive: the loop reads into it
      for (const auto& v : doc.at("variables")) {
        kb.impl_->env.push_back({v.at("name").get<std::string>(), v.value("effect", "")});
      }
    } catch (const json::exception& ex) {
      throw KbError(fmt::format("kb file {}: {}", env_path.string(), ex.what()));
    }
  }
  build_sets(*kb.impl_);
  return kb;
}

KnowledgeBase KnowledgeBase::load_default() {
  const std::string dir = find_kb_dir();
  if (const char* env = std::getenv("ACCEL_DOCTOR_KB"); env && *env) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw KbError(fmt::format("ACCEL_DOCTOR_KB={}: not a directory (point it at the kb/ directory)", env));
    }
    if (error_files(fs::path(dir)).empty()) {
      throw KbError(fmt::format(
          "ACCEL_DOCTOR_KB={}: no errors/*.json or errors.json there (point it at the kb/ directory)", env));
    }
  }
  if (dir.empty()) {
    throw KbError(
        "knowledge base not found: set ACCEL_DOCTOR_KB to the kb/ directory, or keep kb/ beside "
        "the accel-doctor binary");
  }
  return load(dir);
}

std::vector<Diagnosis> KnowledgeBase::explain(std::string_view text, const MachineContext& ctx) const {
  const ExplainOptions opt;
  Scanner sc(*impl_, opt);
  std::string line;
  for_each_line(text, [&](std::string_view l, std::size_t n) {
    if (l.size() > opt.max_line_bytes) l = l.substr(0, opt.max_line_bytes);
    if (l.find('\x1b') != std::string_view::npos) {
      line.assign(l.data(), l.size());
      strip_ansi(line);
      sc.feed(line, n);
    } else {
      sc.feed(l, n);
    }
  });
  return finish(*impl_, sc, ctx, nullptr);
}

ExplainResult KnowledgeBase::explain_stream(std::istream& in, const MachineContext& ctx,
                                            const ExplainOptions& options) const {
  ExplainResult result;
  Scanner sc(*impl_, options);
  std::string line;
  line.reserve(std::min<std::size_t>(options.max_line_bytes, 1 << 16));
  bool skipping = false;  // the current line passed max_line_bytes
  bool after_cr = false;  // swallow the \n of \r\n
  std::size_t number = 0;
  std::size_t control = 0;  // control bytes (not tab or ESC) and NULs in the current line
  std::size_t nuls = 0;     // NULs in the current line
  auto flush = [&] {
    ++number;
    // UTF-16LE text (a PowerShell `>` redirect): every other byte a NUL.
    if (nuls > 0 && nuls * 5 >= line.size() * 2) {
      line.erase(std::remove(line.begin(), line.end(), '\0'), line.end());
      control -= nuls;
      nuls = 0;
    }
    // A line of binary data (an executable, a core file: strings between NULs)
    // is not a log line; the knowledge base's own patterns inside
    // accel-doctor's binary would otherwise "recognise" every cause.
    const bool binary_line = nuls > 0 || control * 20 > line.size();
    if (!binary_line) {
      strip_ansi(line);
      sc.feed(line, number);
    }
    line.clear();
    control = 0;
    nuls = 0;
    skipping = false;
  };
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    result.bytes += got;
    for (std::size_t i = 0; i < got; ++i) {
      const char ch = buf[i];
      if (ch == '\n' || ch == '\r') {
        if (ch == '\n' && after_cr) {
          after_cr = false;
          continue;
        }
        after_cr = ch == '\r';
        flush();
        continue;
      }
      after_cr = false;
      if (ch == '\0') {
        result.binary = true;
        ++nuls;
      }
      const auto uch = static_cast<unsigned char>(ch);
      if ((uch < 0x20 && ch != '\t' && ch != '\x1b') || uch == 0x7f) ++control;
      if (skipping) continue;
      if (line.size() >= options.max_line_bytes) {
        skipping = true;
        ++result.long_lines;
        continue;
      }
      line.push_back(ch);
    }
  }
  if (!line.empty() || skipping) flush();
  result.lines = number;
  result.diagnoses = finish(*impl_, sc, ctx, &result.facts);
  return result;
}

std::optional<Diagnosis> KnowledgeBase::classify(std::string_view message, const MachineContext& ctx) const {
  auto all = explain(message, ctx);
  for (auto& d : all) {  // a harmless warning in the text is not the cause of a failure
    if (d.severity != "info") return std::move(d);
  }
  return std::nullopt;
}

MachineFacts KnowledgeBase::machine_facts(const MachineContext& ctx) const {
  return parse_context(*impl_, ctx);
}

std::optional<GfxArch> KnowledgeBase::gfx_arch(std::string_view target) const {
  const auto it = impl_->gfx.find(lower(target));
  if (it == impl_->gfx.end()) return std::nullopt;
  return it->second;
}

const DirectMlVersionTable& KnowledgeBase::directml_versions() const { return impl_->directml_versions; }

std::string KnowledgeBase::windows_hip_sdk_level(std::string_view gfx) const {
  const auto& t = impl_->windows_hip_sdk;
  if (t.empty() || gfx.empty()) return "";
  const auto it = t.find(std::string(gfx));
  return it == t.end() ? "none" : it->second;
}

std::vector<std::string> KnowledgeBase::windows_hip_sdk_targets(std::string_view level) const {
  std::vector<std::string> out;
  for (const auto& [gfx, l] : impl_->windows_hip_sdk) {
    if (l == level) out.push_back(gfx);
  }
  return out;
}

std::optional<SmArch> KnowledgeBase::sm_arch(std::string_view target) const {
  const auto it = impl_->sm.find(lower(target));
  if (it == impl_->sm.end()) return std::nullopt;
  return it->second;
}

std::string KnowledgeBase::env_var_effect(std::string_view name) const {
  for (const auto& e : impl_->env) {
    if (!e.name.empty() && e.name.back() == '*') {
      if (name.substr(0, e.name.size() - 1) == std::string_view(e.name).substr(0, e.name.size() - 1)) {
        return e.effect;
      }
    } else if (e.name == name) {
      return e.effect;
    }
  }
  return {};
}

std::vector<std::string> KnowledgeBase::env_var_patterns() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->env) out.push_back(e.name);
  return out;
}

std::size_t KnowledgeBase::error_entry_count() const { return impl_->errors.size(); }

std::vector<std::string> KnowledgeBase::error_entry_ids() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->errors) out.push_back(e.id);
  return out;
}

std::vector<std::string> KnowledgeBase::error_entry_examples(std::string_view id) const {
  for (const auto& e : impl_->errors) {
    if (e.id == id) return e.examples;
  }
  return {};
}

std::string find_kb_dir() {
  // ACCEL_DOCTOR_KB, when set, is the kb: a wrong one is the user's set-up
  // error to hear about (load_default), never silently replaced by another.
  if (const char* env = std::getenv("ACCEL_DOCTOR_KB"); env && *env) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::path(env), ec);
    return ec ? std::string(env) : p.string();
  }
  std::vector<fs::path> candidates;
  const std::string exe = executable_dir();
  if (!exe.empty()) {
    candidates.push_back(fs::path(exe) / "kb");
    candidates.push_back(fs::path(exe) / ".." / "share" / "accel-doctor" / "kb");
  }
#ifdef ACCEL_SOURCE_KB_DIR
  candidates.emplace_back(ACCEL_SOURCE_KB_DIR);
#endif
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!error_files(c).empty()) return fs::weakly_canonical(c, ec).string();
  }
  return {};
}

json diagnosis_to_json(const Diagnosis& d) {
  json lines = json::array();
  for (std::size_t i = 0; i < d.matched_lines.size(); ++i) {
    lines.push_back(
        {{"line", i < d.line_numbers.size() ? d.line_numbers[i] : 0}, {"text", d.matched_lines[i]}});
  }
  json fixes = json::array();
  for (const auto& f : d.fixes) {
    json o = {{"when", f.when}, {"fix", f.text}, {"applies", f.applies}};
    if (!f.check.empty()) o["check"] = f.check;
    fixes.push_back(std::move(o));
  }
  json status;
  to_json(status, d.status);
  return json{{"id", d.id},
              {"title", d.title},
              {"severity", d.severity},
              {"status", status},
              {"score", d.score},
              {"cause", d.cause},
              {"fix", d.fix},
              {"fixes", fixes},
              {"context_needed", d.context_needed},
              {"reference", d.reference},
              {"match_count", d.match_count},
              {"matched_lines", lines},
              {"details", d.details}};
}

json machine_facts_to_json(const MachineFacts& f) {
  json j = json::object();
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  auto put_opt = [&](const char* k, const std::optional<bool>& v) {
    if (v) j[k] = *v;
  };
  put("os", f.os);
  put("backend", f.backend);
  put("vendor", f.vendor);
  put("gfx", f.gfx);
  if (f.gfx_targets.size() > 1) j["gfx_targets"] = f.gfx_targets;
  put("reported_gfx", f.reported_gfx);
  put("sm", f.sm);
  put("gpu", f.gpu);
  put("torch_version", f.torch_version);
  put("torch_cuda", f.torch_cuda);
  put("torch_rocm", f.torch_rocm);
  put("driver", f.driver);
  put("driver_cuda", f.driver_cuda);
  put("python", f.python);
  put("override_value", f.override_value);
  put_opt("override_set", f.override_set);
  put_opt("igpu", f.igpu);
  put_opt("dgpu", f.dgpu);
  put_opt("cpu_only_torch", f.cpu_only_torch);
  if (!f.hints.empty()) j["hints"] = f.hints;
  return j;
}

}  // namespace accel
