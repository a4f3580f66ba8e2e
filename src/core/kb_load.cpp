// The knowledge base: reading and validating kb/*.json (formats:
// docs/knowledge-base.md) into KbData, and compiling the pattern sets.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/kb_detail.hpp"
#include "core/log_key_lines.hpp"
#include "core/strings.hpp"

namespace accel {
namespace kb_detail {

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

namespace {

// The fact names log patterns and the context parser fill; entry captures may
// not reuse them (a capture would otherwise shadow the machine's facts).
const std::set<std::string>& fact_names() {
  static const std::set<std::string> names = {"gfx",
                                              "sm",
                                              "cc",
                                              "driver",
                                              "driver_cuda",
                                              "os",
                                              "gpu",
                                              "torch_cuda",
                                              "torch_rocm",
                                              "vendor",
                                              "backend",
                                              "torch_version",
                                              "cpu_only_torch",
                                              "python",
                                              "macos_version"};
  return names;
}

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
    } else if (key == "capture_gt" || key == "version_below" || key == "version_at_least") {
      // Two operands: names, or for the version conditions also a version ("12.3").
      if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_string()) {
        throw KbError(fmt::format(
            "{}: '{}' takes [name, name]{}", where, key,
            key == "capture_gt" ? "" : " (a name may be a version: [\"macos_version\", \"12.3\"])"));
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

/// Throws KbError when a cause or fix template cannot render as written.
void check_template(std::string_view text, const std::string& where) {
  if (std::string problem = template_problem(text); !problem.empty()) {
    throw KbError(fmt::format("{}: {}", where, problem));
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
    for (const std::string* text : {&var.fix, &var.cause, &var.label, &var.check}) check_template(*text, w);
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

}  // namespace

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

namespace {

/// Runs `step` on one kb file, turning a json error (a missing key, a wrong
/// type) into a KbError that names the file.
template <typename Step>
void in_kb_file(const fs::path& path, Step&& step) {
  try {
    step();
  } catch (const json::exception& ex) {
    throw KbError(fmt::format("kb file {}: {}", path.string(), ex.what()));
  }
}

void load_hints(const json& doc, const std::string& file, KbData& kb) {
  if (!doc.contains("hints")) return;
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

void load_facts(const json& doc, const std::string& file, KbData& kb) {
  if (!doc.contains("facts")) return;
  for (const auto& f : doc.at("facts")) {
    FactPattern fp;
    const std::string pattern = f.at("pattern").get<std::string>();
    const std::string where = fmt::format("{} fact '{}'", file, pattern);
    fp.re = compile(pattern, where);
    for (const auto& [name, idx] : fp.re->NamedCapturingGroups()) {
      (void)idx;
      if (!fact_names().count(name)) throw KbError(fmt::format("{}: unknown fact name '{}'", where, name));
    }
    if (f.contains("set")) {
      for (const auto& [k, v] : f.at("set").items()) {
        if (!fact_names().count(k)) throw KbError(fmt::format("{}: unknown fact name '{}'", where, k));
        fp.set[k] = v.get<std::string>();
      }
    }
    fp.weak = f.value("weak", false);
    for (const auto& u : string_list(f, "unless", where)) fp.unless.push_back(compile(u, where));
    kb.facts.push_back(std::move(fp));
  }
}

void load_fix_sets(const json& doc, const std::string& file, KbData& kb) {
  if (!doc.contains("fix_sets")) return;
  for (const auto& [name, arr] : doc.at("fix_sets").items()) {
    kb.fix_sets[name] = load_variants(arr, kb, fmt::format("{} fix set {}", file, name));
  }
}

/// An entry's texts, severity, priority and status.
void read_entry_meta(const json& e, const std::string& where, ErrorEntry& entry) {
  entry.title = e.value("title", "");
  entry.cause = e.value("cause", "");
  entry.fix = e.value("fix", "");
  entry.reference = e.value("reference", "");
  for (const std::string* text : {&entry.title, &entry.cause, &entry.fix}) check_template(*text, where);
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
}

/// An entry's patterns: of a line, of a window of lines, and `unless`.
void read_entry_patterns(const json& e, const std::string& where, ErrorEntry& entry) {
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
}

/// `unless_when`: a condition on the machine's facts that drops the entry.
void read_entry_unless_when(const json& e, const std::string& where, KbData& kb, ErrorEntry& entry) {
  if (!e.contains("unless_when")) return;
  entry.unless_when = e.at("unless_when");
  if (!entry.unless_when.is_object() || entry.unless_when.empty()) {
    throw KbError(fmt::format("{}: unless_when must be a non-empty condition object", where));
  }
  validate_condition(entry.unless_when, kb, where + " unless_when");
}

/// An entry's fix: one text, conditional fixes, or a shared fix set.
void read_entry_fixes(const json& e, const std::string& where, KbData& kb, ErrorEntry& entry) {
  if (e.contains("fixes")) entry.variants = load_variants(e.at("fixes"), kb, where);
  entry.fix_set = e.value("fix_set", "");
  if (!entry.fix_set.empty() && !kb.fix_sets.count(entry.fix_set)) {
    throw KbError(fmt::format("{}: unknown fix_set '{}'", where, entry.fix_set));
  }
  if (entry.fix.empty() && entry.variants.empty() && entry.fix_set.empty()) {
    throw KbError(fmt::format("{}: needs 'fix', 'fixes' or 'fix_set'", where));
  }
}

/// An entry's own `fix` next to conditional fixes is their "otherwise" (a
/// fallback variant) unless one of them, or of its fix set, already is: so it
/// is chosen when no conditional fix holds and listed last while the machine
/// is unknown. Added after read_entry_rest, whose checks of an entry with
/// possibilities are about the fixes the file lists.
void add_entry_fix_as_fallback(const KbData& kb, ErrorEntry& entry) {
  if (entry.fix.empty() || (entry.variants.empty() && entry.fix_set.empty())) return;
  const auto is_fallback = [](const Variant& v) { return v.fallback; };
  if (std::any_of(entry.variants.begin(), entry.variants.end(), is_fallback)) return;
  if (!entry.fix_set.empty()) {
    const auto& set = kb.fix_sets.at(entry.fix_set);
    if (std::any_of(set.begin(), set.end(), is_fallback)) return;
  }
  Variant otherwise;
  otherwise.fallback = true;
  otherwise.label = "otherwise";
  otherwise.fix = entry.fix;
  entry.variants.push_back(std::move(otherwise));
}

/// The rest: examples, what the entry suppresses, whether it is evidence,
/// and where an operator check it matches ran.
void read_entry_rest(const json& e, const std::string& where, ErrorEntry& entry) {
  entry.examples = string_list(e, "examples", where);
  entry.suppresses = string_list(e, "suppresses", where);
  entry.sources = string_list(e, "sources", where);
  for (const auto& url : entry.sources) {
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
      throw KbError(fmt::format(
          "{}: sources must be URLs of the threads the entry was written from, not '{}'", where, url));
    }
  }
  entry.possibilities = e.value("possibilities", false);
  if (entry.possibilities) {
    const auto unlabelled = std::find_if(entry.variants.begin(), entry.variants.end(),
                                         [](const Variant& v) { return v.label.empty() || v.check.empty(); });
    if (entry.variants.size() < 2 || unlabelled != entry.variants.end()) {
      throw KbError(
          fmt::format("{}: an entry with possibilities needs two or more fixes, each with a 'label' and a "
                      "'check' (how to tell)",
                      where));
    }
  }
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
    throw KbError(fmt::format("{}: check_where needs an (?P<op>...) capture in its first pattern", where));
  }
  if (entry.evidence && std::none_of(entry.variants.begin(), entry.variants.end(),
                                     [](const Variant& v) { return !v.fallback; })) {
    throw KbError(fmt::format("{}: an evidence entry needs conditional (non-fallback) fixes", where));
  }
}

/// The entries of one file; `ids` (id -> file) keeps ids unique across files.
void load_entries(const json& doc, const std::string& file, KbData& kb,
                  std::map<std::string, std::string>& ids) {
  if (!doc.contains("errors")) return;
  for (const auto& e : doc.at("errors")) {
    ErrorEntry entry;
    entry.id = e.at("id").get<std::string>();
    const std::string where = fmt::format("{} entry {}", file, entry.id);
    if (const auto [it, fresh] = ids.emplace(entry.id, file); !fresh) {
      throw KbError(fmt::format("{}: duplicate id (also in {})", where, it->second));
    }
    read_entry_meta(e, where, entry);
    read_entry_patterns(e, where, entry);
    read_entry_fixes(e, where, kb, entry);
    read_entry_unless_when(e, where, kb, entry);
    read_entry_rest(e, where, entry);
    add_entry_fix_as_fallback(kb, entry);
    kb.errors.push_back(std::move(entry));
  }
}

}  // namespace

/// Loads every error file as one knowledge base: the hints, facts and fix
/// sets of all files first (an entry may use a hint or fix set of another
/// file), then the entries; ids are unique across files.
void load_errors(const std::vector<fs::path>& paths, KbData& kb) {
  std::vector<json> docs;
  docs.reserve(paths.size());
  for (const auto& path : paths) docs.push_back(read_json_file(path));
  const auto file_of = [&](std::size_t i) { return paths[i].filename().string(); };
  // Hints and facts first, then fix sets (their conditions name hints).
  for (std::size_t i = 0; i < paths.size(); ++i) {
    in_kb_file(paths[i], [&] {
      if (!docs[i].is_object())
        throw KbError(fmt::format("{}: the file must hold a JSON object", file_of(i)));
      load_hints(docs[i], file_of(i), kb);
      load_facts(docs[i], file_of(i), kb);
    });
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    in_kb_file(paths[i], [&] { load_fix_sets(docs[i], file_of(i), kb); });
  }
  std::map<std::string, std::string> ids;  // id -> file
  for (std::size_t i = 0; i < paths.size(); ++i) {
    in_kb_file(paths[i], [&] { load_entries(docs[i], file_of(i), kb, ids); });
  }
}

void load_arch(const fs::path& path, KbData& kb) {
  const json doc = read_json_file(path);
  const std::string file = path.filename().string();
  in_kb_file(path, [&] {
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
  });
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

namespace {

void add_to_set(PatternSet& ps, SetItem::Kind kind, std::size_t owner, const RE2& re) {
  std::string err;
  const int idx = ps.set->Add(sp(re.pattern()), &err);
  if (idx < 0) throw KbError(fmt::format("pattern '{}' cannot join the matching set: {}", re.pattern(), err));
  ps.items.push_back({kind, owner, &re});
}

}  // namespace

void build_sets(KbData& kb) {
  RE2::Options opt;
  opt.set_log_errors(false);
  opt.set_max_mem(int64_t{256} << 20);  // the DFA state cache; matching falls back per pattern if exceeded
  kb.line_set.set = std::make_unique<RE2::Set>(opt, RE2::UNANCHORED);
  kb.window_set.set = std::make_unique<RE2::Set>(opt, RE2::UNANCHORED);
  kb.key_set.set = std::make_unique<RE2::Set>(opt, RE2::UNANCHORED);
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
  kb.key_line_res.clear();
  for (const auto& [pattern, weight] : key_line_patterns()) {
    kb.key_line_res.push_back(std::make_unique<RE2>(pattern, RE2::Quiet));
    if (!kb.key_line_res.back()->ok()) throw KbError("key-line pattern: " + kb.key_line_res.back()->error());
    add_to_set(kb.key_set, SetItem::kKeyLine, static_cast<std::size_t>(weight), *kb.key_line_res.back());
  }
  if (!kb.key_set.set->Compile()) throw KbError("the key-line patterns do not fit in RE2's memory budget");
  if (!kb.line_set.items.empty() && !kb.line_set.set->Compile()) {
    throw KbError("the kb patterns do not fit in RE2's memory budget");
  }
  if (kb.window_set.items.empty()) {
    kb.window_set.set.reset();
  } else if (!kb.window_set.set->Compile()) {
    throw KbError("the kb window patterns do not fit in RE2's memory budget");
  }
}

void build_example_index(KbData& kb) {
  kb.example_index = SimilarityIndex{};
  kb.example_lines.clear();
  for (std::size_t i = 0; i < kb.errors.size(); ++i) {
    const ErrorEntry& e = kb.errors[i];
    if (e.evidence) continue;  // version lines, not messages
    for (const auto& example : e.examples) {
      // Line by line: a log's key line is one line, and a lead shows the line it resembles.
      std::size_t start = 0;
      while (start <= example.size()) {
        const auto nl = example.find('\n', start);
        const std::string line = trim(std::string_view(example).substr(
            start, nl == std::string::npos ? std::string::npos : nl - start));
        if (!similarity_words(line).empty()) {
          kb.example_index.add(i, line);
          kb.example_lines.emplace_back(line);
        }
        if (nl == std::string::npos) break;
        start = nl + 1;
      }
    }
  }
  kb.example_index.finish();
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

}  // namespace kb_detail
}  // namespace accel
