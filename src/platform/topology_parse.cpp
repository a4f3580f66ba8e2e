// Pure parts of the topology probe: PCI configuration space (ACS), mount and
// cgroup tables, the kernel command line, sysfs paths, and the classification
// of GPU pairs from them. No OS calls (topology.cpp reads the files).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "core/multi/link_bound.hpp"
#include "platform/topology_detail.hpp"

namespace accel::platform::detail {

namespace {

std::uint32_t le32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
  return v;
}
std::uint16_t le16(std::string_view b, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1])
                                                                            << 8);
}

}  // namespace

std::vector<std::string> acs_control_names(std::uint16_t ctl) {
  static const char* const kNames[] = {"SrcValid",    "TransBlk",   "ReqRedir",   "CmpltRedir",
                                       "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::vector<std::string> out;
  for (int bit = 0; bit < 7; ++bit) {
    if (ctl & (1u << bit)) out.emplace_back(kNames[bit]);
  }
  return out;
}

PciAcs parse_acs_config(const std::string& address, std::string_view config) {
  PciAcs a;
  a.address = address;
  if (config.size() <= 0x100) {
    a.error = config.size() <= 64
                  ? fmt::format(
                        "only {} bytes of configuration space are readable: reading the extended "
                        "capabilities (ACS) needs root",
                        config.size())
                  : "no extended configuration space (not a PCIe device, or the kernel cannot reach it)";
    return a;
  }
  std::size_t at = 0x100;
  for (int guard = 0; guard < 96 && at >= 0x100 && at + 8 <= config.size(); ++guard) {
    const std::uint32_t header = le32(config, at);
    if (header == 0 || header == 0xffffffffu) break;
    const unsigned id = header & 0xffff;
    const std::size_t next = header >> 20;
    if (id == 0x000d) {
      a.has_acs = true;
      const std::uint16_t ctl = le16(config, at + 6);
      a.enabled = acs_control_names(ctl);
      a.redirects = (ctl & 0x4) != 0 || (ctl & 0x8) != 0;
      return a;
    }
    if (next == 0 || next <= at || (next & 3) != 0) break;
    at = next;
  }
  return a;  // no ACS capability: the bridge does not restrict peer traffic
}

ShmMount parse_shm_mountinfo(std::string_view mountinfo) {
  // proc(5): id parent major:minor root mount-point options [optional...] - fstype source super-options
  ShmMount m;
  for (const std::string_view line : lines_of(mountinfo)) {
    const auto words = split_ws(line);
    if (words.size() < 7 || words[4] != "/dev/shm") continue;
    const auto dash = std::find(words.begin(), words.end(), "-");
    if (dash == words.end() || std::distance(dash, words.end()) < 3) continue;
    m = ShmMount{};
    m.found = true;
    m.fstype = *(dash + 1);
    m.options = std::distance(dash, words.end()) >= 4 ? *(dash + 3) : "";
    for (const std::string& opt : {m.options, words[5]}) {
      const auto at = opt.find("size=");
      if (at == std::string::npos || m.size_bytes) continue;
      std::size_t end = at + 5;
      while (end < opt.size() && std::isdigit(static_cast<unsigned char>(opt[end]))) ++end;
      const auto n = parse_uint(opt.substr(at + 5, end - at - 5), 10);
      if (!n) continue;
      const char unit =
          end < opt.size() ? static_cast<char>(std::tolower(static_cast<unsigned char>(opt[end]))) : 0;
      const std::uint64_t scale = unit == 'k'   ? 1024ull
                                  : unit == 'm' ? 1ull << 20
                                  : unit == 'g' ? 1ull << 30
                                                : 1;
      m.size_bytes = *n * scale;
    }
  }
  return m;
}

std::optional<bool> container_from_proc(std::string_view mountinfo, std::string_view cgroup,
                                        std::string& basis) {
  for (const std::string_view line : lines_of(mountinfo)) {
    const auto words = split_ws(line);
    if (words.size() < 7 || words[4] != "/") continue;
    const auto dash = std::find(words.begin(), words.end(), "-");
    if (dash != words.end() && dash + 1 != words.end() && *(dash + 1) == "overlay") {
      basis = "the root file system is an overlay mount (container image layers)";
      return true;
    }
  }
  for (const char* marker : {"docker", "containerd", "libpod", "kubepods", "lxc", "crio"}) {
    if (cgroup.find(marker) != std::string_view::npos) {
      basis = fmt::format("/proc/self/cgroup names {}", marker);
      return true;
    }
  }
  if (!mountinfo.empty()) {
    basis = "the root file system is not an overlay and the cgroup path names no container runtime";
    return false;
  }
  return std::nullopt;
}

std::string iommu_cmdline_params(std::string_view cmdline) {
  std::string out;
  for (const auto& w : split_ws(cmdline)) {
    for (const char* p : {"intel_iommu=", "amd_iommu=", "iommu=", "iommu.passthrough=", "iommu.strict=",
                          "pcie_acs_override=", "pci=noats"}) {
      if (w.rfind(p, 0) == 0) {
        out += (out.empty() ? "" : " ") + w;
        break;
      }
    }
  }
  return out;
}

std::string classify_iommu(const std::vector<std::string>& units, const std::vector<std::string>& group_types,
                           const std::string& cmdline_params, std::string& basis) {
  std::set<std::string> types(group_types.begin(), group_types.end());
  types.erase("");
  const std::string unit_text = units.empty() ? "no IOMMU units under /sys/class/iommu"
                                              : "IOMMU units: " + fmt::format("{}", fmt::join(units, ", "));
  const std::string cmd = cmdline_params.empty() ? "" : "; kernel command line: " + cmdline_params;
  if (!types.empty()) {
    const bool translated = std::any_of(types.begin(), types.end(), [](const std::string& t) {
      return t.rfind("DMA", 0) == 0 || t == "unmanaged";
    });
    basis = fmt::format("{}; GPU IOMMU group types: {}{}", unit_text, fmt::join(types, ", "), cmd);
    if (translated) return "translated";
    if (types.count("identity")) return "passthrough";
    return "unknown";
  }
  basis = unit_text + cmd;
  if (units.empty()) return "off";
  if (cmdline_params.find("iommu=pt") != std::string::npos ||
      cmdline_params.find("iommu.passthrough=1") != std::string::npos) {
    return "passthrough";
  }
  return "unknown";
}

std::vector<std::string> upstream_bridges(const std::string& canonical_path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start < canonical_path.size()) {
    auto end = canonical_path.find('/', start);
    if (end == std::string::npos) end = canonical_path.size();
    const std::string part = canonical_path.substr(start, end - start);
    if (parse_pci_address(part) && part.find(':') != std::string::npos) {
      parts.push_back(parse_pci_address(part)->str());
    }
    start = end + 1;
  }
  if (!parts.empty()) parts.pop_back();  // the device itself
  return parts;
}

