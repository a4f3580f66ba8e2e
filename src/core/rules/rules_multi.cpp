// Rules on several GPUs and several machines: environment.topology (links,
// IOMMU/ACS, /dev/shm), the NCCL/RCCL settings of the run, and the rows of
// `accel-doctor multi` (kind "multi": the group and its ranks with what NCCL
// said it chose, collectives, links, peer access and copies). Silent on a
// machine with one GPU and no multi rows.
//
// Thresholds, with why they sit where they do:
//  - kShmMinBytes 1 GiB (in a container; 256 MiB elsewhere): NCCL's SHM
//    transport maps a segment per peer and channel under /dev/shm; Docker's
//    default /dev/shm is 64 MiB, and NVIDIA's NCCL troubleshooting guide asks
//    for --shm-size=1g or --ipc=host.
//  - kNarrowLinkRatio 0.5: a GPU on half the lanes (or fewer) of the widest
//    GPU link of the machine gets half the host<->device and peer bandwidth
//    of its peers, and a collective runs at the pace of its slowest link.
//  - kLowBusbwRatio 0.25: NCCL's all-reduce reaches 70-90% of an NVLink's
//    bound and 60-80% of PCIe's at 1 GiB (nccl-tests results NVIDIA
//    publishes); a quarter means another transport carried it.
//  - kSlowLinkRatio 0.5: one ring link at half the median of the others is
//    the one every ring collective waits on.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/evidence_views.hpp"
#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr double kShmMinBytesContainer = 1024.0 * 1024 * 1024;
constexpr double kShmMinBytesHost = 256.0 * 1024 * 1024;
constexpr double kNarrowLinkRatio = 0.5;
constexpr double kLowBusbwRatio = 0.25;
constexpr double kSlowLinkRatio = 0.5;
constexpr const char* kRefTroubleshooting =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html";
constexpr const char* kRefAcs =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/"
    "troubleshooting.html#pci-access-control-services-acs";
constexpr const char* kRefEnv = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html";
constexpr const char* kRefNcclTests = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md";

std::vector<const Result*> multi_rows(const Ctx& c, const char* category) {
  std::vector<const Result*> out;
  for (const auto* r : c.of_kind(ResultKind::multi)) {
    if (r->category == category) out.push_back(r);
  }
  return out;
}

/// Every rank identity the report holds: the group rows' gathered lists and
/// the rank rows (a merge of per-rank reports has the latter), by rank.
std::map<int, RankIdentity> identities(const Ctx& c) {
  std::map<int, RankIdentity> out;
  auto add = [&out](RankIdentity id) {
    if (id.rank) out[*id.rank] = std::move(id);
  };
  for (const auto* g : multi_rows(c, "group")) {
    for (const auto& id : g->evidence.value("identities", json::array())) add(rank_identity(id));
  }
  for (const auto* r : multi_rows(c, "rank"))
    add(rank_identity(r->evidence.value("identity", json::object())));
  return out;
}

std::string env_value(const Ctx& c, const char* name) {
  if (const EnvVar* v = c.env_var(name)) return v->value;
  for (const auto& [rank, id] : identities(c)) {
    if (!id.nccl) continue;
    if (const auto it = id.nccl->env_settings.find(name); it != id.nccl->env_settings.end())
      return it->second;
  }
  return "";
}

bool several_gpus(const Ctx& c) { return c.env.topology && c.env.topology->gpus.size() >= 2; }

// ---------------------------------------------------------------- settings

