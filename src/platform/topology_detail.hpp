// Internals of probe_topology (topology.cpp), exposed for the unit tests:
// the pure parsers (text or bytes in, values out) and the classification of
// GPU pairs. Not a public interface: callers use probes.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "platform/detail.hpp"

namespace accel::platform::detail {

/// The ACS state of a bridge from its PCI configuration space (the sysfs
/// `config` file): the extended capability list from offset 0x100, ACS is id
/// 0x000D, its Control register at +6 (PCIe Base Specification). A file of
/// 256 bytes or less (what sysfs gives a user without CAP_SYS_ADMIN: 64) has
/// no extended space: `error` says so.
PciAcs parse_acs_config(const std::string& address, std::string_view config);
/// lspci's names of the ACS Control bits set in `ctl` (SrcValid TransBlk
/// ReqRedir CmpltRedir UpstreamFwd EgressCtrl DirectTrans).
std::vector<std::string> acs_control_names(std::uint16_t ctl);

/// /dev/shm as /proc/self/mountinfo describes it.
struct ShmMount {
  bool found = false;
  std::string fstype;                       ///< "tmpfs"
  std::optional<std::uint64_t> size_bytes;  ///< from "size=65536k" (absent: tmpfs' default, half of RAM)
  std::string options;                      ///< the super options as written
};
ShmMount parse_shm_mountinfo(std::string_view mountinfo);

/// Whether /proc/self/mountinfo and /proc/self/cgroup say this process runs
/// in a container (an overlay root file system, or a docker, containerd,
/// libpod, kubepods or lxc cgroup), with the basis; nullopt when neither
/// says either way.
std::optional<bool> container_from_proc(std::string_view mountinfo, std::string_view cgroup,
                                        std::string& basis);

/// The IOMMU and ACS parameters of a kernel command line, in order
/// ("intel_iommu=on iommu=pt"): intel_iommu, amd_iommu, iommu, iommu.passthrough,
/// iommu.strict, pcie_acs_override, pci=noats.
std::string iommu_cmdline_params(std::string_view cmdline);

/// The IOMMU mode from what sysfs shows: IOMMU units under
/// /sys/class/iommu (`units`), the GPUs' group types ("identity", "DMA",
/// "DMA-FQ"), and the command line's parameters. Sets `basis`.
std::string classify_iommu(const std::vector<std::string>& units, const std::vector<std::string>& group_types,
                           const std::string& cmdline_params, std::string& basis);

/// The PCI addresses of the bridges above a device, root port first, from its
/// canonical sysfs path (".../pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0"
/// -> 0000:00:01.0, 0000:01:00.0 for the device 0000:02:00.0).
std::vector<std::string> upstream_bridges(const std::string& canonical_path);
/// The host bridge part of that path ("pci0000:00"), "" when none.
std::string host_bridge_of(const std::string& canonical_path);

/// Fills `link`, `common_bridge`, `acs_redirecting`, `bound_gbps` of each
/// pair of `topology.gpus` from sysfs facts alone (upstream bridges, NUMA,
/// ACS, link widths), for pairs no vendor source classified.
void classify_pairs_from_sysfs(Topology& topology, const std::vector<std::string>& host_bridges);

/// One KFD io_link (nodes/N/io_links/M/properties or p2p_links/M/properties:
/// "type", "node_from", "node_to", "weight", "min_bandwidth",
/// "max_bandwidth", "flags"; kfd_topology.c iolink_show).
struct KfdIoLink {
  int node_from = -1, node_to = -1;
  std::uint64_t type = 0;  ///< CRAT_IOLINK_TYPE_*: 2 PCIe, 11 xGMI (kfd_crat.h)
  std::uint64_t weight = 0;
  std::uint64_t max_bandwidth_mbps = 0;
  std::uint64_t flags = 0;  ///< bit 4: no peer-to-peer DMA on this route
};
/// "xgmi", "pcie", "hypertransport", "qpi", "infiniband", "type <n>".
std::string kfd_link_type_name(std::uint64_t type);
std::vector<KfdIoLink> read_kfd_io_links(const std::string& sys_root);
/// Adds the KFD's view of each pair of AMD GPUs (their KFD nodes are in
/// `gpus[i].vendor_info["kfd"]["node"]`).
void merge_kfd_links(Topology& topology, const std::vector<GpuHardware>& gpus,
                     const std::vector<KfdIoLink>& links);

/// Adds NVML's view of each pair of NVIDIA GPUs (common ancestor, P2P read
/// status, NVLinks); failures go into `topology.not_collected["nvml"]`.
/// Implemented in nvml.cpp.
void merge_nvml_topology(Topology& topology, const std::vector<GpuHardware>& gpus);
/// nvmlGpuTopologyLevel_t as a name (0 INTERNAL ... 50 SYSTEM), "" when unknown.
std::string nvml_topology_level_name(int level);
/// nvmlGpuP2PStatus_t as a name ("ok", "chipset_not_supported", ...).
std::string nvml_p2p_status_name(int status);

/// Total and free bytes of the file system at `path` (statvfs); nullopt where
/// the OS has none or the path does not exist. Implemented in posix/ and windows/.
struct FsSpace {
  std::uint64_t total_bytes = 0;
  std::uint64_t free_bytes = 0;
};
std::optional<FsSpace> filesystem_space(const std::string& path);

}  // namespace accel::platform::detail
