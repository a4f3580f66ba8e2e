#include "engines/torch/multi/comm.hpp"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <fmt/format.h>

#include "engines/torch/torch_util.hpp"
#include "platform/detail.hpp"

// gloo: torch built with it (USE_C10D_GLOO, from torch's CMake targets) and
// its headers at hand (Debian: libgloo-dev; PyPI wheels ship none).
#if defined(USE_C10D_GLOO) && __has_include(<gloo/algorithm.h>)
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#define ACCEL_HAS_GLOO 1
#else
#define ACCEL_HAS_GLOO 0
#endif
// nccl (RCCL on ROCm): CMake found nccl.h beside a CUDA/ROCm torch.
#if defined(ACCEL_WITH_C10D_NCCL) && defined(USE_C10D_NCCL)
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define ACCEL_HAS_NCCL 1
#else
#define ACCEL_HAS_NCCL 0
#endif

namespace accel::engine {

namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

c10::intrusive_ptr<c10d::Store> make_store(const Rendezvous& r) {
  c10::intrusive_ptr<c10d::Store> store;
  if (!r.file_store.empty()) {
    store = c10::make_intrusive<c10d::FileStore>(r.file_store, r.world);
  } else {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(r.master_port);
    o.isServer = r.host_store;
    o.numWorkers = static_cast<std::size_t>(r.world);
    // Every rank counts itself in (the server waits for all of them), as
    // torch.distributed's TCPStore(wait_for_workers=True) does: a client that
    // did not would leave the server waiting out its whole timeout.
    o.waitWorkers = true;
    o.timeout = r.timeout;
    o.multiTenant = true;
    try {
      store = c10::make_intrusive<c10d::TCPStore>(r.master_addr, o);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("the TCP store at {}:{} ({}): {}", r.master_addr, r.master_port,
                                           r.host_store ? "this rank hosts it" : "rank 0 hosts it",
                                           strip_backtrace(e.what())));
    }
    if (!r.store_prefix.empty()) store = c10::make_intrusive<c10d::PrefixStore>(r.store_prefix, store);
  }
  store->setTimeout(r.timeout);
  // Our own keys apart from anything else on a shared (agent) store.
  return c10::make_intrusive<c10d::PrefixStore>("accel-doctor", store);
}

template <class PG>
class C10dComm final : public Comm {
 public:
  C10dComm(c10::intrusive_ptr<c10d::Store> store, c10::intrusive_ptr<PG> pg, int world, bool flat)
      : store_(std::move(store)), pg_(std::move(pg)), world_(world), flat_(flat) {}

  void all_reduce(at::Tensor& t, bool max) override {
    std::vector<at::Tensor> v{t};
    c10d::AllreduceOptions o;
    if (max) o.reduceOp = c10d::ReduceOp::MAX;
    pg_->allreduce(v, o)->wait();
  }
  void all_gather(at::Tensor& out, at::Tensor& in) override {
    if (flat_) {
      pg_->_allgather_base(out, in)->wait();
      return;
    }
    std::vector<std::vector<at::Tensor>> outs{out.chunk(world_)};
    std::vector<at::Tensor> ins{in};
    pg_->allgather(outs, ins)->wait();
  }
  void reduce_scatter(at::Tensor& out, at::Tensor& in) override {
    if (flat_) {
      pg_->_reduce_scatter_base(out, in)->wait();
      return;
    }
    std::vector<at::Tensor> outs{out};
    std::vector<std::vector<at::Tensor>> ins{in.chunk(world_)};
    pg_->reduce_scatter(outs, ins)->wait();
  }
  void broadcast(at::Tensor& t, int root) override {
    std::vector<at::Tensor> v{t};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    pg_->broadcast(v, o)->wait();
  }
  void send(at::Tensor& t, int dst, int tag) override {
    std::vector<at::Tensor> v{t};
    pg_->send(v, dst, tag)->wait();
  }
  void recv(at::Tensor& t, int src, int tag) override {
    std::vector<at::Tensor> v{t};
    pg_->recv(v, src, tag)->wait();
  }
  void store_set(const std::string& key, const std::string& value) override {
    store_->set(key, bytes_of(value));
  }
  std::string store_get(const std::string& key) override {
    const auto v = store_->get(key);
    return {v.begin(), v.end()};
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<PG> pg_;
  int world_;
  bool flat_;
};

}  // namespace

std::string backend_problem(const std::string& backend) {
  if (backend == "gloo") {
#if ACCEL_HAS_GLOO
    return "";
#elif defined(USE_C10D_GLOO)
    return "this engine was built without the gloo headers (torch has gloo; install libgloo-dev, or the "
           "headers of the gloo torch was built with, and rebuild accel-doctor-torch)";
#else
    return "this torch was built without gloo (USE_C10D_GLOO)";
#endif
  }
  if (backend == "nccl") {
#if ACCEL_HAS_NCCL
    return "";
#elif defined(ACCEL_WITH_CUDA)
    return "this engine was built without NCCL: CMake found no nccl.h for this CUDA/ROCm torch (install the "
           "NCCL/RCCL development headers, or pip's nvidia-nccl package, and rebuild accel-doctor-torch)";
#else
    return "NCCL needs a CUDA (or ROCm: RCCL) build of torch; this torch is CPU-only";
#endif
  }
  return "unknown backend '" + backend + "' (gloo, nccl)";
}

std::unique_ptr<Comm> make_comm(const Rendezvous& r) {
  if (const std::string why = backend_problem(r.backend); !why.empty()) throw std::runtime_error(why);
  auto store = make_store(r);
  // The process group keeps its own keys under a prefix of the attempt, so a
  // replacement worker after a crash meets the others afresh.
  auto pg_store = c10::make_intrusive<c10d::PrefixStore>("pg", store);
#if ACCEL_HAS_GLOO
  if (r.backend == "gloo") {
    auto o = c10d::ProcessGroupGloo::Options::create(r.timeout);
    if (!r.gloo_interface.empty()) {
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(r.gloo_interface));
    } else if (!r.gloo_host.empty()) {
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(r.gloo_host));
    } else {
      o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(pg_store, r.rank, r.world, o);
    return std::make_unique<C10dComm<c10d::ProcessGroupGloo>>(store, pg, r.world, /*flat=*/false);
  }
#endif
#if ACCEL_HAS_NCCL
  if (r.backend == "nccl") {
    auto o = c10d::ProcessGroupNCCL::Options::create();
    o->timeout = r.timeout;
    auto pg = c10::make_intrusive<c10d::ProcessGroupNCCL>(pg_store, r.rank, r.world, o);
    return std::make_unique<C10dComm<c10d::ProcessGroupNCCL>>(store, pg, r.world, /*flat=*/true);
  }
#endif
  throw std::runtime_error("unknown backend '" + r.backend + "'");
}

std::string backend_library_version(const std::string& backend) {
  if (backend != "nccl") return "";
  // ncclGetVersion (nccl.h): the library torch loaded (libnccl / librccl),
  // found in this process rather than linked, so it names the one that runs.
  using GetVersion = int (*)(int*);
  auto fn = reinterpret_cast<GetVersion>(platform::detail::global_symbol("ncclGetVersion"));
  if (!fn) return "";
  int v = 0;
  if (fn(&v) != 0 || v <= 0) return "";
  // NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch since 2.9, major * 1000 + ... before.
  if (v >= 20900) return fmt::format("{}.{}.{}", v / 10000, v / 100 % 100, v % 100);
  return fmt::format("{}.{}.{}", v / 1000, v / 100 % 10, v % 100);
}

}  // namespace accel::engine
