#include "engine_api/multi.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "core/multi/collective.hpp"
#include "engine_api/engine.hpp"

namespace accel::engine {

namespace {

std::string device_type(const std::string& device) { return device.substr(0, device.find(':')); }

ItemInfo item(std::string key, std::string name, std::string category, std::string dtype, std::string shape) {
  return ItemInfo{std::move(key),      kMultiKind,       std::move(name),
                  std::move(category), std::move(dtype), std::move(shape)};
}

}  // namespace

std::string resolve_backend(const MultiOptions& o) {
  if (o.backend != "auto") return o.backend;
  return !o.devices.empty() && device_type(o.devices.front()) != "cpu" ? "nccl" : "gloo";
}

std::vector<double> multi_sizes(const MultiOptions& o) {
  if (!o.sizes_bytes.empty()) return o.sizes_bytes;
  constexpr double KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;
  if (resolve_backend(o) == "gloo") {
    return o.quick ? std::vector<double>{64 * KiB, 4 * MiB} : multi::size_sweep(4 * KiB, 16 * MiB);
  }
  return o.quick ? std::vector<double>{1 * MiB, 64 * MiB, 1 * GiB} : multi::size_sweep(1 * KiB, 1 * GiB);
}

int multi_world_size(const MultiOptions& o) {
  return o.launch.launcher == multi::Launcher::none ? static_cast<int>(o.devices.size())
                                                    : o.launch.world_size;
}

int multi_rank(const MultiOptions& o) {
  return o.launch.launcher == multi::Launcher::none ? 0 : o.launch.rank;
}

double peer_copy_bytes(const MultiOptions& o) { return (o.quick ? 64.0 : 256.0) * 1024 * 1024; }

std::vector<MultiItem> plan_multi(const MultiOptions& o) {
  const std::string backend = resolve_backend(o);
  if (backend != "gloo" && backend != "nccl") {
    throw std::invalid_argument("unknown backend '" + backend + "' (gloo, nccl or auto)");
  }
  std::vector<multi::Collective> collectives;
  if (o.collectives.empty()) {
    collectives = multi::group_collectives();
  } else {
    for (const auto& name : o.collectives) {
      const auto c = multi::parse_collective(name);
      if (!c) {
        throw std::invalid_argument("unknown collective '" + name +
                                    "' (all_reduce, all_gather, reduce_scatter, broadcast, send_recv)");
      }
      if (*c != multi::Collective::send_recv) collectives.push_back(*c);
    }
  }
  for (const auto& d : o.dtypes) {
    if (d != "fp32" && d != "bf16" && d != "fp16")
      throw std::invalid_argument("unknown dtype '" + d + "' (fp32, bf16, fp16)");
  }
  const bool links =
      o.links && (o.collectives.empty() ||
                  std::find(o.collectives.begin(), o.collectives.end(), "send_recv") != o.collectives.end());
  std::vector<MultiItem> out;
  // Peer access and copies: one process, before any process group.
  const auto& pd = o.peer_devices;
  if (pd.size() >= 2) {
    const std::string type = device_type(pd.front());
    const double bytes = peer_copy_bytes(o);
    for (std::size_t i = 0; i < pd.size(); ++i) {
      for (std::size_t j = i + 1; j < pd.size(); ++j) {
        MultiItem m;
        m.info = item(fmt::format("multi/{}/peer_access/d{}-d{}", type, i, j), "peer_access", "peer", "",
                      fmt::format("{} <-> {}", pd[i], pd[j]));
        m.type = MultiItem::Type::peer_access;
        m.a = static_cast<int>(i);
        m.b = static_cast<int>(j);
        out.push_back(m);
      }
    }
    for (const char* mode : {"peer", "no_peer"}) {
      for (std::size_t i = 0; i < pd.size(); ++i) {
        for (std::size_t j = 0; j < pd.size(); ++j) {
          if (i == j) continue;
          MultiItem m;
          m.info =
              item(fmt::format("multi/{}/p2p_copy/d{}-d{}/{}/{}", type, i, j, mode, multi::size_label(bytes)),
                   std::string("p2p_copy_") + mode, "peer", "fp32",
                   fmt::format("{} -> {}, {}", pd[i], pd[j], multi::size_label(bytes)));
          m.type = MultiItem::Type::p2p_copy;
          m.dtype = "fp32";
          m.size_bytes = bytes;
          m.a = static_cast<int>(i);
          m.b = static_cast<int>(j);
          m.peer = std::string(mode) == "peer";
          out.push_back(m);
        }
      }
    }
  }
  const int n = multi_world_size(o);
  if (n < 2) return out;
  {
    MultiItem m;
    m.info = item(multi::group_key(backend, n), "group", "group", "", fmt::format("{} ranks", n));
    m.type = MultiItem::Type::group;
    out.push_back(m);
  }
  const bool local = o.launch.launcher == multi::Launcher::none;
  for (int r = local ? 0 : o.launch.rank; r < (local ? n : o.launch.rank + 1); ++r) {
    MultiItem m;
    m.info = item(multi::rank_key(backend, r), "rank", "rank", "", fmt::format("rank {} of {}", r, n));
    m.type = MultiItem::Type::rank;
    m.a = r;
    out.push_back(m);
  }
  const auto sizes = multi_sizes(o);
  for (const auto c : collectives) {
    for (const auto& dt : o.dtypes) {
      for (const double s : sizes) {
        MultiItem m;
        m.info = item(multi::collective_key(backend, c, dt, s, n), std::string(multi::to_string(c)),
                      "collective", dt, fmt::format("{} x {} ranks", multi::size_label(s), n));
        m.type = MultiItem::Type::collective;
        m.collective = std::string(multi::to_string(c));
        m.dtype = dt;
        m.size_bytes = s;
        out.push_back(m);
      }
    }
  }
  if (links) {
    // Links carry the largest size (bandwidth) and the smallest (latency).
    std::vector<double> link_sizes{sizes.back()};
    if (sizes.size() > 1) link_sizes.insert(link_sizes.begin(), sizes.front());
    for (const auto& [src, dst] : multi::ring_links(n)) {
      for (const double s : link_sizes) {
        MultiItem m;
        m.info = item(multi::link_key(backend, "fp32", s, src, dst), "send_recv", "link", "fp32",
                      fmt::format("rank {} -> rank {}, {}", src, dst, multi::size_label(s)));
        m.type = MultiItem::Type::link;
        m.collective = "send_recv";
        m.dtype = "fp32";
        m.size_bytes = s;
        m.a = src;
        m.b = dst;
        out.push_back(m);
      }
    }
  }
  return out;
}

std::vector<ItemInfo> list_multi_items(const MultiOptions& o) {
  std::vector<ItemInfo> out;
  for (const auto& m : plan_multi(o)) out.push_back(m.info);
  return out;
}

std::vector<ItemInfo> Engine::list_multi(const MultiOptions&) {
  throw EngineError(
      "this engine has no multi suite (several GPUs and machines): build accel-doctor-torch from this "
      "source");
}

std::vector<Result> Engine::run_multi(const MultiOptions&, const RunCallbacks&) {
  throw EngineError(
      "this engine has no multi suite (several GPUs and machines): build accel-doctor-torch from this "
      "source");
}

}  // namespace accel::engine
