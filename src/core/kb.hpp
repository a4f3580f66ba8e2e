// The knowledge base: data files under kb/ (installed beside the binary),
// loaded at start. Error signatures are RE2 patterns mapped to a cause and a
// fix; the right fix can depend on the machine (gfx target, OS, backend), so
// every query takes a MachineContext. Entries carry conditional fixes
// ("when the GPU is RDNA2 gfx1031-gfx1036 ...") evaluated against what is
// known about the machine; with too little known, every possible fix is
// listed with the condition under which it applies. Formats: docs/knowledge-base.md.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "core/json.hpp"
#include "core/kb_directml.hpp"
#include "core/log_key_lines.hpp"

namespace accel {

struct KbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What is known about the machine that produced a message. Any field may be
/// empty (unknown); free text is accepted ("Windows 11", "gfx1032 (dGPU), Vega iGPU",
/// "torch 1.5.1+cu101, CUDA 10.1").
struct MachineContext {
  std::string os;        ///< "linux", "windows", "macos", or free text
  std::string arch;      ///< "gfx1032", "sm_90", or free text
  std::string backend;   ///< "rocm", "cuda", "directml", "mps", "xpu", "cpu", or free text
  std::string gpu;       ///< marketing name, free text
  std::string versions;  ///< free text
  /// Environment variables of the process, "NAME=value" separated by newlines
  /// or spaces (only the GPU-related ones matter). Free text is accepted.
  std::string env = {};  // (default initialisers keep 5-field aggregate initialisation warning-free)
  /// True when `env` lists every relevant variable that was set (e.g. taken
  /// from a report), so a variable missing from it is known to be unset.
  bool env_known = false;
  /// The device the run measured ("cpu", "cuda:0"): the context of an
  /// operator check's error; empty for a pasted log.
  std::string measured_device = {};
};

/// Facts read from a MachineContext (and, in explain, from the log itself).
/// Empty strings and empty optionals mean "not known".
struct MachineFacts {
  std::string os;       ///< "linux", "windows", "macos", "wsl" (WSL also counts as linux)
  std::string backend;  ///< "rocm", "cuda", "directml", "mps", "xpu", "cpu"
  std::string vendor;   ///< "amd", "nvidia", "intel", "apple"
  std::string gfx;      ///< primary AMD gfx target ("gfx1032", or a family wildcard "gfx103x")
  std::vector<std::string> gfx_targets;  ///< every gfx target mentioned, primary first
  std::string reported_gfx;  ///< the target the runtime reports when it differs ("reported as gfx1030")
  std::string sm;            ///< NVIDIA compute capability, "sm_86"
  std::string gpu;           ///< GPU name(s) as given
  std::string torch_version;
  std::string torch_cuda;  ///< CUDA version torch was built with, "10.1"
  std::string torch_rocm;
  std::string driver;                  ///< NVIDIA driver version, "410.48"
  std::string driver_cuda;             ///< newest CUDA the driver supports (nvidia-smi "CUDA Version")
  std::string python;                  ///< Python version, major.minor ("3.12")
  std::string macos_version;           ///< macOS product version when the OS is macOS ("12.2.1", sw_vers)
  std::string override_value;          ///< HSA_OVERRIDE_GFX_VERSION value when known
  std::optional<bool> override_set;    ///< HSA_OVERRIDE_GFX_VERSION (or per-device variant) in effect
  std::optional<bool> igpu;            ///< an integrated AMD GPU is present
  std::optional<bool> dgpu;            ///< a discrete GPU is present
  std::optional<bool> cpu_only_torch;  ///< the installed torch is the CPU-only build
  std::map<std::string, std::string> env_vars;  ///< NAME=value assignments of the context's environment
  bool env_known = false;                       ///< env_vars lists every relevant variable that is set
  std::string measured_device;                  ///< the measured device's type ("cpu", "cuda"); "" for a log
  std::vector<std::string> hints;               ///< ids of kb hints seen (log evidence, environment)
};

/// One fix of a diagnosis. `applies` is true when the machine context selects
/// it; false when it is one of several possibilities listed because the
/// context does not say which one applies (then `when` says when it does).
struct FixOption {
  std::string when;  ///< human-readable condition; "otherwise" for the fallback; empty if unconditional
  std::string text;
  bool applies = true;
  /// How to tell whether this possibility is the one (a command to run, a
  /// line to look for); empty when the kb says nothing. Listed possibilities
  /// come most likely first: those with more of their conditions already
  /// true on this machine lead.
  std::string check = {};
};

/// One recognised cause in a text.
struct Diagnosis {
  std::string id;  ///< kb/errors/*.json entry id
  std::string title;
  std::string cause;  ///< specialised to the context where a chosen fix refines it
  std::string fix;    ///< already specialised to the context (all of `fixes`, rendered)
  std::string reference;
  Status status = Status::error;           ///< for operator errors: `error` or `unavailable`
  std::vector<std::string> matched_lines;  ///< the first few matching lines (each capped)
  double score = 0;                        ///< higher is more specific (the entry's priority)
  // -- added with the conditional-fix engine
  std::string severity = "error";              ///< "error", "warning" or "info" (harmless)
  std::vector<FixOption> fixes;                ///< chosen fixes, or the possibilities when none is chosen
  bool context_needed = false;                 ///< the fix depends on facts the context does not give
  std::vector<std::size_t> line_numbers;       ///< 1-based, parallel to matched_lines
  std::size_t match_count = 0;                 ///< all matching lines (matched_lines keeps only a few)
  std::map<std::string, std::string> details;  ///< values captured from the matched lines (op, dtype, ...)
  /// The entry's `check_where`: what an operator check whose warning matched
  /// shows as where it ran ("cpu_fallback": the backend announced it ran the
  /// op named in details["op"] on the CPU); "" for none.
  std::string check_where;
  std::vector<std::string> sources;  ///< the public threads the kb entry was written from (URLs)
};

/// Limits of the streaming reader.
struct ExplainOptions {
  std::size_t max_line_bytes = 64 * 1024;  ///< longer lines are cut there (the rest is skipped)
  std::size_t max_lines_per_cause = 6;     ///< matching lines kept per diagnosis
};

/// A kb entry whose known messages read like a line of a log that nothing in
/// the kb matched: a lead to check, never a recognised cause. Similarity is
/// the cosine of TF-IDF word vectors (core/text_similarity.hpp), 0..1.
struct NearMatch {
  std::string id;               ///< kb/errors/*.json entry id
  std::string title;            ///< the entry's title (placeholders left at their defaults)
  double similarity = 0;        ///< 0..1
  std::size_t line_number = 0;  ///< the log line it resembles (1-based)
  std::string example;          ///< the line of the entry's examples it resembles most
};

/// The least similarity for a NearMatch. Chosen by leave-one-out over the
/// kb's 1846 example lines (2026-12-04, evidence entries left out): the
/// closest other line names the same entry for 76 % of lines at 0.8-0.9 and
/// 87 % at 0.9 or more, against 65 % at 0.7-0.8. On logs whose cause the kb does not have, a lead above it
/// is still often a related entry rather than the cause, hence "check".
inline constexpr double kNearMatchMinSimilarity = 0.8;

/// The outcome of reading a whole log.
struct ExplainResult {
  std::vector<Diagnosis> diagnoses;  ///< most specific first
  /// The lines that read most like the error (core/log_key_lines.hpp), in log order.
  std::vector<KeyLine> key_lines;
  /// When nothing was recognised: kb entries whose known messages resemble a
  /// key line, most similar first (at most 3); empty otherwise.
  std::vector<NearMatch> near_matches;
  MachineFacts facts;  ///< from the context, completed from the log
  std::size_t lines = 0;
  std::size_t bytes = 0;
  std::size_t long_lines = 0;  ///< lines cut at max_line_bytes
  bool binary = false;         ///< NUL bytes seen (binary input)
};

/// Facts about an AMD gfx target (kb/arch.json).
struct GfxArch {
  std::string target;          ///< "gfx1032"
  std::string family;          ///< "rdna2"
  std::string name;            ///< products
  std::string support;         ///< "native", "override", "override_risky", "none"
  std::string override_value;  ///< HSA_OVERRIDE_GFX_VERSION value, "" when none is safe
  bool integrated = false;
  std::string note;
  std::vector<std::string> sources;
};

/// Facts about an NVIDIA compute capability (kb/arch.json).
struct SmArch {
  std::string target;  ///< "sm_120"
  std::string family;  ///< "blackwell"
  std::string name;
  std::string min_cuda;  ///< first CUDA version with this architecture
  std::string wheel;     ///< which torch build to install for it
  /// Official torch wheels that leave this architecture out: every wheel of
  /// CUDA >= `cuda` of torch >= `torch` ("wheels_without" in arch.json).
  struct WheelDrop {
    std::string cuda, torch;
  };
  std::vector<WheelDrop> wheels_without;
};

class KnowledgeBase {
 public:
  /// Loads every kb file from `dir`. Throws KbError naming the file and entry
  /// on malformed data or an invalid RE2 pattern.
  static KnowledgeBase load(const std::string& dir);
  /// Loads from find_kb_dir(); throws KbError when no kb directory is found.
  static KnowledgeBase load_default();

