// Which program hosts the torch engine in this process: the native
// accel-doctor-torch executable (the default), or the accel_doctor Python
// package's extension module inside the user's interpreter, which sets it
// before serving (python/src/engine_module.cpp). collect_torch_info() copies
// it into TorchInfo::host, so the report says who measured.
//
// The Python host also describes the devices that plugins registered
// (torch_directml's device_count()/device_name(i), torch.xpu's properties):
// list_torch_devices() names the PrivateUse1 and XPU devices it finds with
// these descriptions (environment.cpp), and the ops suite reads whether a
// device's plugin announces its CPU fallbacks (checks/run_check.cpp).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel::engine {

/// Sets the host for this process (not thread-safe: call before serving).
void set_engine_host(EngineHost host);

/// The host set for this process; kind native when never set.
const EngineHost& engine_host();

/// Sets the devices plugins registered, as the Python host describes them
/// (id "privateuseone:0", name, backend, plugin, announces_cpu_fallback, ...).
/// Not thread-safe: call before serving.
void set_plugin_devices(std::vector<DeviceInfo> devices);

/// The plugin's description of device `id` ("privateuseone:0"), or nullptr.
const DeviceInfo* plugin_device(const std::string& id);

}  // namespace accel::engine
