// The ONNX Runtime the `ort` engine found (environment.onnxruntime, part of
// the evidence model's Environment, core/evidence.hpp) and the
// execution-provider devices it lists.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence_machine.hpp"
#include "core/json.hpp"

namespace accel {

/// DxgiHighPerformanceIndex, DxgiVideoMemory).
struct OrtEpDevice {
  std::string ep_name;           ///< "DmlExecutionProvider", "CPUExecutionProvider"
  std::string ep_vendor;         ///< "Microsoft"
  std::string type;              ///< "cpu", "gpu", "npu" (OrtHardwareDeviceType)
  std::string vendor;            ///< the hardware vendor as the runtime names it ("AMD", "Intel")
  std::string vendor_id;         ///< "0x1002"
  std::string device_id;         ///< "0x73ef"
  std::string name;              ///< metadata Description
  std::string luid;              ///< "0xHHHHHHHH:0xLLLLLLLL" from metadata LUID (Windows), "" when absent
  std::optional<bool> discrete;  ///< metadata Discrete (DXCore IsIntegrated)
  std::optional<int> dxgi_adapter_number;          ///< EnumAdapters1 order: what DML's device_id means
  std::optional<int> dxgi_high_performance_index;  ///< EnumAdapterByGpuPreference(HIGH_PERFORMANCE) order
  std::optional<std::uint64_t> memory_bytes;       ///< DxgiVideoMemory ("8176 MB")
  std::optional<int> windows_adapter;  ///< environment.windows.adapters[].dxgi_index of the same LUID
  std::map<std::string, std::string> metadata;     ///< every hardware metadata entry as given
  std::map<std::string, std::string> ep_metadata;  ///< the EP's own metadata (version, library_path)
};

/// The ONNX Runtime the `ort` engine found and what it offers (absent when
/// the engine did not run).
struct OnnxRuntimeInfo {
  std::string library;   ///< the file that loaded
  std::string found_by;  ///< "--onnxruntime", "library path", "Python package (/usr/bin/python3)"
  std::string version;   ///< GetVersionString: "1.30.0"
  int api_version = 0;   ///< the OrtApi version in use (negotiated down to what both know)
  std::string build_info;
  /// How check models reach the runtime: "model_editor" (OrtModelEditorApi,
  /// >= 1.22) or "protobuf" (accel-doctor's ONNX writer).
  std::string model_path;
  std::vector<std::string> providers;  ///< GetAvailableProviders (built in; not all may load)
  std::vector<OrtEpDevice> ep_devices;
  std::string python;                        ///< the interpreter asked for its packages
  std::vector<std::string> python_packages;  ///< every onnxruntime* distribution it has: "onnxruntime 1.19.2"
  std::string directml_library;              ///< DirectML.dll loaded from beside the runtime (Windows)
  std::string device;                        ///< what the run measured: "cpu", "dml:1", "cuda:0"
  std::string device_reason;                 ///< why that device
  std::vector<std::string> warnings;   ///< device-choice warnings (device_id 0 is the integrated GPU, ...)
  std::vector<std::string> not_found;  ///< places looked at that gave no runtime, with why
  NotCollected not_collected;
};

ACCEL_JSON_DECLARE(OrtEpDevice)
ACCEL_JSON_DECLARE(OnnxRuntimeInfo)

}  // namespace accel
