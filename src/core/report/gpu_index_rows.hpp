// "GPU indices": every adapter with all its indices side by side (DXGI
// order, high-performance order, torch, ONNX Runtime, Vulkan, HIP), from the
// one join in core/adapter_join.hpp, as rows for the console (`env`),
// Markdown and HTML reporters.
#pragma once

#include <vector>

#include "core/evidence.hpp"
#include "core/report/windows_env.hpp"

namespace accel {

/// Rows of group "GPU indices", one per adapter. On Windows always; elsewhere
/// only with two or more GPUs of which one has a framework index (one GPU
/// cannot be confused with another). `results` give the Vulkan devices.
std::vector<EnvRow> gpu_index_rows(const Environment& env, const std::vector<Result>& results);

}  // namespace accel
