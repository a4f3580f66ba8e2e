// The knowledge base: data files under kb/ (installed beside the binary),
// loaded at start. Error signatures are RE2 patterns mapped to a cause and a
// fix; the right fix can depend on the machine (gfx target, OS, backend), so
// every query takes a MachineContext.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct KbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What is known about the machine that produced a message. Any field may be
/// empty (unknown); free text is accepted ("Windows 11", "gfx1032 (dGPU)").
struct MachineContext {
  std::string os;        ///< "linux", "windows", "macos", or free text
  std::string arch;      ///< "gfx1032", "sm_90", or free text
  std::string backend;   ///< "rocm", "cuda", "directml", "mps", "xpu", "cpu", or free text
  std::string gpu;       ///< marketing name, free text
  std::string versions;  ///< free text
};

/// One recognised cause in a text.
struct Diagnosis {
  std::string id;          ///< kb/errors.json entry id
  std::string title;
  std::string cause;
  std::string fix;         ///< already specialised to the context
  std::string reference;
  Status status = Status::error;  ///< for operator errors: `error` or `unavailable`
  std::vector<std::string> matched_lines;
  double score = 0;        ///< higher is more specific
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
  /// The best cause for one operator error message, if any.
  std::optional<Diagnosis> classify(std::string_view message, const MachineContext& ctx) const;

  /// What an environment variable does (kb/env_vars.json), empty if unknown.
  std::string env_var_effect(std::string_view name) const;
  /// Names and prefixes (ending in '*') of the variables the kb describes.
  std::vector<std::string> env_var_patterns() const;

  std::size_t error_entry_count() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Where the kb directory is: $ACCEL_DOCTOR_KB, <exe dir>/kb,
/// <exe dir>/../share/accel-doctor/kb, then the source tree. Empty if none.
std::string find_kb_dir();

}  // namespace accel