std::string host_bridge_of(const std::string& canonical_path) {
  const auto at = canonical_path.find("/pci");
  if (at == std::string::npos) return {};
  const auto end = canonical_path.find('/', at + 1);
  return canonical_path.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

void classify_pairs_from_sysfs(Topology& t, const std::vector<std::string>& host_bridges) {
  auto acs_of = [&](const std::string& addr) -> const PciAcs* {
    for (const auto& b : t.bridges) {
      if (b.address == addr) return &b;
    }
    return nullptr;
  };
  for (auto& p : t.pairs) {
    const GpuPlacement* ga = nullptr;
    const GpuPlacement* gb = nullptr;
    std::size_t ia = 0, ib = 0;
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      if (t.gpus[i].pci_address == p.a) ga = &t.gpus[i], ia = i;
      if (t.gpus[i].pci_address == p.b) gb = &t.gpus[i], ib = i;
    }
    if (!ga || !gb) continue;
    // The bridges they share, and those on the way down from there to each.
    std::size_t common = 0;
    while (common < ga->upstream.size() && common < gb->upstream.size() &&
           ga->upstream[common] == gb->upstream[common]) {
      ++common;
    }
    const bool same_host_bridge =
        ia < host_bridges.size() && ib < host_bridges.size() && host_bridges[ia] == host_bridges[ib];
    p.common_bridge = common > 0 ? ga->upstream[common - 1] : "";
    // Under a common switch, redirecting ACS on a port between the switch and
    // either GPU sends their peer traffic up to the root complex instead of
    // across the switch. GPUs that meet only at the host bridge go through
    // the root complex anyway: the root ports' ACS (Linux enables it with
    // the IOMMU) changes nothing for them.
    p.acs_redirecting.clear();
    for (const auto* g : {ga, gb}) {
      for (std::size_t i = common; common > 0 && i < g->upstream.size(); ++i) {
        if (const PciAcs* acs = acs_of(g->upstream[i]);
            acs && acs->redirects &&
            std::find(p.acs_redirecting.begin(), p.acs_redirecting.end(), acs->address) ==
                p.acs_redirecting.end()) {
          p.acs_redirecting.push_back(acs->address);
        }
      }
    }
    if (std::find(p.sources.begin(), p.sources.end(), "sysfs") == p.sources.end())
      p.sources.push_back("sysfs");
    if (p.link.empty() || p.link == "unknown") {
      if (common > 0) {
        p.link = "pcie_switch";
      } else if (ga->numa_node && gb->numa_node && *ga->numa_node != *gb->numa_node) {
        p.link = "cross_numa";
      } else if (same_host_bridge || (ga->numa_node && gb->numa_node)) {
        p.link = "pcie_host_bridge";
      } else {
        p.link = ga->upstream.empty() || gb->upstream.empty() ? "unknown" : "pcie_host_bridge";
      }
    }
    if (!p.bound_gbps && ga->pcie_bound_gbps && gb->pcie_bound_gbps &&
        (p.link == "pcie_switch" || p.link == "pcie_host_bridge" || p.link == "cross_numa")) {
      p.bound_gbps = std::min(*ga->pcie_bound_gbps, *gb->pcie_bound_gbps);
      p.bound_source = fmt::format(
          "PCIe: the narrower of the two GPU links, {} x{} and {} x{} (one direction, after encoding)",
          ga->link_speed, ga->link_width.value_or(0), gb->link_speed, gb->link_width.value_or(0));
    }
  }
}

