#include "engines/torch/host.hpp"

#include <algorithm>
#include <utility>

namespace accel::engine {

namespace {
EngineHost& host_storage() {
  static EngineHost host;
  return host;
}
std::vector<DeviceInfo>& plugin_storage() {
  static std::vector<DeviceInfo> devices;
  return devices;
}
}  // namespace

void set_engine_host(EngineHost host) { host_storage() = std::move(host); }

const EngineHost& engine_host() { return host_storage(); }

void set_plugin_devices(std::vector<DeviceInfo> devices) { plugin_storage() = std::move(devices); }

const DeviceInfo* plugin_device(const std::string& id) {
  const auto& v = plugin_storage();
  const auto it = std::find_if(v.begin(), v.end(), [&](const DeviceInfo& d) { return d.id == id; });
  return it == v.end() ? nullptr : &*it;
}

}  // namespace accel::engine
