// The small per-backend interface: everything vendor-specific the engine
// needs (device properties, memory statistics). One implementation per
// backend family, compiled only when the torch build carries it; the rest of
// the engine uses device-generic c10/ATen APIs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "engine/torch_util.hpp"

namespace accel::engine {

/// Allocator statistics of one device, in bytes.
struct MemoryStats {
  std::uint64_t allocated_bytes = 0;
  std::uint64_t peak_allocated_bytes = 0;
  std::uint64_t reserved_bytes = 0;
  std::optional<std::uint64_t> free_bytes;   ///< device-wide free memory
  std::optional<std::uint64_t> total_bytes;
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
};

/// The accelerator backend of this build, or nullptr for a CPU-only torch.
const AcceleratorBackend* accelerator_backend();

}  // namespace accel::engine