std::string kfd_link_type_name(std::uint64_t type) {
  switch (type) {
    case 1:
      return "hypertransport";
    case 2:
      return "pcie";
    case 5:
      return "qpi";
    case 9:
      return "infiniband";
    case 11:
      return "xgmi";
    default:
      return fmt::format("type {}", type);
  }
}

void merge_kfd_links(Topology& t, const std::vector<GpuHardware>& gpus, const std::vector<KfdIoLink>& links) {
  auto node_of = [&](const std::string& addr) -> int {
    for (const auto& g : gpus) {
      if (g.pci_address == addr && g.vendor_info.contains("kfd"))
        return g.vendor_info["kfd"].value("node", -1);
    }
    return -1;
  };
  for (auto& p : t.pairs) {
    const int na = node_of(p.a), nb = node_of(p.b);
    if (na < 0 || nb < 0) continue;
    for (const auto& l : links) {
      if (!((l.node_from == na && l.node_to == nb) || (l.node_from == nb && l.node_to == na))) continue;
      p.kfd_link = kfd_link_type_name(l.type);
      p.kfd_weight = static_cast<int>(l.weight);
      if (l.max_bandwidth_mbps > 0) p.kfd_max_bandwidth_mbps = static_cast<double>(l.max_bandwidth_mbps);
      if (std::find(p.sources.begin(), p.sources.end(), "kfd") == p.sources.end()) p.sources.push_back("kfd");
      if (l.type == 11) {
        p.link = "xgmi";
        if (l.max_bandwidth_mbps > 0) {
          p.bound_gbps = static_cast<double>(l.max_bandwidth_mbps) / 1000.0;
          p.bound_source = fmt::format("KFD io_link max_bandwidth {} MB/s (xGMI)", l.max_bandwidth_mbps);
        }
      }
      if (l.flags & (1u << 4)) {
        p.p2p_status = "no_peer_to_peer_dma";
        p.p2p_status_source = "kfd";
      } else if (p.p2p_status.empty()) {
        p.p2p_status = "ok";
        p.p2p_status_source = "kfd";
      }
      break;
    }
  }
}

std::string nvml_topology_level_name(int level) {
  switch (level) {
    case 0:
      return "INTERNAL";
    case 10:
      return "SINGLE";
    case 20:
      return "MULTIPLE";
    case 30:
      return "HOSTBRIDGE";
    case 40:
      return "NODE";
    case 50:
      return "SYSTEM";
    default:
      return {};
  }
}

std::string nvml_p2p_status_name(int status) {
  static const char* const kNames[] = {"ok",
                                       "chipset_not_supported",
                                       "gpu_not_supported",
                                       "ioh_topology_not_supported",
                                       "disabled_by_regkey",
                                       "not_supported",
                                       "unknown"};
  return status >= 0 && status < 7 ? kNames[status] : fmt::format("status {}", status);
}

}  // namespace accel::platform::detail
