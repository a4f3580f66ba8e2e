// The environment `env` reports: the torch-free platform probes of this
// process, merged with what only the engine can see (its torch build,
// devices and the CPU BLAS loaded with torch).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "engine_api/engine.hpp"

namespace accel::cli {

/// Why the engine's part of the environment is missing.
struct EngineAbsence {
  enum class Kind {
    not_found,  ///< no engine to ask: torch.not_collected["engine"] (the no_engine rule)
    failed,     ///< an engine was found but could not answer: torch.not_collected["engine_environment"]
  };
  Kind kind = Kind::not_found;
  std::string why;
};

/// Everything `env` reports. `kb` supplies the environment-variable table.
/// `from_engine` null: the engine parts are empty and `absent` says why in
/// their not_collected. `pythons`: interpreters the front end knows of
/// (path, how: "--python", "engine") for the Windows probes. Never throws.
Environment collect_environment(const KnowledgeBase& kb, const engine::EngineEnvironment* from_engine,
                                const EngineAbsence& absent,
                                const std::vector<std::pair<std::string, std::string>>& pythons = {});

}  // namespace accel::cli
