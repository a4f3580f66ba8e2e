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

// JSON (the worker and engine protocols carry it): missing fields keep their defaults.
ACCEL_JSON_DECLARE(MachineContext)

}  // namespace accel