void rule_nccl_settings(const Ctx& c, std::vector<Finding>& out) {
  struct Setting {
    const char* name;
    const char* what;
    const char* effect;
    double impact;
  };
  static const Setting kSettings[] = {
      {"NCCL_P2P_DISABLE", "peer-to-peer between GPUs",
       "GPU-to-GPU traffic inside the machine goes through host memory (SHM) or the network instead of "
       "NVLink or "
       "PCIe peer transfers: collectives run at a fraction of the link's bandwidth",
       60},
      {"NCCL_SHM_DISABLE", "its shared-memory transport",
       "without P2P or SHM, GPUs of the same machine talk over the network transport (sockets), the slowest "
       "path",
       40},
      {"NCCL_IB_DISABLE", "InfiniBand/RoCE",
       "traffic between machines goes over TCP sockets, typically 10x slower than RDMA", 40},
  };
  for (const auto& s : kSettings) {
    const std::string v = env_value(c, s.name);
    if (v.empty() || v == "0") continue;
    const bool relevant = several_gpus(c) || !c.of_kind(ResultKind::multi).empty();
    if (!relevant) continue;
    out.push_back(make_finding(
        std::string("multi.nccl_setting"), Severity::warning, s.impact,
        fmt::format("{}={} turns off NCCL's {}", s.name, v, s.what),
        fmt::format("{}={} is set for this run", s.name, v), s.effect,
        fmt::format(
            "Unset it unless it works around a known fault ({}); if it does, fix the fault (IOMMU/ACS "
            "for P2P, /dev/shm size for SHM, the fabric for IB) and unset it.",
            unset_var_advice(c.platform, s.name)),
        kRefEnv));
  }
}

// ---------------------------------------------------------------- peer-to-peer

void rule_p2p_blocked(const Ctx& c, std::vector<Finding>& out) {
  if (!several_gpus(c)) return;
  const Topology& t = *c.env.topology;
  std::vector<std::string> evidence;
  bool acs = false, iommu = false;
  for (const auto& p : t.pairs) {
    if (!p.acs_redirecting.empty()) {
      acs = true;
      evidence.push_back(fmt::format("{} - {}: ACS redirects peer requests at {}", p.a, p.b,
                                     list_some(p.acs_redirecting, 3)));
    }
    if (!p.p2p_status.empty() && p.p2p_status != "ok") {
      evidence.push_back(
          fmt::format("{} - {}: {} says P2P is {}", p.a, p.b, p.p2p_status_source, p.p2p_status));
    }
  }
  // A translating IOMMU matters where the GPUs could talk directly (a common switch).
  const bool switch_pairs =
      std::any_of(t.pairs.begin(), t.pairs.end(), [](const GpuPair& p) { return p.link == "pcie_switch"; });
  if (t.iommu == "translated" && switch_pairs) {
    iommu = true;
    evidence.push_back("the IOMMU translates device addresses (" + t.iommu_basis + ")");
  }
  for (const auto* r : multi_rows(c, "peer")) {
    if (r->name == "peer_access" &&
        (metric(*r, "peer_access_ab") == 0 || metric(*r, "peer_access_ba") == 0) && r->status == Status::ok) {
      evidence.push_back(
          fmt::format("cudaDeviceCanAccessPeer: {} ({})", r->shape, list_some(r->warnings, 1)));
    }
  }
  for (const auto& [rank, id] : identities(c)) {
    if (!id.nccl) continue;
    for (const auto& f : id.nccl->p2p_failures) evidence.push_back(fmt::format("rank {}: NCCL: {}", rank, f));
  }
  if (evidence.empty()) return;
  const bool hung = std::any_of(c.report.results.begin(), c.report.results.end(), [](const Result& r) {
    return r.kind == ResultKind::multi && (r.status == Status::hung || r.status == Status::crashed);
  });
  std::string fix;
  if (acs || iommu) {
    fix =
        "Let peer traffic go straight through the PCIe switch: boot with the IOMMU in passthrough mode "
        "(intel_iommu=on iommu=pt, or amd_iommu=on iommu=pt, on the kernel command line), and disable ACS on "
        "the "
        "switch ports between the GPUs (for each bridge listed: sudo setpci -s <bridge> ECAP_ACS+0x6.w=0000; "
        "a "
        "BIOS option 'PCIe ACS' does it permanently on many boards). In a VM, peer-to-peer needs the host to "
        "pass the GPUs through together with their switch. Until then NCCL_P2P_DISABLE=1 trades the hang for "
        "speed.";
  } else {
    fix =
        "The driver refuses peer-to-peer between these GPUs (a consumer GeForce generation without P2P, GPUs "
        "on "
        "different root complexes of a platform that does not route peer traffic, or a VM): NCCL falls back "
        "to "
        "host memory. Place the GPUs under one PCIe switch or CPU socket, or use NVLink, where the hardware "
        "allows.";
  }
  out.push_back(make_finding(
      "multi.p2p_blocked", hung ? Severity::critical : Severity::warning, hung ? 85 : 55,
      acs || iommu ? "GPU peer-to-peer is redirected by the IOMMU / PCIe ACS: NCCL may hang or run slowly"
                   : "GPU peer-to-peer is not available between some GPUs",
      list_some(evidence, 6),
      "With ACS redirection or a translating IOMMU every peer transfer goes up to the CPU's root complex; "
      "the "
      "first NCCL collective then hangs or runs at a fraction of the link's speed. Without peer access the "
      "driver stages copies through host memory.",
      fix, acs || iommu ? kRefAcs : kRefTroubleshooting));
}

