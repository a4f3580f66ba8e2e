// The environment as torch sees it: what only the engine can collect (its
// build, its devices, the CPU BLAS loaded with it). The front end merges it
// with the torch-free platform probes (cli/environment.hpp).
#pragma once

#include <vector>

#include "core/evidence.hpp"
#include "engine_api/engine.hpp"

namespace accel::engine {

/// Version, build configuration (parsed show_config), ABI, arch list,
/// threads and feature flags of the linked torch. Never throws.
TorchInfo collect_torch_info();

/// Accelerators torch can use, with `arch_in_build` judged against the
/// build's arch list. Empty for a CPU-only build or when none is visible.
std::vector<DeviceInfo> list_torch_devices(const TorchInfo& torch);

/// The torch build, its devices and the CPU BLAS loaded in this process
/// (probe_blas: call it where torch is loaded). Never throws.
EngineEnvironment collect_engine_environment();

}  // namespace accel::engine
