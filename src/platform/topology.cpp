// probe_topology: the multi-GPU topology from sysfs (Documentation/ABI/
// testing/sysfs-bus-pci: numa_node, iommu_group, config, *_link_*;
// sysfs-kernel-iommu_groups: type), /proc (cmdline, self/mountinfo,
// self/cgroup), the AMD KFD io_links and NVIDIA's NVML. Never throws.
#include <fmt/format.h>

#include <algorithm>

#include "core/multi/link_bound.hpp"
#include "platform/topology_detail.hpp"

namespace accel::platform {

namespace {

using namespace detail;

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

GpuPlacement place(const ProbeRoots& roots, const GpuHardware& g, std::string& canonical) {
  GpuPlacement p;
  p.pci_address = g.pci_address;
  const std::string dev = join(roots.sys, "bus/pci/devices/" + g.pci_address);
  canonical = real_path(dev);
  if (const auto n = read_line(join(dev, "numa_node")); n && !n->empty() && (*n)[0] != '-') {
    if (const auto v = parse_uint(*n, 10)) p.numa_node = static_cast<int>(*v);
  }
  if (const std::string link = read_link(join(dev, "iommu_group")); !link.empty()) {
    if (const auto grp = parse_uint(base_name(link), 10)) {
      p.iommu_group = static_cast<int>(*grp);
      if (const auto type = read_line(join(roots.sys, fmt::format("kernel/iommu_groups/{}/type", *grp)))) {
        p.iommu_group_type = *type;
      }
    }
  }
  if (!canonical.empty()) p.upstream = upstream_bridges(canonical);
  // The link to the host: the board's slot link when the card has a switch of
  // its own (AMD, Intel Arc: pci.cpp slot_link), else the GPU's own link.
  json link = json::object();
  if (g.vendor_info.contains("pci") && g.vendor_info["pci"].contains("slot_link")) {
    link = g.vendor_info["pci"]["slot_link"];
  } else if (g.link) {
    link = *g.link;
  }
  if (link.contains("current_width") && link["current_width"].is_number())
    p.link_width = link["current_width"].get<int>();
  if (link.contains("max_width") && link["max_width"].is_number())
    p.link_max_width = link["max_width"].get<int>();
  p.link_speed = link.value("max_speed", std::string());
  if (p.link_speed.empty()) p.link_speed = link.value("current_speed", std::string());
  p.pcie_bound_gbps = multi::pcie_link_gbps(p.link_speed, p.link_width);
  return p;
}

void probe_host_facts(const ProbeRoots& roots, Topology& t, const std::vector<std::string>& group_types) {
  std::string err;
  const auto cmdline = read_line(join(roots.proc, "cmdline"), &err);
  if (cmdline) {
    t.kernel_cmdline = iommu_cmdline_params(*cmdline);
  } else {
    t.not_collected["kernel_cmdline"] = err;
  }
  std::vector<std::string> units;
  for (const auto& u : list_dir(join(roots.sys, "class/iommu"))) {
    if (!u.empty() && u[0] != '.') units.push_back(u);
  }
  t.iommu = classify_iommu(units, group_types, t.kernel_cmdline, t.iommu_basis);

  const auto mountinfo = read_text(join(roots.proc, "self/mountinfo")).value_or("");
  const auto cgroup = read_text(join(roots.proc, "self/cgroup")).value_or("");
  t.container = container_from_proc(mountinfo, cgroup, t.container_basis);
  if (!t.container) t.not_collected["container"] = "no readable /proc/self/mountinfo or /proc/self/cgroup";

  // /dev/shm: statvfs on the live system; on a recorded tree its mount line.
  const std::string shm = join(roots.dev, "shm");
  if (roots.dev == "/dev") {
    if (const auto space = filesystem_space(shm)) {
      t.shm_bytes = space->total_bytes;
      t.shm_free_bytes = space->free_bytes;
      t.shm_source = "statvfs(/dev/shm)";
    }
  }
  if (!t.shm_bytes) {
    const ShmMount m = parse_shm_mountinfo(mountinfo);
    if (m.found && m.size_bytes) {
      t.shm_bytes = m.size_bytes;
      t.shm_source = fmt::format("/proc/self/mountinfo: {} {}", m.fstype, m.options);
    } else if (m.found && m.fstype == "tmpfs") {
      const auto meminfo = read_text(join(roots.proc, "meminfo")).value_or("");
      if (const auto total = meminfo_bytes(meminfo, "MemTotal")) {
        t.shm_bytes = *total / 2;
        t.shm_source = "tmpfs without size=: the kernel's default, half of MemTotal";
      }
    }
    if (!t.shm_bytes) {
      t.not_collected["shm_bytes"] =
          m.found ? "/dev/shm is mounted but its size is not readable" : "no /dev/shm mount";
    }
  }
}

}  // namespace

std::vector<GpuHardware> compute_gpus(const std::vector<GpuHardware>& gpus) {
  std::vector<GpuHardware> out;
  for (const auto& g : gpus) {
    if (g.vendor_info.contains("display_only") || (g.integrated && *g.integrated)) continue;
    out.push_back(g);
  }
  return out;
}

Topology probe_topology(const ProbeRoots& roots, const std::vector<GpuHardware>& all_gpus) {
  Topology t;
  try {
    const std::vector<GpuHardware> gpus = compute_gpus(all_gpus);
    std::vector<std::string> host_bridges, group_types;
#if defined(__linux__)
    for (const auto& g : gpus) {
      std::string canonical;
      t.gpus.push_back(place(roots, g, canonical));
      host_bridges.push_back(host_bridge_of(canonical));
      group_types.push_back(t.gpus.back().iommu_group_type);
      if (canonical.empty()) t.not_collected["gpu." + g.pci_address] = "no sysfs device directory";
    }
    // ACS of every bridge above a GPU (each once).
    for (const auto& p : t.gpus) {
      for (const auto& b : p.upstream) {
        if (std::any_of(t.bridges.begin(), t.bridges.end(),
                        [&](const PciAcs& x) { return x.address == b; })) {
          continue;
        }
        std::string err;
        const auto config = read_text(join(roots.sys, "bus/pci/devices/" + b + "/config"), &err, 4096);
        if (config) {
          t.bridges.push_back(parse_acs_config(b, *config));
        } else {
          PciAcs a;
          a.address = b;
          a.error = err;
          t.bridges.push_back(a);
        }
      }
    }
    probe_host_facts(roots, t, group_types);
#else
    for (const auto& g : gpus) {
      GpuPlacement p;
      p.pci_address = g.pci_address;
      t.gpus.push_back(p);
    }
    t.iommu = "unknown";
    t.not_collected["sysfs"] = "the PCI topology is read from Linux sysfs; not implemented on this OS";
#endif
    for (std::size_t i = 0; i < t.gpus.size(); ++i) {
      for (std::size_t j = i + 1; j < t.gpus.size(); ++j) {
        GpuPair p;
        p.a = t.gpus[i].pci_address;
        p.b = t.gpus[j].pci_address;
        t.pairs.push_back(p);
      }
    }
    if (roots.use_vendor_libraries) merge_nvml_topology(t, gpus);
#if defined(__linux__)
    merge_kfd_links(t, gpus, read_kfd_io_links(roots.sys));
#endif
    classify_pairs_from_sysfs(t, host_bridges);
  } catch (const std::exception& e) {
    t.not_collected["topology"] = std::string("probe failed: ") + e.what();
  }
  return t;
}

namespace detail {

std::vector<KfdIoLink> read_kfd_io_links(const std::string& sys_root) {
  std::vector<KfdIoLink> out;
  const std::string dir = join(sys_root, "class/kfd/kfd/topology/nodes");
  for (const auto& node : list_dir(dir)) {
    for (const char* kind : {"io_links", "p2p_links"}) {
      const std::string links = join(join(dir, node), kind);
      for (const auto& l : list_dir(links)) {
        const auto text = read_text(join(join(links, l), "properties"));
        if (!text) continue;
        const auto props = parse_kfd_properties(*text);
        auto get = [&](const char* k) {
          const auto it = props.find(k);
          return it == props.end() ? std::uint64_t{0} : it->second;
        };
        KfdIoLink link;
        link.node_from = props.count("node_from") ? static_cast<int>(get("node_from")) : -1;
        link.node_to = props.count("node_to") ? static_cast<int>(get("node_to")) : -1;
        link.type = get("type");
        link.weight = get("weight");
        link.max_bandwidth_mbps = get("max_bandwidth");
        link.flags = get("flags");
        if (link.node_from >= 0 && link.node_to >= 0) out.push_back(link);
      }
    }
  }
  return out;
}

}  // namespace detail

}  // namespace accel::platform
