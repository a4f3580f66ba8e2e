// The Vulkan ceiling's rows (bench/vulkan/..., engines/vulkan, docs/vulkan.md)
// joined with the framework's view of the same cards: which framework device
// is which Vulkan device, and which framework bench row measured the same
// operation. Pure functions over report data (Results, Environment), so the
// front end (bench --vulkan, the default run) and the rules (diagnose --from a
// saved report) join the same way.
//
// Join order for one Vulkan device and one framework device: the PCI address
// (Vulkan: VK_EXT_pci_bus_info; torch: pci_bus_id), then the name when either
// side has no address (one name contained in the other, case-insensitive).
// Vulkan's LUID (Windows) is recorded but joins nothing yet: no framework
// device list in the report carries a LUID (torch's has none; a DXGI probe or
// a DirectML engine would).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel::vulkan {

/// "0000:19:00.0" from the numbers, and any PCI address text in that form
/// ("00000000:19:00.0" from NVML or torch -> "0000:19:00.0"); "" when not one.
std::string pci_string(unsigned domain, unsigned bus, unsigned device, unsigned function);
std::string normalize_pci(const std::string& text);

/// One Vulkan physical device as its rows' `evidence.vulkan_device` records it.
struct DeviceRef {
  std::string device;  ///< "vulkan:0" (Result::device)
  std::string name;
  std::string type;  ///< "discrete_gpu", "integrated_gpu", "virtual_gpu", "cpu", "other"
  bool software = false;
  std::string pci_address;  ///< normalised, "" when unknown
  std::string device_luid;  ///< 16 hex digits, "" when none
  std::string driver_name;
  /// A hardware GPU: not a software device and not of type cpu/other.
  bool is_gpu() const {
    return !software && (type == "discrete_gpu" || type == "integrated_gpu" || type == "virtual_gpu");
  }
};

/// Every Vulkan device of the rows (bench/vulkan/... with evidence.vulkan_device), once, in index order.
std::vector<DeviceRef> vulkan_devices_of(const std::vector<Result>& results);

/// The framework device (env.devices, not the CPU) that is this Vulkan
/// device, nullptr when none; `joined_by` gets "luid", "pci_address" or "name".
const DeviceInfo* framework_device_of(const DeviceRef& v, const Environment& env,
                                      std::string* joined_by = nullptr);

/// The framework bench row (torch, ONNX Runtime) a Vulkan row is the ceiling
/// of: "compute/fma/fp32" <- "gemm/square/fp32/4096x4096x4096" (TF32 off),
/// "compute/fma/fp16" <- "gemm/square/fp16/4096x4096x4096", "compute/dot/int8"
/// <- "gemm/square/int8/4096x4096x4096" (torch's TFLOP/s of an int8 GEMM are
/// its TOPS), "memory/copy" <-
/// "memory/copy/fp32/rotating", "memory/read" <- "memory/reduce/fp32/rotating",
/// "transfer/h2d" <- "transfer/h2d_pinned/fp32/256MiB" (and d2h). The key
/// without its device-type part ("gemm/square/fp32/..."); "" for none.
std::string framework_counterpart(const Result& vulkan_row);

/// PCI address of a framework device ("cuda:0") from the environment's
/// device list (normalised), "" when unknown.
std::string framework_device_pci(const Environment& env, const std::string& device);

/// For each Vulkan row (status ok, not a software device), the framework row
/// of the same operation on the same device (framework_device_of) in
/// `framework_rows`: metric "framework_ratio" = framework figure / Vulkan
/// figure (TFLOP/s, TOPS or GB/s), and evidence.framework = {key, device, figure,
/// joined_by, source}. `source` says where the framework row came from ("this
/// run", or the --from report's path). Rows already joined are joined again.
void attach_framework_ratios(std::vector<Result>& vulkan_rows, const std::vector<Result>& framework_rows,
                             const Environment& env, const std::string& source = "this run");

/// True for a "bench/vulkan/..." key.
bool is_vulkan_key(const std::string& key);

}  // namespace accel::vulkan
