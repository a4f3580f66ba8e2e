// JSON (de)serialisers of the GPU topology (core/topology.hpp),
// declared there with ACCEL_JSON_DECLARE (core/json.hpp says why they are not inline).
#include "core/topology.hpp"

namespace accel {
ACCEL_JSON_DEFINE(PciAcs, address, has_acs, enabled, redirects, error)
ACCEL_JSON_DEFINE(GpuPlacement, pci_address, numa_node, iommu_group, iommu_group_type, upstream, link_width,
                  link_max_width, link_speed, pcie_bound_gbps)
ACCEL_JSON_DEFINE(GpuPair, a, b, link, nvlinks, via_nvswitch, nvml_level, p2p_status, p2p_status_source,
                  kfd_link, kfd_weight, kfd_max_bandwidth_mbps, common_bridge, acs_redirecting, bound_gbps,
                  bound_source, sources)
ACCEL_JSON_DEFINE(Topology, gpus, pairs, bridges, iommu, iommu_basis, kernel_cmdline, shm_bytes,
                  shm_free_bytes, shm_source, container, container_basis, not_collected)
}  // namespace accel
