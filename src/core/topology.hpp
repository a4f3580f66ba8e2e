// The multi-GPU topology of one machine (environment.topology), found without
// torch: how each pair of GPUs is linked (NVLink, xGMI, a PCIe switch, a host
// bridge, across NUMA nodes), where each GPU sits (NUMA node, IOMMU group,
// the PCIe bridges above it, with their ACS state), the IOMMU mode, and the
// size of /dev/shm (NCCL's intra-node transport). Probed by
// platform::probe_topology (src/platform/topology*.cpp) from sysfs, NVML and
// the AMD KFD topology; read by the multi rules (core/rules/rules_multi.cpp).
// Present in a report only when the machine has two or more GPUs, or when
// `accel-doctor multi` ran. Schema: docs/report-schema.md ("topology").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/json.hpp"

namespace accel {

/// The Access Control Services state of one PCIe bridge (PCIe Base
/// Specification, "ACS Extended Capability", capability id 0x000D; the
/// names lspci -vvv prints: ACSCap/ACSCtl SrcValid TransBlk ReqRedir
/// CmpltRedir UpstreamFwd EgressCtrl DirectTrans).
struct PciAcs {
  std::string address;  ///< the bridge, "0000:03:00.0"
  bool has_acs = false;
  std::vector<std::string> enabled;  ///< ACSCtl bits set, lspci names ("SrcValid", "ReqRedir", ...)
  /// True when ACS sends peer-to-peer requests or completions up to the root
  /// complex (ReqRedir or CmpltRedir set): GPU peer traffic through this
  /// bridge then goes through the IOMMU, or fails.
  bool redirects = false;
  std::string error;  ///< why the state is unknown ("config space beyond 64 bytes needs root")
};

/// Where one GPU sits.
struct GpuPlacement {
  std::string pci_address;
  std::optional<int> numa_node;    ///< sysfs numa_node (-1, "none", is left empty)
  std::optional<int> iommu_group;  ///< sysfs iommu_group link
  std::string iommu_group_type;    ///< /sys/kernel/iommu_groups/N/type: "identity", "DMA", "DMA-FQ", ...
  /// The PCIe bridges from the root port down to the GPU, root first.
  std::vector<std::string> upstream;
  std::optional<int> link_width;  ///< current PCIe width of the GPU's own link (or its board's slot link)
  std::optional<int> link_max_width;
  std::string link_speed;                 ///< max speed of that link, "16.0 GT/s PCIe"
  std::optional<double> pcie_bound_gbps;  ///< one direction: lanes x the speed's rate after encoding
};

/// How two GPUs are linked.
struct GpuPair {
  std::string a, b;  ///< PCI addresses, a < b
  /// "nvlink", "xgmi", "pcie_switch" (PCIe, under one switch: NVML SINGLE or
  /// MULTIPLE, sysfs a common bridge below the root port), "pcie_host_bridge"
  /// (through the CPU's root complex, NVML HOSTBRIDGE/NODE), "cross_numa"
  /// (through the CPU interconnect, NVML SYSTEM, different NUMA nodes), "unknown"
  std::string link;
  int nvlinks = 0;  ///< active NVLinks between them (NVML), or to NVSwitches when `via_nvswitch`
  bool via_nvswitch = false;
  std::string nvml_level;  ///< nvmlDeviceGetTopologyCommonAncestor: INTERNAL, SINGLE, MULTIPLE, HOSTBRIDGE,
                           ///< NODE, SYSTEM
  /// Whether the driver allows peer-to-peer between them: NVML's
  /// nvmlDeviceGetP2PStatus(READ) ("ok", "chipset_not_supported",
  /// "gpu_not_supported", "ioh_topology_not_supported", "disabled_by_regkey",
  /// "not_supported", "unknown"), or the KFD's io_link flag
  /// ("no_peer_to_peer_dma"); "" when no source says.
  std::string p2p_status;
  std::string p2p_status_source;  ///< "nvml", "kfd"
  std::string kfd_link;           ///< KFD io_link type: "xgmi", "pcie", ... with its weight in kfd_weight
  std::optional<int> kfd_weight;
  std::optional<double> kfd_max_bandwidth_mbps;  ///< io_link max_bandwidth (MB/s, as the KFD writes it)
  std::string common_bridge;  ///< the nearest bridge above both (sysfs); "" when they meet at the host bridge
  std::vector<std::string> acs_redirecting;  ///< bridges between them whose ACS redirects peer traffic
  std::optional<double> bound_gbps;          ///< one direction, the link's bound
  std::string bound_source;                  ///< how the bound was computed
  std::vector<std::string> sources;          ///< "nvml", "sysfs", "kfd"
};

struct Topology {
  std::vector<GpuPlacement> gpus;
  std::vector<GpuPair> pairs;
  std::vector<PciAcs> bridges;  ///< every bridge above a GPU, with its ACS state
  /// "off" (no IOMMU), "passthrough" (identity domains: iommu=pt), "translated"
  /// (DMA domains: every device access is remapped), "unknown".
  std::string iommu;
  std::string iommu_basis;     ///< what was read to decide it
  std::string kernel_cmdline;  ///< the IOMMU and ACS parameters of /proc/cmdline ("intel_iommu=on iommu=pt")
  std::optional<std::uint64_t> shm_bytes;  ///< size of /dev/shm
  std::optional<std::uint64_t> shm_free_bytes;
  std::string shm_source;         ///< "statvfs(/dev/shm)", "mountinfo size=65536k", ...
  std::optional<bool> container;  ///< this process runs in a container
  std::string container_basis;
  std::map<std::string, std::string> not_collected;
};

ACCEL_JSON_DECLARE(PciAcs)
ACCEL_JSON_DECLARE(GpuPlacement)
ACCEL_JSON_DECLARE(GpuPair)
ACCEL_JSON_DECLARE(Topology)

}  // namespace accel
