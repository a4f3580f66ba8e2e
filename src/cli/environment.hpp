// The environment `env` reports: the torch-free platform probes of this
// process, merged with what only the engine can see (its torch build,
// devices and the CPU BLAS loaded with torch).
#pragma once

#include <string>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "engine_api/engine.hpp"

namespace accel::cli {

/// Everything `env` reports. `kb` supplies the environment-variable table.
/// `from_engine` null: the engine parts are empty and `no_engine` (why) is
/// recorded in their not_collected. Never throws.
Environment collect_environment(const KnowledgeBase& kb, const engine::EngineEnvironment* from_engine,
                                const std::string& no_engine);

}  // namespace accel::cli
