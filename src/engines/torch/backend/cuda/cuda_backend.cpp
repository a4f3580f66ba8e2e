// CUDA and ROCm (HIP) builds of torch. ROCm builds expose HIP devices through
// torch's cuda API; the properties struct is hipDeviceProp_t there, with the
// gfx target in gcnArchName. The ROCm path is written for ROCm torch builds
// but has not been run (no AMD GPU in our CI or device pool).
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>

#if defined(ACCEL_WITH_ROCM)
#include <ATen/hip/HIPContext.h>
#include <ATen/hip/HIPGraph.h>
#else
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#endif
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <fmt/format.h>

#include "engines/torch/backend/backend.hpp"

namespace accel::engine {

namespace {

class CudaGraphReplay final : public GraphReplay {
 public:
  explicit CudaGraphReplay(int index) : index_(static_cast<c10::DeviceIndex>(index)) {}

  void capture(const std::function<void()>& fn) override {
    const c10::cuda::CUDAGuard device_guard(index_);
    // Capture must happen on a side stream; warm up there first so lazy
    // initialisation (handles, workspaces) stays out of the graph.
    c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, index_);
    // The side stream must see everything queued so far (weights, cache).
    c10::cuda::getCurrentCUDAStream(index_).synchronize();
    {
      const c10::cuda::CUDAStreamGuard stream_guard(side);
      for (int i = 0; i < 3; ++i) fn();
      side.synchronize();
      graph_.capture_begin();
      fn();
      graph_.capture_end();
    }
    side.synchronize();
  }

  void replay() override {
    const c10::cuda::CUDAGuard device_guard(index_);
    graph_.replay();
  }

 private:
  c10::DeviceIndex index_;
  at::cuda::CUDAGraph graph_;
};

class CudaBackend final : public AcceleratorBackend {
 public:
  std::string name() const override {
#if defined(ACCEL_WITH_ROCM)
    return "rocm";
#else
    return "cuda";
#endif
  }
  c10::DeviceType device_type() const override { return c10::DeviceType::CUDA; }

  int device_count() const override {
    try {
      return static_cast<int>(c10::cuda::device_count());
    } catch (const std::exception&) {
      return 0;
    }
  }

  DeviceInfo describe(int index) const override {
    DeviceInfo d;
    d.index = index;
    d.id = fmt::format("cuda:{}", index);
    d.type = name() == "rocm" ? "hip" : "cuda";
    try {
      const auto* p = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
      d.name = p->name;
      d.total_memory_bytes = static_cast<std::uint64_t>(p->totalGlobalMem);
      d.multiprocessors = p->multiProcessorCount;
      d.integrated = p->integrated != 0;
      d.pci_bus_id = fmt::format("{:04x}:{:02x}:{:02x}.0", p->pciDomainID, p->pciBusID, p->pciDeviceID);
#if defined(ACCEL_WITH_ROCM)
      d.vendor = "amd";
      std::string arch = p->gcnArchName;  // "gfx1030:sramecc-:xnack-"
      d.arch = arch.substr(0, arch.find(':'));
#else
      d.vendor = "nvidia";
      d.arch = fmt::format("sm_{}{}", p->major, p->minor);
#endif
    } catch (const std::exception& e) {
      d.not_collected["properties"] = e.what();
    }
    return d;
  }

  std::optional<MemoryStats> memory(int index) const override {
    try {
      MemoryStats m;
      const auto stats =
          c10::cuda::CUDACachingAllocator::getDeviceStats(static_cast<c10::DeviceIndex>(index));
      constexpr std::size_t agg = 0;  // StatType::AGGREGATE in every torch version
      m.allocated_bytes = static_cast<std::uint64_t>(stats.allocated_bytes[agg].current);
      m.peak_allocated_bytes = static_cast<std::uint64_t>(stats.allocated_bytes[agg].peak);
      m.reserved_bytes = static_cast<std::uint64_t>(stats.reserved_bytes[agg].current);
      return m;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  void empty_cache() const override { c10::cuda::CUDACachingAllocator::emptyCache(); }

  std::unique_ptr<GraphReplay> make_graph(int index) const override {
    return std::make_unique<CudaGraphReplay>(index);
  }

  void reset_peak_memory(int index) const override {
    try {
      c10::cuda::CUDACachingAllocator::resetPeakStats(static_cast<c10::DeviceIndex>(index));
    } catch (const std::exception&) {
    }
  }
};

}  // namespace

const AcceleratorBackend* cuda_backend() {
  static const CudaBackend backend;
  return &backend;
}

}  // namespace accel::engine
