// Which program hosts the torch engine in this process: the native
// accel-doctor-torch executable (the default), or the accel_doctor Python
// package's extension module inside the user's interpreter, which sets it
// before serving (python/src/engine_module.cpp). collect_torch_info() copies
// it into TorchInfo::host, so the report says who measured.
#pragma once

#include "core/evidence.hpp"

namespace accel::engine {

/// Sets the host for this process (not thread-safe: call before serving).
void set_engine_host(EngineHost host);

/// The host set for this process; kind native when never set.
const EngineHost& engine_host();

}  // namespace accel::engine