// ---------------------------------------------------------------- /dev/shm

void rule_shm_small(const Ctx& c, std::vector<Finding>& out) {
  const auto& t = c.env.topology;
  if (!t || !t->shm_bytes) return;
  const bool local_ranks = std::any_of(c.report.results.begin(), c.report.results.end(), [](const Result& r) {
    return r.kind == ResultKind::multi && r.category == "group" &&
           r.evidence.value("backend", std::string()) == "nccl";
  });
  if (!several_gpus(c) && !local_ranks) return;
  const bool container = t->container && *t->container;
  const double min = container ? kShmMinBytesContainer : kShmMinBytesHost;
  if (static_cast<double>(*t->shm_bytes) >= min) return;
  out.push_back(make_finding(
      "multi.shm_small", Severity::warning, 50,
      fmt::format("/dev/shm is {} MiB{}: too small for NCCL between GPUs of this machine",
                  *t->shm_bytes >> 20, container ? " in this container" : ""),
      fmt::format("/dev/shm: {} MiB ({}){}", *t->shm_bytes >> 20, t->shm_source,
                  container ? "; container: " + t->container_basis : ""),
      "NCCL's shared-memory transport and its proxy buffers live in /dev/shm; when it fills, NCCL fails with "
      "'unhandled system error' ('Error while creating shared memory segment') or falls back to slower "
      "paths.",
      container
          ? "Start the container with --ipc=host or --shm-size=1g (Docker, Podman); in Kubernetes mount an "
            "emptyDir with medium: Memory at /dev/shm."
          : "Enlarge it: sudo mount -o remount,size=8G /dev/shm (and in /etc/fstab to keep it).",
      "https://github.com/NVIDIA/nccl/issues/342"));
}

// ---------------------------------------------------------------- transports

void rule_socket_fallback(const Ctx& c, std::vector<Finding>& out) {
  const auto ids = identities(c);
  std::vector<std::string> same_host, cross_host;
  for (const auto& [rank, id] : ids) {
    if (!id.nccl) continue;
    for (const auto& t : id.nccl->transports) {
      const std::string& detail = t.detail;
      if (detail.rfind("NET/Socket", 0) != 0) continue;
      const int from = t.from_rank, to = t.to_rank;
      const auto a = ids.find(from), b = ids.find(to);
      const std::string ha = a == ids.end() ? "" : a->second.host.value_or("");
      const std::string hb = b == ids.end() ? "" : b->second.host.value_or("");
      const std::string line = fmt::format("rank {} ({}) -> rank {} ({}) via {}", from, ha, to, hb, detail);
      if (!ha.empty() && ha == hb) {
        if (std::find(same_host.begin(), same_host.end(), line) == same_host.end()) same_host.push_back(line);
      } else if (std::find(cross_host.begin(), cross_host.end(), line) == cross_host.end()) {
        cross_host.push_back(line);
      }
    }
  }
  if (!same_host.empty()) {
    out.push_back(make_finding(
        "multi.socket_fallback", Severity::warning, 60,
        "NCCL sends data between GPUs of the same machine over TCP sockets", list_some(same_host, 4),
        "Inside one machine NCCL should use NVLink/PCIe peer transfers (P2P) or shared memory (SHM); over "
        "sockets it runs at a few GB/s through the kernel's network stack.",
        "Look for what disabled P2P and SHM: NCCL_P2P_DISABLE / NCCL_SHM_DISABLE, a /dev/shm that is too "
        "small "
        "(container: --ipc=host), peer access blocked by the IOMMU/ACS, or ranks in separate containers "
        "without "
        "a shared IPC namespace.",
        kRefTroubleshooting));
  }
  if (!cross_host.empty()) {
    out.push_back(make_finding(
        "multi.socket_network", Severity::info, 20,
        "Traffic between machines goes over NCCL's TCP socket transport", list_some(cross_host, 4),
        "Without an RDMA network (InfiniBand, RoCE, EFA through its plugin) NCCL uses TCP sockets between "
        "nodes: "
        "fine for 10-25 GbE, far from what RDMA fabrics carry.",
        "If the machines have InfiniBand/RoCE adapters, make sure NCCL sees them (ibv_devices, NCCL_IB_HCA, "
        "NCCL_IB_DISABLE unset, the rdma-core libraries in the container); on cloud fabrics install the "
        "provider's NCCL plugin (aws-ofi-nccl for EFA). NCCL_SOCKET_IFNAME picks the interface for sockets.",
        kRefEnv));
  }
}

