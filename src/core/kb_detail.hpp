// Internal to the knowledge base, shared by its parts (not a public header:
// core/kb.hpp is the interface). The parts, one concept each:
//   kb_load.cpp       reading and validating kb/*.json into KbData, the pattern sets
//   kb_context.cpp    the machine's facts from a MachineContext, tool output and log lines
//   kb_condition.cpp  the condition language of entries and fixes ("when": {...})
//   kb_template.cpp   the {placeholder} template engine of causes and fixes
//   kb_match.cpp      matching lines (one RE2::Set pass) and streaming a log
//   kb_near_match.cpp the kb entries a log's error lines resemble when nothing matched
//   kb.cpp            KnowledgeBase's public API, kb lookups, JSON forms
#pragma once

#include <re2/re2.h>
#include <re2/set.h>

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/kb.hpp"
#include "core/kb_directml.hpp"
#include "core/kb_tool_output.hpp"
#include "core/kb_wheels.hpp"
#include "core/text_similarity.hpp"

namespace accel {
namespace kb_detail {

namespace fs = std::filesystem;

inline re2::StringPiece sp(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

/// A condition's value: false, true, or unknown (a fact the machine did not give).
enum class Tri { F, T, U };

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
  /// Negative evidence from the machine's facts: when this condition is true
  /// (a message several vendors print, on a machine of the other vendor) the
  /// entry is not reported; unknown keeps it. null: none.
  json unless_when;
  std::vector<Variant> variants;
  std::vector<std::string> examples, suppresses;
  /// The public threads (URLs) the entry was written from.
  std::vector<std::string> sources;
  /// The message has several known causes that the log cannot tell apart:
  /// its unconditional fixes are listed as ranked possibilities, each with
  /// how to tell it (a conditional fix that is true still answers alone).
  bool possibilities = false;
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
  /// An inference (a wheel's cp310 tag), used only when no other line of the
  /// log states the fact: a stated "Python 3.11.3" later in the log wins.
  bool weak = false;
  /// Lines that match the pattern but do not state the fact ("x-cp310-...whl
  /// is not a supported wheel on this platform": that wheel is not for this Python).
  std::vector<std::unique_ptr<RE2>> unless;
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
  enum Kind { kEntry, kUnless, kHint, kFact, kKeyLine } kind;
  std::size_t owner;  ///< index of the entry, hint or fact; the weight of a key line
  const RE2* re;
};

struct PatternSet {
  std::unique_ptr<RE2::Set> set;
  std::vector<SetItem> items;
};

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
  /// core/log_key_lines.hpp's patterns, in a small set of their own: inside
  /// line_set they slowed logs dense in error words by 1.4-1.8x (their
  /// matches on most lines kept the big DFA from finishing a line early).
  PatternSet key_set;
  std::vector<std::unique_ptr<RE2>> key_line_res;
  /// Every line of the examples of every non-evidence entry, for near
  /// matches of an unrecognised log; a document's label is its entry's index.
  SimilarityIndex example_index;
  std::vector<std::string> example_lines;  // document -> the example line it was made from

  const std::vector<Variant>& variants_of(const ErrorEntry& e, std::vector<Variant>& scratch) const {
    if (e.fix_set.empty()) return e.variants;
    scratch = e.variants;
    const auto& extra = fix_sets.at(e.fix_set);
    scratch.insert(scratch.end(), extra.begin(), extra.end());
    return scratch;
  }
};

// ---------------------------------------------------------------- conditions

struct EvalContext {
  const KbData& kb;
  const MachineFacts& f;
  const std::map<std::string, std::string>& captures;
  const GfxArch* gfx = nullptr;
  const SmArch* sm = nullptr;
  const DriverMin* driver_min = nullptr;
};

// ---------------------------------------------------------------- kb_load.cpp

// The loaders throw KbError naming the file (and the entry) on anything malformed.
json read_json_file(const fs::path& path);
/// kb/errors/*.json (sorted), else kb/errors.json; empty when neither exists.
std::vector<fs::path> error_files(const fs::path& root);
void load_errors(const std::vector<fs::path>& paths, KbData& kb);
void load_arch(const fs::path& path, KbData& kb);
void load_wheels(const fs::path& path, KbData& kb);
/// The newest CUDA the machine's NVIDIA driver supports ("" when unknown).
std::string driver_max_cuda(const KbData& kb, const MachineFacts& f);
/// Compiles every line and window pattern into kb.line_set / kb.window_set.
void build_sets(KbData& kb);
/// Indexes the examples of the entries for near matches (kb.example_index).
void build_example_index(KbData& kb);
/// Adds the named groups `re` captures in `text` to `out`.
void extract_captures(const RE2& re, std::string_view text, std::map<std::string, std::string>& out);

// ---------------------------------------------------------------- kb_near_match.cpp

/// Entries whose examples resemble one of `key_lines` (similarity at least
/// kNearMatchMinSimilarity), best first, at most `limit`.
std::vector<NearMatch> near_matches(const KbData& kb, const std::vector<KeyLine>& key_lines,
                                    std::size_t limit = 3);

// ---------------------------------------------------------------- kb_context.cpp

MachineFacts parse_context(const KbData& kb, const MachineContext& ctx);
void merge_tool_gpus(const KbData& kb, const std::vector<ToolGpu>& gpus, MachineFacts& f);
void merge_log_facts(const KbData& kb, const std::map<std::string, std::string>& log, MachineFacts& f);
/// The text fact `name` of the machine ("gfx", "driver_cuda", "macos_version",
/// ...; the one table of them, for `known`, version conditions and
/// placeholders); nullptr when `name` is not a text fact.
const std::string* text_fact(const MachineFacts& f, const std::string& name);

// ---------------------------------------------------------------- kb_condition.cpp

/// c.driver_min's minimum driver for the machine's OS ("" when there is none).
std::string min_driver(const EvalContext& c);
/// One key of a condition object; eval: a whole condition (null is true).
Tri eval_key(const std::string& key, const json& value, const EvalContext& c);
Tri eval(const json& cond, const EvalContext& c);

// ---------------------------------------------------------------- kb_template.cpp

/// `text` with its {placeholders} filled from the facts and the captures.
std::string render(std::string_view text, const EvalContext& c);

/// What is wrong with a template a kb file gives, "" when nothing: a
/// {name|default} whose default uses {name} (written as if the default were
/// shown when the value is known; it is shown when the value is unknown).
std::string template_problem(std::string_view text);

}  // namespace kb_detail

struct KnowledgeBase::Impl : kb_detail::KbData {};

}  // namespace accel
