// What the knowledge base should know about this machine, built from a
// collected Environment (a live run or a saved report).
#pragma once

#include <string>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel {

/// OS, backend, every GPU's arch and name (the measured `device` first when
/// given, integrated GPUs marked), versions, and the GPU environment
/// variables (all of them are probed, so `env_known` is true).
MachineContext machine_context_of(const Environment& env, const std::string& device = "");

json machine_context_to_json(const MachineContext& m);
MachineContext machine_context_from_json(const json& j);

}  // namespace accel
