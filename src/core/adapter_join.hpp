// Every index a GPU has, side by side: the one join of the adapters the
// probes found with the device lists of the frameworks in a report, used by
// `env`, the reporters and the rules (the index to use for DirectML,
// torch-directml, ONNX Runtime and HIP). Pure: it reads an Environment and
// the results (Vulkan rows carry their device identity).
//
// Which list is the base: the DXGI adapters on Windows (environment.windows),
// else the PCI GPUs found without torch (environment.gpus). Joins, each
// saying how it was made (`joined_by`):
//   DXGI order / high-performance order  the adapter's own (DirectML's and
//                                        ONNX Runtime's DirectML device_id,
//                                        torch-directml's index = DXGI order)
//   torch devices (env.devices)          privateuseone/dml: index = DXGI order;
//                                        else PCI address, then the name (the
//                                        n-th same-named adapter to the n-th
//                                        same-named device)
//   Vulkan (bench/vulkan rows)           LUID (Windows), PCI address, name
//   HIP                                  a ROCm torch's cuda:N is HIP device N
//                                        (HIP lists AMD GPUs only)
//   ONNX Runtime EP devices              LUID, else the EP device's DXGI adapter
//   (environment.onnxruntime.ep_devices) number; the index is its place in
//                                        GetEpDevices' list
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct AdapterIndices {
  std::string name;
  std::string luid;         ///< "0x00000000:0x0000d1a3" (Windows), "" elsewhere
  std::string pci_address;  ///< "0000:03:00.0" (Linux), "" when unknown
  std::optional<bool> integrated;
  bool software = false;
  std::optional<int> dxgi_index;              ///< EnumAdapters1 order
  std::optional<int> high_performance_index;  ///< EnumAdapterByGpuPreference(HIGH_PERFORMANCE)
  std::vector<std::string> torch;        ///< torch device ids on this adapter ("cuda:0", "privateuseone:1")
  std::optional<int> vulkan_index;       ///< "vulkan:N" of the Vulkan rows
  std::optional<int> hip_index;          ///< HIP device index (a ROCm torch's cuda:N)
  std::optional<int> onnxruntime_index;  ///< position in environment.onnxruntime.ep_devices
  std::vector<std::string> joined_by;    ///< "torch cuda:0 by PCI address", "vulkan:1 by LUID", ...
};

/// The adapters with all their indices (base list as above), in the base list's order.
std::vector<AdapterIndices> join_adapter_indices(const Environment& env, const std::vector<Result>& results);

/// "DXGI 1, high-performance 0, torch privateuseone:1, Vulkan 0, HIP 0" ("-" parts left out).
std::string indices_text(const AdapterIndices& a);

/// A Vulkan deviceLUID as the Vulkan rows record it (16 hex digits, the
/// LUID's 8 bytes in memory order: LowPart then HighPart, little-endian) in
/// DXGI's form "0xHIGH:0xLOW"; "" when not 16 hex digits.
std::string luid_from_vulkan_hex(const std::string& hex16);

}  // namespace accel
