// The environment as torch and the machine see it: the torch half comes from
// libtorch, the rest from the torch-free platform probes. Torch-free header.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"

namespace accel::engine {

/// Version, build configuration (parsed show_config), ABI, arch list,
/// threads and feature flags of the linked torch. Never throws.
TorchInfo collect_torch_info();

/// Accelerators torch can use, with `arch_in_build` judged against the
/// build's arch list. Empty for a CPU-only build or when none is visible.
std::vector<DeviceInfo> list_torch_devices(const TorchInfo& torch);

/// Everything `env` reports. `kb` supplies the environment-variable table.
Environment collect_environment(const KnowledgeBase& kb);

/// What the knowledge base should know about this machine when it explains
/// an error on `device` ("cuda:0", "cpu").
MachineContext machine_context(const Environment& env, const std::string& device);

}  // namespace accel::engine
