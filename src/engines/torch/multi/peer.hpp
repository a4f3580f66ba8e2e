// Peer access and device-to-device copies between two GPUs of this process
// (CUDA, or HIP on a ROCm torch): what cudaDeviceCanAccessPeer says each way,
// and copies timed with cudaMemcpyPeerAsync with peer access enabled both
// ways (the copy engines move the data over NVLink or PCIe directly) and
// disabled (the driver stages it through host memory), as CUDA's
// p2pBandwidthLatencyTest sample measures them. Implemented for CUDA/ROCm
// builds in backend/cuda/peer_cuda.cpp; a CPU-only torch throws
// std::runtime_error (multi/peer_none.cpp). Engine-internal.
#pragma once

#include <optional>
#include <string>

#include "core/evidence.hpp"
#include "engines/torch/timer.hpp"

namespace accel::engine {

struct PeerAccess {
  bool a_to_b = false;  ///< device a can access device b's memory
  bool b_to_a = false;
  std::optional<int> performance_rank;  ///< cudaDevP2PAttrPerformanceRank (a -> b): lower is a better link
  std::optional<bool> native_atomics;   ///< cudaDevP2PAttrNativeAtomicSupported (a -> b)
};

/// Throws std::runtime_error (a CPU-only torch, or a runtime error with its name).
PeerAccess peer_access(int a, int b);

struct PeerCopy {
  Timing timing;       ///< per copy of `bytes`
  bool right = false;  ///< the destination holds the source's data afterwards
  std::string detail;  ///< what was checked
};

/// Times copies of `bytes` from device `src` to device `dst`; `peer` enables
/// peer access both ways first (and disables it after), otherwise it is
/// disabled. Throws std::runtime_error, also when `peer` is asked and the
/// devices cannot access each other.
PeerCopy measure_peer_copy(int src, int dst, bool peer, double bytes, const TimerOptions& timer);

}  // namespace accel::engine
