// Several GPUs and several machines (`accel-doctor multi`), torch-free API.
//
// Items, in run order (keys: core/multi/collective.hpp):
//  peer      per pair of local CUDA/ROCm GPUs: whether each can access the
//            other (cudaDeviceCanAccessPeer both ways), and device-to-device
//            copy bandwidth per direction with peer access on and off
//            ("multi/cuda/p2p_copy/d<i>-d<j>/peer|no_peer/<size>"), drawn
//            against the link's bound (environment.topology). One process,
//            no process group. Needs a CUDA/ROCm torch and two GPUs.
//  group     the process group forms (rendezvous through a FileStore for
//            local ranks, a TCPStore at MASTER_ADDR:MASTER_PORT under a
//            launcher), one small all-reduce checks it, and every rank's
//            identity (host, device, library versions, transports NCCL
//            chose) is gathered: "multi/<backend>/group/n<N>", plus one row
//            per rank this process reports ("multi/<backend>/rank/r<k>").
//  collective all-reduce, all-gather, reduce-scatter, broadcast over the
//            message sizes, each checked element by element against the
//            expected values; algbw/busbw as nccl-tests defines them.
//  link      send/recv between each rank and the next, one link at a time.
// Local ranks (no launcher): the engine's worker is rank 0 and starts ranks
// 1..N-1 itself (one per device, or N on the CPU). Under torchrun or srun
// each process is one rank and starts no other.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/machine_context.hpp"
#include "core/multi/launch.hpp"
#include "engine_api/isolation.hpp"

namespace accel::engine {

struct MultiOptions {
  /// The device of each local rank, one entry per rank this host runs:
  /// "cuda:0", "cuda:1"; "cpu" repeated for CPU ranks. Under a launcher, the
  /// one entry of this process's rank.
  std::vector<std::string> devices{"cpu", "cpu"};
  /// "gloo", "nccl" (RCCL on a ROCm torch: torch names it nccl), or "auto":
  /// nccl on GPUs, gloo on the CPU.
  std::string backend = "auto";
  std::vector<std::string> collectives;     ///< names (core/multi/collective.hpp); empty: the four
  std::vector<std::string> dtypes{"fp32"};  ///< "fp32", "bf16", "fp16"
  std::vector<double> sizes_bytes;          ///< message sizes S; empty: the default sweep
  bool links = true;                        ///< send/recv per ring link
  /// The GPUs whose pairs get the peer items (every GPU of this host the
  /// engine sees, on one process per host: local rank 0); empty: none.
  std::vector<std::string> peer_devices;
  bool quick = false;        ///< fewer sizes, shorter timing
  multi::LaunchInfo launch;  ///< launcher none: local ranks, started by the engine
  bool isolate = true;
  double item_timeout_s = 180;
  MachineContext machine;
};

ACCEL_JSON_DECLARE(MultiOptions)

/// The backend "auto" resolves to for these devices: "nccl" when the first is
/// a GPU ("cuda:N"), else "gloo".
std::string resolve_backend(const MultiOptions& options);

/// The message sizes of a run: `sizes_bytes` when given, else the default
/// sweep for the backend (gloo: 4 KiB-16 MiB, quick 64 KiB and 4 MiB; nccl:
/// 1 KiB-1 GiB by 4x, quick 1 MiB, 64 MiB, 1 GiB).
std::vector<double> multi_sizes(const MultiOptions& options);

/// The world size of a run: the launcher's, else one rank per device.
int multi_world_size(const MultiOptions& options);

/// This process's rank (the launcher's, else 0).
int multi_rank(const MultiOptions& options);

/// The message size of the peer copies: 256 MiB (64 MiB with `quick`).
double peer_copy_bytes(const MultiOptions& options);

/// One item of a multi run and what it measures.
struct MultiItem {
  enum class Type { peer_access, p2p_copy, group, rank, collective, link };
  ItemInfo info;
  Type type = Type::group;
  std::string collective;  ///< collective, link: its name (core/multi/collective.hpp)
  std::string dtype;       ///< collective, link, p2p_copy
  double size_bytes = 0;   ///< collective, link, p2p_copy: S
  int a = 0, b = 0;   ///< peer items: device indices into peer_devices; link: src, dst rank; rank: the rank
  bool peer = false;  ///< p2p_copy: with peer access enabled
  /// Whether every rank of the group runs this item in step (the items that
  /// need the process group: group, collective, link).
  bool collective_step() const {
    return type == Type::group || type == Type::collective || type == Type::link;
  }
};

/// The items the options expand to, in run order (the collective steps are
/// the same on every rank; the rank rows differ: all of them for local
/// ranks, this process's own under a launcher). Throws
/// std::invalid_argument for an unknown collective or dtype, or a backend
/// other than gloo, nccl or auto.
std::vector<MultiItem> plan_multi(const MultiOptions& options);
/// plan_multi's ItemInfos.
std::vector<ItemInfo> list_multi_items(const MultiOptions& options);

/// What the user asked `accel-doctor multi` for, before devices are resolved.
struct MultiRequest {
  std::string device = "auto";  ///< "auto", "cpu" or "cuda" (every GPU torch sees)
  int ranks = 0;                ///< local ranks; 0: one per GPU (2 on the CPU)
  std::string backend = "auto";
  std::vector<std::string> collectives;
  std::vector<std::string> dtypes;  ///< empty: fp32
  std::vector<double> sizes_bytes;
  bool quick = false;
  bool links = true;
  bool peer = true;
  bool isolate = true;
  double item_timeout_s = 180;
};

/// The options for this process. No launcher: local ranks on the GPUs torch
/// sees (`env.devices`, type cuda), the first `ranks` of them, or `ranks`
/// (default 2) CPU processes with gloo when asked for the CPU or when there
/// is no GPU; peer items over the chosen GPUs. Under a launcher: this
/// process's rank on cuda:<local rank> (cuda:0 when the launcher gave each
/// rank one GPU), peer items on local rank 0 only. `note` says what was
/// chosen and why. Throws std::invalid_argument naming what does not fit
/// (more ranks than GPUs, --device cuda without a GPU, nccl on the CPU,
/// --ranks under a launcher, a local rank beyond the GPUs).
MultiOptions resolve_multi_request(const MultiRequest& request, const Environment& env,
                                   const multi::LaunchInfo& launch, std::string& note);

/// Item kind of every multi row ("multi"), and their categories.
inline constexpr ResultKind kMultiKind = ResultKind::multi;

}  // namespace accel::engine
