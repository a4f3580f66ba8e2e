// The front end's side of the engine protocol (engine_api/engine_protocol.hpp):
// an Engine whose every call starts the engine executable (`<engine> serve`)
// and reads its answer. A suite run streams each item's start and result to
// the callbacks as the engine reports them; if the engine itself dies or
// falls silent, the results it sent are kept and the item it was running
// becomes `crashed` or `hung` (the engine's own workers isolate the items,
// so this is rare).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "engine_api/engine.hpp"
#include "engine_api/engine_protocol.hpp"

namespace accel::engine {

/// Where the front end looked for an engine and what it found.
struct EngineSearch {
  std::string path;  ///< the engine to run (the interpreter for kind python); empty when none was found
  std::vector<std::string> looked_at;  ///< every path tried, in order
  std::string why_not;                 ///< when `path` is empty: why (for the user)
  EngineHostKind kind = EngineHostKind::native;
  /// The argv before "serve": `[path]` for a native engine,
  /// `[python, -m, accel_doctor.engine]` for the Python one.
  std::vector<std::string> command;
  /// What was tried and not used, one line each ("no accel-doctor-torch
  /// beside accel-doctor", "python3: no accel_doctor package").
  std::vector<std::string> not_found;
};

/// The torch engine's file name on this OS ("accel-doctor-torch", ".exe" on Windows).
std::string torch_engine_file_name();

/// Finds the engine: `explicit_path` (--engine PATH) when given, else
/// `file_name` beside this executable. Never throws.
EngineSearch find_engine(const std::string& explicit_path, const std::string& file_name);

/// What to tell a user who asked for a measurement with no engine found:
/// what was looked for and how to build or name one.
std::string engine_missing_message(const EngineSearch& search);

/// The whole search of the front end: `--python PATH` given: that
/// interpreter only; `--engine PATH` given: that executable only (both: the
/// caller refuses); otherwise the native engine beside this executable, then
/// python3 and python on PATH with the accel_doctor package. Never throws.
EngineSearch find_any_engine(const std::string& explicit_engine, const std::string& explicit_python);

class ProcessEngine final : public Engine {
 public:
  /// `kb` (may be null) names the cause of an engine that dies mid-run.
  ProcessEngine(std::string path, const KnowledgeBase* kb);
  /// `command`: the argv before "serve" (EngineSearch::command).
  ProcessEngine(std::vector<std::string> command, const KnowledgeBase* kb);

  ACCEL_ENGINE_OVERRIDES

  const std::string& path() const { return path_; }

 private:
  /// One request answered by one event (`reply_event`), within `timeout_s`.
  json call(EngineRequest request, const json& options, EngineEvent reply_event, double timeout_s);
  /// A suite run; `event_timeout_s` bounds the silence between two events.
  std::vector<Result> run(SuiteId suite, const json& options, double event_timeout_s,
                          const std::string& device, const MachineContext& machine,
                          const RunCallbacks& callbacks);

  std::string path_;
  std::vector<std::string> command_;
  const KnowledgeBase* kb_;
};

}  // namespace accel::engine
