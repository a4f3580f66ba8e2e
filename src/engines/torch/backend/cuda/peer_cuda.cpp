// Peer access and peer copies on CUDA (and HIP on ROCm builds, whose
// runtime has the same calls under hip* names), as CUDA's
// p2pBandwidthLatencyTest sample does it: cudaDeviceCanAccessPeer both ways,
// cudaDeviceEnablePeerAccess / cudaDeviceDisablePeerAccess around the copies,
// cudaMemcpyPeerAsync on the source device's current torch stream so the
// engine's timer (torch's device events) times them. Never run on a machine
// with two GPUs yet (docs/multi.md).
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#if defined(ACCEL_WITH_ROCM)
#include <hip/hip_runtime_api.h>
#define ACCEL_RT(name) hip##name
#define ACCEL_RT_ATTR(name) hipDevP2PAttr##name
using AccelRtError = hipError_t;
#else
#include <cuda_runtime_api.h>
#define ACCEL_RT(name) cuda##name
#define ACCEL_RT_ATTR(name) cudaDevP2PAttr##name
using AccelRtError = cudaError_t;
#endif

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "engines/torch/multi/peer.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

namespace {

void check(AccelRtError e, const char* what) {
  if (e != ACCEL_RT(Success)) {
    throw std::runtime_error(fmt::format("{} failed: {}", what, ACCEL_RT(GetErrorString)(e)));
  }
}

/// Enables (or disables) access from `dev` to `peer`'s memory; an access
/// already in the asked state is not an error.
void set_peer_access(int dev, int peer, bool on) {
  check(ACCEL_RT(SetDevice)(dev), "cudaSetDevice");
  const AccelRtError e =
      on ? ACCEL_RT(DeviceEnablePeerAccess)(peer, 0) : ACCEL_RT(DeviceDisablePeerAccess)(peer);
  if (e == ACCEL_RT(ErrorPeerAccessAlreadyEnabled) || e == ACCEL_RT(ErrorPeerAccessNotEnabled)) {
    (void)ACCEL_RT(GetLastError)();  // clear the sticky-free error
    return;
  }
  check(e, on ? "cudaDeviceEnablePeerAccess" : "cudaDeviceDisablePeerAccess");
}

}  // namespace

PeerAccess peer_access(int a, int b) {
  PeerAccess p;
  int can = 0;
  check(ACCEL_RT(DeviceCanAccessPeer)(&can, a, b), "cudaDeviceCanAccessPeer");
  p.a_to_b = can != 0;
  check(ACCEL_RT(DeviceCanAccessPeer)(&can, b, a), "cudaDeviceCanAccessPeer");
  p.b_to_a = can != 0;
  int v = 0;
  if (ACCEL_RT(DeviceGetP2PAttribute)(&v, ACCEL_RT_ATTR(PerformanceRank), a, b) == ACCEL_RT(Success)) {
    p.performance_rank = v;
  } else {
    (void)ACCEL_RT(GetLastError)();
  }
  if (ACCEL_RT(DeviceGetP2PAttribute)(&v, ACCEL_RT_ATTR(NativeAtomicSupported), a, b) == ACCEL_RT(Success)) {
    p.native_atomics = v != 0;
  } else {
    (void)ACCEL_RT(GetLastError)();
  }
  return p;
}

PeerCopy measure_peer_copy(int src, int dst, bool peer, double bytes, const TimerOptions& timer) {
  if (peer) {
    const PeerAccess a = peer_access(src, dst);
    if (!a.a_to_b || !a.b_to_a) {
      throw std::runtime_error(
          fmt::format("peer access is not possible between cuda:{} and cuda:{} (cudaDeviceCanAccessPeer: {} "
                      "-> {} {}, {} -> {} {})",
                      src, dst, src, dst, a.a_to_b ? "yes" : "no", dst, src, a.b_to_a ? "yes" : "no"));
    }
  }
  set_peer_access(src, dst, peer);
  set_peer_access(dst, src, peer);
  const auto n = static_cast<int64_t>(bytes / 4);
  const c10::Device sd(c10::kCUDA, static_cast<c10::DeviceIndex>(src));
  const c10::Device dd(c10::kCUDA, static_cast<c10::DeviceIndex>(dst));
  const at::Tensor from = at::randn({n}, at::TensorOptions().device(sd).dtype(at::kFloat));
  at::Tensor to = at::zeros({n}, at::TensorOptions().device(dd).dtype(at::kFloat));
  synchronize(dd);
  const c10::cuda::CUDAGuard guard(sd.index());
  auto stream = c10::cuda::getCurrentCUDAStream(sd.index());
  const auto count = static_cast<std::size_t>(n) * sizeof(float);
  PeerCopy out;
  out.timing = time_op(
      sd,
      [&] {
        check(ACCEL_RT(MemcpyPeerAsync)(to.data_ptr(), dst, from.data_ptr(), src, count, stream.stream()),
              "cudaMemcpyPeerAsync");
      },
      timer);
  synchronize(sd);
  synchronize(dd);
  const int64_t m = std::min<int64_t>(n, 1 << 16);
  out.right = at::equal(from.narrow(0, 0, m).cpu(), to.narrow(0, 0, m).cpu()) &&
              at::equal(from.narrow(0, n - m, m).cpu(), to.narrow(0, n - m, m).cpu());
  out.detail = fmt::format("the first and last {} elements of the destination equal the source", m);
  if (peer) {  // leave the devices as found: no peer mapping left behind
    set_peer_access(src, dst, false);
    set_peer_access(dst, src, false);
  }
  return out;
}

}  // namespace accel::engine
