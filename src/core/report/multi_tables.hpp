// Terminal rendering of the multi-GPU / multi-machine evidence: the topology
// (environment.topology) and the rows of `accel-doctor multi` (kind
// "multi": peer access and copies, the group and its ranks, collectives,
// send/recv links). Also used by `report --from` on merged per-rank reports,
// where the ranks table shows every node and the links table marks the
// slowest link. Pure: returns text.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/report/console.hpp"

namespace accel {

/// GPUs (address, name, NUMA node, PCIe link), pairs (link, NVLinks, P2P
/// status, bound, ACS), and the host (IOMMU, /dev/shm, container). "" when
/// the environment has no topology.
std::string render_topology(const Environment& env, const ConsoleStyle& style);

/// The multi rows, table by table (peer, ranks, collectives, links). "" when none.
std::string render_multi_tables(const std::vector<Result>& results, const ConsoleStyle& style);

/// The slowest link: the link row (category "link", ok) with the lowest
/// bandwidth among those of the largest size measured; nullptr when none.
const Result* slowest_link(const std::vector<Result>& results);

}  // namespace accel
