#include "engines/torch/host.hpp"

#include <utility>

namespace accel::engine {

namespace {
EngineHost& host_storage() {
  static EngineHost host;
  return host;
}
}  // namespace

void set_engine_host(EngineHost host) { host_storage() = std::move(host); }

const EngineHost& engine_host() { return host_storage(); }

}  // namespace accel::engine
