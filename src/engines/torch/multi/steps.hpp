// The multi suite's items as functions over one rank's view of the group
// (multi_suite.cpp holds the suite and forms the group; steps.cpp runs the
// group, collective and link items; peer_items.cpp the peer items).
// Engine-internal.
#pragma once

#include <memory>
#include <string>

#include "core/kb.hpp"
#include "engine_api/multi.hpp"
#include "engines/torch/multi/comm.hpp"
#include "engines/torch/multi/nccl_debug.hpp"

namespace accel::engine {

/// One rank's view of the group.
struct GroupContext {
  MultiOptions options;
  int rank = 0;
  int world = 1;
  std::string backend;
  c10::Device device = c10::kCPU;
  std::unique_ptr<Comm> comm;
  std::string broken;               ///< why the group cannot be used ("" while it can)
  json identities = json::array();  ///< every rank's identity, by rank (the group item gathers them)
  NcclDebugCapture nccl;
  const KnowledgeBase* kb = nullptr;
};

/// The result skeleton of an item, on this rank's device.
Result multi_result(const GroupContext& g, const MultiItem& item);
/// An exception as the item's error, with its cause from the kb when known;
/// "does not support" messages make the item `unavailable`.
void set_error(Result& r, const std::exception& e, const KnowledgeBase* kb, const MachineContext& machine);

/// This rank's identity: rank, local rank, host, pid, device and its name
/// and PCI bus id, torch, backend and its library's version, launcher.
json rank_identity(const GroupContext& g);

/// The group item: after the group formed (g.comm set by the caller), a
/// small all-reduce checks it and every rank's identity and NCCL summary
/// are gathered into g.identities.
Result run_group_item(GroupContext& g, const MultiItem& item, double setup_ms);
/// One rank's row, from g.identities.
Result rank_row(const GroupContext& g, const MultiItem& item);
/// A collective over every rank, timed and checked.
Result run_collective_item(GroupContext& g, const MultiItem& item);
/// One send/recv link (item.a -> item.b); every rank steps through it.
Result run_link_item(GroupContext& g, const MultiItem& item);
/// Peer access or a peer copy between two GPUs of this process.
Result run_peer_item(const GroupContext& g, const MultiItem& item);

}  // namespace accel::engine
