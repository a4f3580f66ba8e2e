// A process group of torch.distributed's C++ backend (c10d), for the multi
// suite: the store the ranks meet through (a FileStore for ranks on one
// host, a TCPStore at MASTER_ADDR:MASTER_PORT under a launcher, as
// torch/distributed/rendezvous.py builds it) and the backend's collectives
// (ProcessGroupGloo on the CPU; ProcessGroupNCCL on CUDA, RCCL on a ROCm
// torch). Which backends this engine has is decided at build time by the
// torch it is built against: gloo needs torch's USE_C10D_GLOO and the gloo
// headers (Debian: libgloo-dev); nccl needs USE_C10D_NCCL and nccl.h
// (CMake's ACCEL_WITH_C10D_NCCL). Engine-internal.
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace accel::engine {

/// How this rank meets the others.
struct Rendezvous {
  int rank = 0;
  int world = 1;
  std::string backend;  ///< "gloo" or "nccl"
  c10::Device device = c10::kCPU;
  std::string file_store;   ///< local ranks: the FileStore's file
  std::string master_addr;  ///< launcher: the TCPStore host
  int master_port = 0;
  bool host_store = false;   ///< this rank starts the TCPStore server (rank 0 without an agent store)
  std::string store_prefix;  ///< torchrun's agent store: "/worker/attempt_<n>"
  std::string gloo_host;  ///< gloo: the address to bind ("127.0.0.1" for local ranks), "" = this host's name
  std::string gloo_interface;  ///< gloo: GLOO_SOCKET_IFNAME's first interface, preferred over gloo_host
  std::chrono::milliseconds timeout{std::chrono::seconds(120)};
};

/// The collectives over one process group. Every call waits for its work
/// (gloo: done; nccl: the current stream waits, so a device synchronise
/// after a batch of calls times them). Throws what c10d throws.
class Comm {
 public:
  virtual ~Comm() = default;
  virtual void all_reduce(at::Tensor& t, bool max = false) = 0;
  /// `out` holds world x in.numel() elements, rank r's input at r * in.numel().
  virtual void all_gather(at::Tensor& out, at::Tensor& in) = 0;
  /// `in` holds world x out.numel() elements; rank r gets the sum of block r.
  virtual void reduce_scatter(at::Tensor& out, at::Tensor& in) = 0;
  virtual void broadcast(at::Tensor& t, int root) = 0;
  virtual void send(at::Tensor& t, int dst, int tag) = 0;
  virtual void recv(at::Tensor& t, int src, int tag) = 0;
  /// The store the ranks met through (for small facts: identities, transports).
  virtual void store_set(const std::string& key, const std::string& value) = 0;
  /// Waits for `key` (up to the rendezvous timeout).
  virtual std::string store_get(const std::string& key) = 0;
};

/// "" when this engine can run `backend` ("gloo", "nccl"), else why not.
std::string backend_problem(const std::string& backend);

/// Forms the process group (blocks until every rank joined, up to the
/// timeout). Throws std::runtime_error with what failed and where.
std::unique_ptr<Comm> make_comm(const Rendezvous& r);

/// The version of the backend's library this engine runs ("gloo" has none
/// of its own: torch's), "" when unknown.
std::string backend_library_version(const std::string& backend);

}  // namespace accel::engine
