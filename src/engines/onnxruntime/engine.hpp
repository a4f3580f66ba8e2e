// The ONNX Runtime engine (issue 12), in the front end: finds and opens the
// runtime (runtime.hpp), lists its providers and EP devices, picks the device
// (devices.hpp), runs the op checks and workloads (run_check.hpp) and
// returns ordinary Results plus what it found (OnnxRuntimeInfo, in the
// report's environment.onnxruntime). No build-time ONNX Runtime.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/machine_context.hpp"
#include "engines/onnxruntime/runtime.hpp"

namespace accel::ort {

struct EngineOptions {
  SearchOptions search;
  std::string device = "auto";  ///< auto, cpu, gpu, dml[:N], cuda[:N], webgpu
  bool quick = false;
  std::vector<std::string> filters;  ///< keep keys containing one of these (empty: all)
  bool checks = true;
  bool workloads = true;
  /// ACCEL_DOCTOR_ORT_WRITER=1 or --protobuf-writer: models through our ONNX
  /// writer even where the Model Editor API exists (tests the old-runtime path).
  bool force_writer = false;
  bool cpu_twin = true;
  /// Only measure when a GPU provider creates a session (the default run);
  /// otherwise stop after the runtime and device facts.
  bool gpu_only = false;
  const KnowledgeBase* kb = nullptr;
  MachineContext machine;
  const WindowsInfo* windows = nullptr;  ///< the platform's DXGI adapters (LUID join), null off Windows
  std::function<void(const std::string& key, std::size_t index, std::size_t total)> on_start;
  std::function<void(const Result&)> on_result;
  /// Polled between items (Ctrl-C): true stops the run; the items not run
  /// are returned as skipped, "not run: interrupted".
  std::function<bool()> interrupted;
};

/// One item the run would measure.
struct PlannedItem {
  std::string key, name, category, dtype;
  std::string flops_formula;
};

struct EngineRun {
  OnnxRuntimeInfo info;
  std::vector<Result> results;
  /// A set-up error (exit 2): --onnxruntime unusable, no runtime found for
  /// an explicit `ort` run, an unknown --device, a device asked for that
  /// cannot create a session. Empty when the run went ahead.
  std::string setup_error;
  bool runtime_found = false;
  bool gpu = false;  ///< the device measured is a GPU provider
  /// The default run with gpu_only: why nothing was measured ("no GPU provider ...").
  std::string not_measured;
};

/// Finds the runtime, picks the device and runs what `options` selects.
/// Never throws: a failure is setup_error or a result's status.
EngineRun run_engine(const EngineOptions& options);

/// The keys `options` selects, in run order (no runtime needed).
std::vector<PlannedItem> plan(const EngineOptions& options);

/// True when `key` contains one of `filters` (all keys for no filter).
bool selected(const std::string& key, const std::vector<std::string>& filters);

/// The table of `ort` (runtime, device, checks): text for the console.
std::string render_summary(const EngineRun& run);

}  // namespace accel::ort
