// The ONNX Runtime section of the environment (environment.onnxruntime) as
// labelled rows, shared by the console, Markdown and HTML reporters (like
// windows_env.hpp): the runtime found, its providers, each EP device with
// its DXGI indices and LUID, the device measured and why.
#pragma once

#include <vector>

#include "core/evidence.hpp"
#include "core/report/windows_env.hpp"

namespace accel {

/// Rows in display order (group "Runtime", "EP devices", "Measured").
std::vector<EnvRow> onnxruntime_env_rows(const OnnxRuntimeInfo& o);

}  // namespace accel
