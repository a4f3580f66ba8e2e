// The peer items: peer access between two GPUs of this process, and copies
// between them with peer access on and off (multi/peer.hpp).
#include <fmt/format.h>

#include "core/multi/collective.hpp"
#include "engines/torch/multi/peer.hpp"
#include "engines/torch/multi/steps.hpp"

namespace accel::engine {

namespace {

int device_index(const std::string& device) {
  const auto colon = device.find(':');
  return colon == std::string::npos ? 0 : std::stoi(device.substr(colon + 1));
}

}  // namespace

Result run_peer_item(const GroupContext& g, const MultiItem& item) {
  Result r = multi_result(g, item);
  const auto& pd = g.options.peer_devices;
  const int a = device_index(pd.at(static_cast<std::size_t>(item.a)));
  const int b = device_index(pd.at(static_cast<std::size_t>(item.b)));
  r.device = pd.at(static_cast<std::size_t>(item.a));
  r.evidence.erase("ranks");
  r.evidence["src"] = pd.at(static_cast<std::size_t>(item.a));
  r.evidence["dst"] = pd.at(static_cast<std::size_t>(item.b));
  try {
    if (item.type == MultiItem::Type::peer_access) {
      const PeerAccess p = peer_access(a, b);
      r.metrics["peer_access_ab"] = p.a_to_b ? 1 : 0;
      r.metrics["peer_access_ba"] = p.b_to_a ? 1 : 0;
      if (p.performance_rank) r.metrics["performance_rank"] = *p.performance_rank;
      if (p.native_atomics) r.evidence["native_atomics"] = *p.native_atomics;
      r.evidence["peer_access"] = p.a_to_b && p.b_to_a;
      if (!p.a_to_b || !p.b_to_a) {
        r.warnings.push_back(
            fmt::format("cudaDeviceCanAccessPeer: cuda:{} -> cuda:{} {}, cuda:{} -> cuda:{} {}", a, b,
                        p.a_to_b ? "yes" : "no", b, a, p.b_to_a ? "yes" : "no"));
      }
      return r;
    }
    TimerOptions timer = g.options.quick ? TimerOptions::bench_quick() : TimerOptions::bench();
    const PeerCopy c = measure_peer_copy(a, b, item.peer, item.size_bytes, timer);
    r.timing = c.timing;
    r.work.bytes = item.size_bytes;
    r.metrics["gbps"] = c.timing.median_us > 0 ? item.size_bytes / (c.timing.median_us * 1e-6) / 1e9 : 0;
    r.metrics["size_bytes"] = item.size_bytes;
    r.evidence["peer_enabled"] = item.peer;
    r.accuracy = Accuracy{"exact", c.right ? 0.0 : 1.0, 0, c.detail};
    if (!c.right) {
      r.status = Status::mismatch;
      r.reason = "the destination differs from the source after the copy";
    }
  } catch (const std::exception& e) {
    set_error(r, e, g.kb, g.options.machine);
    const std::string msg = e.what();
    if (msg.find("CPU-only") != std::string::npos || msg.find("not possible between") != std::string::npos) {
      r.status = Status::unavailable;
    }
  }
  return r;
}

}  // namespace accel::engine
