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

namespace {

/// The collectives asked for (send_recv is the link rows', not a group
/// collective); throws std::invalid_argument for an unknown name.
std::vector<multi::Collective> chosen_collectives(const MultiOptions& o) {
  if (o.collectives.empty()) return multi::group_collectives();
  std::vector<multi::Collective> out;
  for (const auto& name : o.collectives) {
    const auto c = multi::parse_collective(name);
    if (!c) {
      throw std::invalid_argument("unknown collective '" + name +
                                  "' (all_reduce, all_gather, reduce_scatter, broadcast, send_recv)");
    }
    if (*c != multi::Collective::send_recv) out.push_back(*c);
  }
  return out;
}

/// Peer access and copies between the peer devices: one process, before any
/// process group.
void add_peer_items(const MultiOptions& o, std::vector<MultiItem>& out) {
  const auto& pd = o.peer_devices;
  if (pd.size() < 2) return;
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

/// The group's formation and a row per rank of this process (all of them
/// when it runs every rank itself).
void add_group_items(const MultiOptions& o, const std::string& backend, int n, std::vector<MultiItem>& out) {
  MultiItem g;
  g.info = item(multi::group_key(backend, n), "group", "group", "", fmt::format("{} ranks", n));
  g.type = MultiItem::Type::group;
  out.push_back(g);
  const bool local = o.launch.launcher == multi::Launcher::none;
  for (int r = local ? 0 : o.launch.rank; r < (local ? n : o.launch.rank + 1); ++r) {
    MultiItem m;
    m.info = item(multi::rank_key(backend, r), "rank", "rank", "", fmt::format("rank {} of {}", r, n));
    m.type = MultiItem::Type::rank;
    m.a = r;
    out.push_back(m);
  }
}

void add_collective_items(const MultiOptions& o, const std::string& backend, int n,
                          const std::vector<multi::Collective>& collectives, const std::vector<double>& sizes,
                          std::vector<MultiItem>& out) {
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
}

/// Send/recv over each link of the ring, at the largest size (bandwidth)
/// and the smallest (latency).
void add_link_items(const std::string& backend, int n, const std::vector<double>& sizes,
                    std::vector<MultiItem>& out) {
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

}  // namespace

std::vector<MultiItem> plan_multi(const MultiOptions& o) {
  const std::string backend = resolve_backend(o);
  if (backend != "gloo" && backend != "nccl") {
    throw std::invalid_argument("unknown backend '" + backend + "' (gloo, nccl or auto)");
  }
  const std::vector<multi::Collective> collectives = chosen_collectives(o);
  for (const auto& d : o.dtypes) {
    if (d != "fp32" && d != "bf16" && d != "fp16")
      throw std::invalid_argument("unknown dtype '" + d + "' (fp32, bf16, fp16)");
  }
  const bool links =
      o.links && (o.collectives.empty() ||
                  std::find(o.collectives.begin(), o.collectives.end(), "send_recv") != o.collectives.end());
  std::vector<MultiItem> out;
  add_peer_items(o, out);
  const int n = multi_world_size(o);
  if (n < 2) return out;
  add_group_items(o, backend, n, out);
  const auto sizes = multi_sizes(o);
  add_collective_items(o, backend, n, collectives, sizes, out);
  if (links) add_link_items(backend, n, sizes, out);
  return out;
}

std::vector<ItemInfo> list_multi_items(const MultiOptions& o) {
  std::vector<ItemInfo> out;
  for (const auto& m : plan_multi(o)) out.push_back(m.info);
  return out;
}

MultiOptions resolve_multi_request(const MultiRequest& q, const Environment& env,
                                   const multi::LaunchInfo& launch, std::string& note) {
  MultiOptions o;
  o.backend = q.backend;
  o.collectives = q.collectives;
  o.dtypes = q.dtypes.empty() ? std::vector<std::string>{"fp32"} : q.dtypes;
  o.sizes_bytes = q.sizes_bytes;
  o.quick = q.quick;
  o.links = q.links;
  o.isolate = q.isolate;
  o.item_timeout_s = q.item_timeout_s;
  o.launch = launch;
  if (q.device != "auto" && q.device != "cpu" && q.device != "cuda") {
    throw std::invalid_argument("--device " + q.device +
                                ": multi runs on every GPU (--device cuda, --ranks N for the first N) or on "
                                "the CPU (--device cpu)");
  }
  std::vector<std::string> gpus;
  for (const auto& d : env.devices) {
    if (d.id.rfind("cuda:", 0) == 0) gpus.push_back(d.id);
  }
  if (q.device == "cuda" && gpus.empty()) throw std::invalid_argument("--device cuda: torch sees no GPU");
  const bool on_cpu = q.device == "cpu" || gpus.empty();
  if (launch.distributed()) {
    if (q.ranks > 0) {
      throw std::invalid_argument(
          fmt::format("--ranks is for runs on this machine alone; {} already started {} ranks",
                      to_string(launch.launcher), launch.world_size));
    }
    std::string device = "cpu";
    if (!on_cpu) {
      if (launch.local_rank < static_cast<int>(gpus.size())) {
        device = gpus[static_cast<std::size_t>(launch.local_rank)];
      } else if (gpus.size() == 1) {
        device = gpus.front();  // the launcher gave each rank its own GPU (CUDA_VISIBLE_DEVICES)
      } else {
        throw std::invalid_argument(
            fmt::format("local rank {} but torch sees {} GPUs on this node", launch.local_rank, gpus.size()));
      }
    }
    o.devices = {device};
    if (!on_cpu && launch.local_rank == 0 && gpus.size() >= 2 && q.peer) o.peer_devices = gpus;
    note = fmt::format("{}: rank {} of {} (local rank {} on node {}) on {}, store at {}:{}",
                       to_string(launch.launcher), launch.rank, launch.world_size, launch.local_rank,
                       launch.node_rank, device, launch.master_addr, launch.master_port);
  } else if (on_cpu) {
    const int n = q.ranks > 0 ? q.ranks : 2;
    if (n < 2) throw std::invalid_argument("--ranks must be at least 2 for a process group");
    o.devices.assign(static_cast<std::size_t>(n), "cpu");
    note = fmt::format(
        "{}{} CPU processes with gloo over loopback TCP: this measures the collective path, not a GPU link",
        gpus.empty() && q.device != "cpu" ? "no GPU that torch can use: " : "", n);
  } else {
    const int n = q.ranks > 0 ? q.ranks : static_cast<int>(gpus.size());
    if (n > static_cast<int>(gpus.size())) {
      throw std::invalid_argument(
          fmt::format("--ranks {}: torch sees {} GPU{}", n, gpus.size(), gpus.size() == 1 ? "" : "s"));
    }
    o.devices.assign(gpus.begin(), gpus.begin() + n);
    if (n >= 2 && q.peer) o.peer_devices = o.devices;
    note =
        n >= 2
            ? fmt::format("{} local ranks, one per GPU ({})", n, fmt::join(o.devices, ", "))
            : "one GPU: no pair to measure and no process group to form (the topology above is all there is)";
  }
  if (resolve_backend(o) == "nccl" && o.devices.front() == "cpu") {
    throw std::invalid_argument("--backend nccl needs GPUs; the CPU ranks use gloo");
  }
  return o;
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

// JSON (de)serialisers declared in engine_api/multi.hpp.
namespace accel::engine {
ACCEL_JSON_DEFINE(MultiOptions, devices, backend, collectives, dtypes, sizes_bytes, links, peer_devices,
                  quick, launch, isolate, item_timeout_s, machine)
}  // namespace accel::engine
