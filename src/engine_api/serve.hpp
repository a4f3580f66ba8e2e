// The engine side of the engine protocol (engine_api/engine_protocol.hpp):
// one request in, its events out, for any Engine implementation.
#pragma once

#include <cstdio>
#include <istream>
#include <string>

#include "engine_api/engine.hpp"

namespace accel::engine {

/// Who answers: written in the "hello" event.
struct EngineIdentity {
  std::string name;     ///< "torch"
  std::string version;  ///< the engine's own version
};

/// Reads one request from `in`, serves it with `engine` and writes the
/// events to `out` (flushed after each). A request that cannot be read or
/// served gets an "error" event; returns 0 when served, 2 otherwise.
int serve_engine(Engine& engine, const EngineIdentity& id, std::istream& in, std::FILE* out);

}  // namespace accel::engine
