// The rules engine: turns the evidence of a run (a Report) into ranked
// findings, each with the numbers that triggered it, why it matters, the fix
// for this platform and a reference, plus a one-line verdict.
//
// Pure core code (no torch): every rule is a small function over the
// evidence, tested on reports recorded on real machines
// (tests/fixtures/reports/). Rules stay silent on healthy evidence; "info"
// findings are advice that never changes the exit code. The list of rules,
// what triggers each, and the thresholds with their reasons: docs/rules.md.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel {

struct RuleDataError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A setting in the environment that slows every run down (kb/rules.json
/// `slow_env_vars`): debugging switches, logging, disabled caches.
struct SlowEnvVar {
  std::string name;
  std::string match;  ///< RE2 pattern the value must match in full to count
  Severity severity = Severity::warning;
  std::string why;
  std::string fix;  ///< extra advice beyond "unset it"
};

/// A setting that makes operations fail or crash in a known way (kb/rules.json
/// `setting_symptoms`): when it is set and a failure's text matches one of
/// its symptoms, the failure is the setting's, not the device's.
struct SettingSymptom {
  std::string name;                   ///< variable name
  std::string value = ".*";           ///< RE2 the value must match in full to count
  std::vector<std::string> symptoms;  ///< RE2, partial match on the error text and stderr
  std::string effect;                 ///< what the setting does to cause the failure
  std::string fix;                    ///< advice beyond "unset it"
  std::string source;                 ///< where the behaviour is documented or was seen
};

/// Data the rules use that is not in the rest of kb/ (kb/rules.json).
struct RuleData {
  std::vector<SlowEnvVar> slow_env_vars;
  std::vector<SettingSymptom> setting_symptoms;
  /// AMD gfx families without bf16 arithmetic (kb/arch.json family names).
  std::vector<std::string> bf16_emulated_gfx_families;
  /// NVIDIA compute capabilities below this (major*10+minor) have no bf16 tensor cores.
  int bf16_min_sm = 80;

  /// Reads `rules.json` from a kb directory; throws RuleDataError naming the
  /// file and entry when it is malformed. A missing file gives the defaults
  /// (empty tables: the rules that need them stay silent).
  static RuleData load(const std::string& kb_dir);
  static RuleData parse(const std::string& text, const std::string& origin);
};

struct DiagnoseOptions {
  /// gfx/sm facts (kb/arch.json) for the architecture and HSA override rules;
  /// without it those rules only use what the report says.
  const KnowledgeBase* kb = nullptr;
  /// kb/rules.json; without it the rules that need its tables stay silent.
  const RuleData* data = nullptr;
};

/// Severity names, most severe first.
inline constexpr const char* kSeverities[] = {"critical", "warning", "info"};
/// 0 for critical, 1 warning, 2 info, 3 none.
int severity_rank(Severity severity);

/// Every rule over `report`, findings ranked by impact (highest first; ties:
/// the more severe first, then the id). Never throws on odd evidence: a rule
/// that meets a value it cannot read stays silent.
std::vector<Finding> diagnose(const Report& report, const DiagnoseOptions& options);

/// One line that answers the question: which device does the work, how well,
/// and how many problems, e.g.
///   "cuda:0 (NVIDIA H200) does the work: 112/114 checks ran on the device, bf16 GEMM at 78% of
///   peak; 1 warning"
///   "the GPU is not used: torch is a CPU-only build and an NVIDIA GeForce RTX 4090 is in the machine"
std::string verdict_line(const Report& report, const std::vector<Finding>& findings);

/// The verdict of `accel-doctor multi`: the group (ranks, hosts, backend),
/// its all-reduce bus bandwidth at the largest size, the slowest link, and
/// the findings' counts, e.g. "2 ranks on 1 host (nccl): all-reduce busbw
/// 361 GB/s at 1 GiB, slowest link r1 -> r0 at 388 GB/s; no problems found".
std::string multi_verdict_line(const Report& report, const std::vector<Finding>& findings);

/// True when a finding is at warning or above, or a check failed: what makes
/// `diagnose` and the default run exit with 1.
bool needs_attention(const Report& report, const std::vector<Finding>& findings);

/// The ids and one-line descriptions of every rule (for docs and `--list`).
struct RuleInfo {
  std::string id;
  std::string triggers;
};
std::vector<RuleInfo> list_rules();

}  // namespace accel