// ---------------------------------------------------------------- links

void rule_narrow_link(const Ctx& c, std::vector<Finding>& out) {
  if (!several_gpus(c)) return;
  const Topology& t = *c.env.topology;
  int widest = 0;
  for (const auto& g : t.gpus) widest = std::max(widest, g.link_width.value_or(0));
  if (widest == 0) return;
  std::vector<std::string> evidence;
  for (const auto& g : t.gpus) {
    if (!g.link_width) continue;
    const int w = *g.link_width;
    if (w <= widest * kNarrowLinkRatio) {
      evidence.push_back(fmt::format("{} runs on x{} while another GPU has x{}{}", g.pci_address, w, widest,
                                     g.link_max_width && *g.link_max_width > w
                                         ? fmt::format(" (it could train to x{})", *g.link_max_width)
                                         : ""));
    }
  }
  if (evidence.empty()) return;
  out.push_back(make_finding(
      "multi.narrow_link", Severity::warning, 45, "A GPU sits on a narrower PCIe link than its peers",
      list_some(evidence, 4),
      "Its host<->device and peer copies get a fraction of the bandwidth of the other GPUs, and every "
      "collective "
      "over PCIe runs at the pace of the slowest GPU link.",
      "Move the card to a slot wired x16 to the CPU (the board's manual lists which slots share lanes or "
      "hang off "
      "the chipset); a link below the slot's width after reseating points at the riser or slot.",
      "https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci (current_link_width)"));
}

void rule_slow_link(const Ctx& c, std::vector<Finding>& out) {
  const auto links = multi_rows(c, "link");
  double largest = 0;
  for (const auto* r : links) {
    if (r->status == Status::ok) largest = std::max(largest, metric(*r, "size_bytes"));
  }
  std::vector<const Result*> big;
  for (const auto* r : links) {
    if (r->status == Status::ok && metric(*r, "size_bytes") == largest && metric(*r, "busbw_gbps") > 0)
      big.push_back(r);
  }
  if (big.size() < 3) return;  // a ring of two has two links of the same pair
  std::vector<double> bw;
  for (const auto* r : big) bw.push_back(metric(*r, "busbw_gbps"));
  std::vector<double> sorted = bw;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted[sorted.size() / 2];
  const auto slowest = std::min_element(big.begin(), big.end(), [](const Result* a, const Result* b) {
    return metric(*a, "busbw_gbps") < metric(*b, "busbw_gbps");
  });
  const double slow = metric(**slowest, "busbw_gbps");
  if (slow >= kSlowLinkRatio * median) return;
  out.push_back(make_finding(
      "multi.slow_link", Severity::warning, 50, "One link between ranks is much slower than the others",
      fmt::format("{} moves {} where the links' median is {} ({})", (*slowest)->shape, rate(slow, "GB/s"),
                  rate(median, "GB/s"),
                  (*slowest)->evidence.value("transport", std::string("transport unknown"))),
      "Ring collectives move every byte over every link: the slowest one sets the pace of the whole group.",
      "Compare the two hosts of that link (the ranks table): the network interface NCCL used "
      "(NCCL_SOCKET_IFNAME, NCCL_IB_HCA), the link speed of its adapter, and whether it crossed a slower "
      "switch.",
      kRefNcclTests));
}