  KnowledgeBase();
  ~KnowledgeBase();
  KnowledgeBase(KnowledgeBase&&) noexcept;
  KnowledgeBase& operator=(KnowledgeBase&&) noexcept;

  /// Every cause recognised in `text` (a log, traceback or error message),
  /// most specific first. Linear in the size of the text.
  std::vector<Diagnosis> explain(std::string_view text, const MachineContext& ctx) const;
  /// The same for a stream read line by line: memory stays bounded whatever
  /// the size of the input (long lines are cut, only matching lines are kept).
  ExplainResult explain_stream(std::istream& in, const MachineContext& ctx,
                               const ExplainOptions& options = {}) const;
  /// The best cause for one operator error message, if any. Harmless causes
  /// (severity "info", e.g. a missing MIOpen perf database) are never returned.
  std::optional<Diagnosis> classify(std::string_view message, const MachineContext& ctx) const;

  /// What the context says, parsed (gfx/sm targets, OS and backend family, versions).
  MachineFacts machine_facts(const MachineContext& ctx) const;
  /// kb/arch.json facts of a gfx target ("gfx1032", also wildcards "gfx103x").
  std::optional<GfxArch> gfx_arch(std::string_view target) const;
  /// kb/arch.json facts of an NVIDIA architecture ("sm_86").
  std::optional<SmArch> sm_arch(std::string_view target) const;
  /// kb/arch.json directml_versions: the in-box DirectML per Windows build and
  /// what each ONNX Runtime release needs (empty when the kb has none).
  const DirectMlVersionTable& directml_versions() const;
  /// kb/arch.json windows_hip_sdk for a gfx target: "hip_sdk", "runtime",
  /// "none" (not listed: not supported), "" without a table or target.
  std::string windows_hip_sdk_level(std::string_view gfx) const;
  /// The targets windows_hip_sdk lists at `level`, sorted ("gfx1031", "gfx1032" for "runtime").
  std::vector<std::string> windows_hip_sdk_targets(std::string_view level) const;

  /// What an environment variable does (kb/env_vars.json), empty if unknown.
  std::string env_var_effect(std::string_view name) const;
  /// Names and prefixes (ending in '*') of the variables the kb describes.
  std::vector<std::string> env_var_patterns() const;

  std::size_t error_entry_count() const;
  /// Ids of the error entries, in file order.
  std::vector<std::string> error_entry_ids() const;
  /// The sample lines of an entry ("examples" in kb/errors/*.json).
  std::vector<std::string> error_entry_examples(std::string_view id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Where the kb directory is: $ACCEL_DOCTOR_KB when set (alone, checked by
/// load_default), else the first of <exe dir>/kb,
/// <exe dir>/../share/accel-doctor/kb, then the source tree. Empty if none.
std::string find_kb_dir();

/// JSON forms used by `explain --json` (see docs/knowledge-base.md).
json diagnosis_to_json(const Diagnosis& d);
json machine_facts_to_json(const MachineFacts& f);

}  // namespace accel
