// Where the nodes of a session ran, from ONNX Runtime's session profile
// (SessionOptions EnableProfiling; the file SessionEndProfiling names). Pure:
// text in, placement out; tested on recorded profiles
// (tests/fixtures/ort_profiles/) and fuzzed (tests/fuzz, target ort_profile).
//
// The file is a JSON array of Chrome trace events ("ph":"X"). Each node's
// kernel is one event per run with "cat":"Node", "name":"<node>_kernel_time",
// "dur" in microseconds and "args":{"op_name":..., "provider":...} (ONNX
// Runtime's profiler, onnxruntime/core/common/profiler.cc and
// core/framework/sequential_executor.cc); "<node>_fence_before/after" events
// carry no work. Each Run is one "cat":"Session","name":"model_run" event.
// Copies between a device provider and the host are nodes of their own
// (op_name "MemcpyFromHost" = host to device, "MemcpyToHost" = device to
// host) that the runtime inserts around nodes placed on another provider.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace accel::ort {

/// One node kernel execution.
struct NodeEvent {
  std::string node;      ///< the node name (the event name without "_kernel_time")
  std::string op;        ///< args.op_name
  std::string provider;  ///< args.provider
  double dur_us = 0;
};

struct ParsedProfile {
  std::vector<NodeEvent> nodes;
  int runs = 0;  ///< "model_run" events
};

struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Parses the profile text. Throws ProfileError when it is not a JSON array
/// (events that are not objects, or lack fields, are skipped).
ParsedProfile parse_profile(std::string_view text);

/// What ran where, per run, for a session whose target provider is `target_ep`.
struct Placement {
  std::string target_ep;
  int runs = 0;
  int target_nodes = 0;              ///< distinct nodes on the target provider (Memcpy excluded)
  double target_us = 0;              ///< their kernel time per run
  int cpu_nodes = 0;                 ///< distinct nodes on CPUExecutionProvider while the target is another
  double cpu_us = 0;                 ///< their kernel time per run: the fallback's compute cost
  std::vector<std::string> cpu_ops;  ///< op types on the CPU (deduplicated, in order)
  int shape_nodes = 0;   ///< CPU nodes that only compute shapes (Shape, Size): placed there on purpose
  int memcpy_nodes = 0;  ///< distinct Memcpy nodes
  int to_host = 0;       ///< MemcpyToHost nodes (device -> host)
  int from_host = 0;     ///< MemcpyFromHost nodes (host -> device)
  double memcpy_us = 0;  ///< their time per run
  int other_nodes = 0;   ///< nodes on a third provider
  /// Cast nodes the runtime inserted ("InsertedPrecisionFreeCast_*",
  /// onnxruntime/core/optimizer/insert_cast_transformer.cc) around nodes whose
  /// provider has no kernel for their float type: that dtype is computed in
  /// fp32 there (the CPU provider's fp16), at the cost of the casts.
  int inserted_casts = 0;
  double inserted_cast_us = 0;  ///< their time per run
  std::map<std::string, int> nodes_by_provider;
  /// device_kernels (all compute on the target), cpu_fallback (some compute
  /// on the CPU with a device target), host (the target is the CPU),
  /// no_nodes (the profile has no node events: nothing to prove).
  std::string where;
  std::string detail;  ///< one line for the report
  /// Per-run cost of the fallback: CPU kernel time plus the copies.
  double fallback_cost_us() const { return cpu_us + memcpy_us; }
};

/// Classifies `profile` for `target_ep` (e.g. "DmlExecutionProvider", "CPUExecutionProvider").
Placement classify_placement(const ParsedProfile& profile, const std::string& target_ep);

}  // namespace accel::ort