// ---------------------------------------------------------------- versions and failures

void rule_version_mismatch(const Ctx& c, std::vector<Finding>& out) {
  std::map<std::string, std::vector<std::string>> nccl, torch;
  for (const auto& [rank, id] : identities(c)) {
    std::string v = id.backend_version;
    if (v.empty() && id.nccl) v = id.nccl->version;
    const std::string who = fmt::format("rank {} ({})", rank, id.host.value_or("?"));
    if (!v.empty()) nccl[v].push_back(who);
    const std::string& t = id.torch;
    if (!t.empty()) torch[t].push_back(who);
  }
  auto describe = [](const std::map<std::string, std::vector<std::string>>& m) {
    std::vector<std::string> parts;
    for (const auto& [v, who] : m) parts.push_back(fmt::format("{} on {}", v, list_some(who, 3)));
    return list_some(parts, 4);
  };
  if (nccl.size() > 1) {
    out.push_back(make_finding(
        "multi.nccl_version_mismatch", Severity::critical, 80, "The ranks run different NCCL/RCCL versions",
        describe(nccl),
        "NCCL's ranks must agree on the protocol: mismatched versions fail at init ('Mismatched NCCL version "
        "detected') or hang in the first collective.",
        "Install the same torch (and so the same NCCL) on every node: one container image, or the same pip "
        "wheel and nvidia-nccl package; check with python -c 'import torch; "
        "print(torch.cuda.nccl.version())'.",
        kRefTroubleshooting));
  }
  if (torch.size() > 1) {
    out.push_back(make_finding("multi.torch_version_mismatch", Severity::warning, 40,
                               "The ranks run different torch versions", describe(torch),
                               "torch.distributed's wire format and defaults (process group options, store "
                               "protocol) can differ between "
                               "versions.",
                               "Run the same torch build on every node.",
                               "https://pytorch.org/docs/stable/distributed.html"));
  }
}

void rule_group_failed(const Ctx& c, std::vector<Finding>& out) {
  for (const auto* r : c.of_kind(ResultKind::multi)) {
    if (!(r->category == "group" || r->category == "collective" || r->category == "link")) continue;
    if (!is_failure(r->status)) continue;
    const std::string cause = r->error && !r->error->cause.empty() ? r->error->cause : "";
    const std::string fix = r->error && !r->error->fix.empty()
                                ? r->error->fix
                                : "Run with NCCL_DEBUG=INFO and read the first WARN line of each rank "
                                  "(`accel-doctor explain` recognises NCCL's messages).";
    out.push_back(
        make_finding("multi.group_failed", r->category == "group" ? Severity::critical : Severity::warning,
                     r->category == "group" ? 90 : 60,
                     fmt::format("{} failed: {}", r->category == "group" ? "The process group" : r->name,
                                 to_string(r->status)),
                     fmt::format("{}: {}", r->key, r->reason),
                     cause.empty() ? "What every rank reported is in the result." : cause, fix,
                     r->error && !r->error->reference.empty() ? r->error->reference : kRefTroubleshooting));
    return;  // the first failure explains the ones after it
  }
}

