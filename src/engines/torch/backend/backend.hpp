// The small per-backend interface: everything vendor-specific the engine
// needs (device properties, memory statistics). One implementation per
// backend family, compiled only when the torch build carries it; the rest of
// the engine uses device-generic c10/ATen APIs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

/// Allocator statistics of one device, in bytes.
struct MemoryStats {
  std::uint64_t allocated_bytes = 0;
  std::uint64_t peak_allocated_bytes = 0;
  std::uint64_t reserved_bytes = 0;
  std::optional<std::uint64_t> free_bytes;  ///< device-wide free memory
  std::optional<std::uint64_t> total_bytes;
};

/// A captured sequence of device work replayed without host launches
/// (CUDA/HIP graphs).
class GraphReplay {
 public:
  virtual ~GraphReplay() = default;
  /// Captures what `fn` queues (after a few warm-up runs on a side stream).
  /// Throws when capture fails (an op that syncs or allocates dynamically).
  virtual void capture(const std::function<void()>& fn) = 0;
  /// Queues the captured work on the current stream.
  virtual void replay() = 0;
};

class AcceleratorBackend {
 public:
  virtual ~AcceleratorBackend() = default;
  /// "cuda" or "rocm".
  virtual std::string name() const = 0;
  virtual c10::DeviceType device_type() const = 0;
  virtual int device_count() const = 0;
  /// Properties of device `index` (arch, memory, multiprocessors...).
  virtual DeviceInfo describe(int index) const = 0;
  virtual std::optional<MemoryStats> memory(int index) const = 0;
  virtual void reset_peak_memory(int index) const = 0;
  /// Returns cached, unused device memory to the driver (after an OOM).
  virtual void empty_cache() const = 0;
  /// A graph for device `index`, or nullptr when the backend has none.
  virtual std::unique_ptr<GraphReplay> make_graph(int index) const = 0;
};

/// The accelerator backend of this build, or nullptr for a CPU-only torch.
const AcceleratorBackend* accelerator_backend();
/// The backend that drives `device`: this build's, when the device is of its
/// type (cuda:N on a CUDA or ROCm build); nullptr for the CPU and for the
/// devices of other types (a plugin's privateuseone:N, xpu:N), which get no
/// memory statistics and no graphs.
const AcceleratorBackend* accelerator_backend(const c10::Device& device);

}  // namespace accel::engine
