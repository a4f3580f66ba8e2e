// Which device the ONNX Runtime checks run on: the user's --device, the
// runtime's providers and EP devices (GetEpDevices, ORT >= 1.22), joined to
// the platform's DXGI adapters by LUID (environment.windows.adapters), the
// discrete GPU picked by default with the reason said. The pure parts
// (metadata parsing, the join, the candidates) are tested on recorded
// values; list_ep_devices reads the runtime.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"
#include "engines/onnxruntime/ort_abi.hpp"

namespace accel::ort {

class Env;

/// `--device` for `ort`: auto, cpu, gpu, dml[:N], cuda[:N], webgpu.
struct DeviceRequest {
  enum class Kind { automatic, cpu, gpu, dml, cuda, webgpu };
  Kind kind = Kind::automatic;
  std::optional<int> index;  ///< dml: the DXGI adapter index (DirectML's device_id); cuda: the ordinal
};
/// nullopt for anything else ("auto", "cpu", "gpu", "dml", "dml:1", "cuda:0", "webgpu").
std::optional<DeviceRequest> parse_device_request(std::string_view text);

/// "0xHHHHHHHH:0xLLLLLLLL" (platform::format_luid's form) from the LUID
/// metadata value ONNX Runtime writes: the decimal of HighPart << 32 | LowPart
/// (onnxruntime/core/platform/windows/device_discovery.cc); also accepts
/// "0x..." hex and the colon form itself. "" when unreadable.
std::string luid_from_metadata(std::string_view value);
/// "8176 MB" (DxgiVideoMemory) -> bytes; nullopt when unreadable.
std::optional<std::uint64_t> video_memory_bytes(std::string_view value);
/// Fills name, luid, discrete, dxgi_* and memory_bytes from `metadata`.
void fill_from_metadata(OrtEpDevice& d);
/// Sets windows_adapter of each device whose LUID matches an adapter of `windows`.
void join_windows_adapters(std::vector<OrtEpDevice>& devices, const WindowsInfo* windows);

/// One way to run: a provider on one device, and why.
struct DeviceCandidate {
  std::string device;        ///< "cpu", "dml:1", "cuda:0", "webgpu"
  std::string ep;            ///< "DmlExecutionProvider"
  int device_id = 0;         ///< what the provider is given
  int ep_device_index = -1;  ///< index into the EP device list (append through it), -1: legacy append
  std::string reason;        ///< "the discrete GPU (DXGI high-performance order 0): AMD Radeon RX 6650 XT"
  std::vector<std::string> warnings;
  bool is_gpu = false;
};
/// The candidates for `request`, best first (the engine probes them in
/// order and takes the first that creates a session). Empty with `error`
/// set when the request cannot be met at all ("this ONNX Runtime has no
/// DmlExecutionProvider; it has: ..."). Pure.
std::vector<DeviceCandidate> device_candidates(const DeviceRequest& request,
                                               const std::vector<std::string>& providers,
                                               const std::vector<OrtEpDevice>& devices,
                                               const WindowsInfo* windows, std::string* error);
/// The warning when DXGI adapter 0 (DirectML's device_id 0, the default of
/// most scripts) is an integrated GPU while a discrete one exists; "" else.
std::string device_zero_warning(const std::vector<OrtEpDevice>& devices, const WindowsInfo* windows);

/// The runtime's EP devices with the handles to append them by (same order).
/// On a runtime without GetEpDevices (< 1.22) the list is empty and
/// `why_not` says so. Never throws.
struct EpDeviceList {
  std::vector<OrtEpDevice> devices;
  std::vector<const abi::OrtEpDevice*> handles;
  std::string why_not;
};
EpDeviceList list_ep_devices(const Env& env);

}  // namespace accel::ort
