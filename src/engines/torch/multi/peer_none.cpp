// A CPU-only torch has no GPUs to pair: the peer items say so.
#include "engines/torch/multi/peer.hpp"

#if !defined(ACCEL_WITH_CUDA)

#include <stdexcept>

namespace accel::engine {

PeerAccess peer_access(int, int) {
  throw std::runtime_error("peer access needs a CUDA or ROCm build of torch; this torch is CPU-only");
}

PeerCopy measure_peer_copy(int, int, bool, double, const TimerOptions&) {
  throw std::runtime_error("peer copies need a CUDA or ROCm build of torch; this torch is CPU-only");
}

}  // namespace accel::engine

#endif