void rule_low_busbw(const Ctx& c, std::vector<Finding>& out) {
  if (!several_gpus(c)) return;
  const Topology& t = *c.env.topology;
  double bound = 0;  // the slowest pair's bound: what a ring over all GPUs can reach
  for (const auto& p : t.pairs) {
    if (p.bound_gbps && *p.bound_gbps > 0)
      bound = bound == 0 ? *p.bound_gbps : std::min(bound, *p.bound_gbps);
  }
  if (bound == 0) return;
  const Result* best = nullptr;
  for (const auto* r : multi_rows(c, "collective")) {
    if (r->status != Status::ok || r->name != "all_reduce" || r->evidence.value("backend", "") != "nccl")
      continue;
    if (!best || metric(*r, "size_bytes") > metric(*best, "size_bytes")) best = r;
  }
  if (!best || metric(*best, "size_bytes") < 64.0 * 1024 * 1024) return;
  const double busbw = metric(*best, "busbw_gbps");
  if (busbw >= kLowBusbwRatio * bound) return;
  out.push_back(make_finding(
      "multi.low_busbw", Severity::warning, 55,
      "NCCL's all-reduce runs far below what the GPU links can carry",
      fmt::format("{}: busbw {} against a link bound of {} (the slowest GPU pair of the topology)", best->key,
                  rate(busbw, "GB/s"), rate(bound, "GB/s")),
      "busbw is what the slowest link carried (nccl-tests' definition); under a quarter of the bound, NCCL "
      "routed the traffic another way (through host memory or sockets) or another job shares the GPUs.",
      "Read the transports in the ranks table (P2P expected between GPUs of one machine); the findings on "
      "peer-to-peer, /dev/shm and NCCL settings say why it was not used.",
      kRefNcclTests));
}

void rule_peer_copy_slow(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> evidence;
  for (const auto* r : multi_rows(c, "peer")) {
    if (r->name != "p2p_copy_peer" || r->status != Status::ok || !r->roofline) continue;
    if (r->roofline->percent_of_bound > 0 && r->roofline->percent_of_bound < 50) {
      evidence.push_back(fmt::format("{}: {} = {} of the {} bound", r->shape,
                                     rate(metric(*r, "gbps"), "GB/s"), pct(r->roofline->percent_of_bound),
                                     rate(r->roofline->bandwidth_gbps, "GB/s")));
    }
  }
  if (evidence.empty()) return;
  out.push_back(make_finding(
      "multi.peer_copy_slow", Severity::warning, 45,
      "Peer copies between GPUs run under half of their link's bound", list_some(evidence, 4),
      "With peer access the copy engines move data over NVLink or PCIe directly; at under half the bound the "
      "traffic detours (ACS, IOMMU, a link trained down) or another process loads the link.",
      "Check the pair's PCIe links under load (nvidia-smi -q -d PCI, lspci -vv 'LnkSta') and the ACS/IOMMU "
      "findings; measure again with the GPUs otherwise idle.",
      kRefAcs));
}

}  // namespace

std::vector<RuleEntry> multi_rules() {
  return {
      {"multi.nccl_setting",
       "NCCL_P2P_DISABLE, NCCL_SHM_DISABLE or NCCL_IB_DISABLE set with several GPUs or ranks",
       rule_nccl_settings},
      {"multi.p2p_blocked",
       "ACS redirecting on a bridge between GPUs, a translating IOMMU with GPUs under one switch, NVML/KFD "
       "P2P "
       "status not ok, cudaDeviceCanAccessPeer no, or NCCL could not enable P2P",
       rule_p2p_blocked},
      {"multi.shm_small",
       "/dev/shm under 1 GiB in a container (256 MiB on a host) with several GPUs or NCCL ranks",
       rule_shm_small},
      {"multi.socket_fallback", "NCCL chose NET/Socket between ranks on the same host (info: between hosts)",
       rule_socket_fallback},
      {"multi.narrow_link", "a GPU's PCIe link at half the width of the widest GPU link or less",
       rule_narrow_link},
      {"multi.slow_link", "a send/recv link under half the median of the others (3+ links)", rule_slow_link},
      {"multi.nccl_version_mismatch", "ranks report different NCCL/RCCL (or torch) versions",
       rule_version_mismatch},
      {"multi.group_failed", "the process group did not form, or a collective/link failed",
       rule_group_failed},
      {"multi.low_busbw", "NCCL all-reduce busbw (>= 64 MiB) under 25% of the slowest GPU pair's link bound",
       rule_low_busbw},
      {"multi.peer_copy_slow", "a peer copy (peer access on) under 50% of its link's bound",
       rule_peer_copy_slow},
  };
}

}  // namespace accel::rules
