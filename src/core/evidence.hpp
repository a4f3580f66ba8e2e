// The evidence model: plain data that the engine and the probes produce, that
// `--json` writes, and that rules, reporters, `compare` and `diagnose --from`
// read back. No torch here. The JSON schema is documented in docs/report-schema.md;
// bump kSchemaVersion on any incompatible change.
//
// Conventions: sizes in bytes (`_bytes`), times in microseconds (`_us`),
// rates in their unit (`_gbps` = 1e9 bytes/s, `_tflops` = 1e12 FLOP/s).
// A field a probe could not collect is left empty and its name is added to
// `not_collected` with the reason, so every report says why a value is missing.
//
// One concept per header, all included here (include this one):
//   core/evidence_enums.hpp        the closed sets: Status, ResultKind, Severity, Where
//   core/evidence_result.hpp       Result and its parts (Timing, Roofline, ProfileEvidence, GpuBusy, ...)
//   core/evidence_machine.hpp      the machine's facts: HostInfo, TorchInfo, DeviceInfo, GpuHardware, ...
//   core/evidence_windows.hpp      WindowsInfo (environment.windows)
//   core/evidence_onnxruntime.hpp  OnnxRuntimeInfo (environment.onnxruntime)
//   core/topology.hpp              Topology (environment.topology)
// and here: Environment, Finding, Context, Report, and reading a report back.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/evidence_enums.hpp"
#include "core/evidence_machine.hpp"
#include "core/evidence_onnxruntime.hpp"
#include "core/evidence_result.hpp"
#include "core/evidence_windows.hpp"
#include "core/json.hpp"
#include "core/topology.hpp"

namespace accel {

inline constexpr int kSchemaVersion = 1;

struct Environment {
  HostInfo host;
  TorchInfo torch;
  BlasInfo blas;
  DriverInfo driver;
  std::vector<DeviceInfo> devices;
  std::vector<GpuHardware> gpus;
  std::vector<EnvVar> env_vars;
  std::optional<DeviceChoice> selection;
  std::optional<WindowsInfo> windows;  ///< only in reports made on Windows
  /// Links between GPUs, NUMA, IOMMU/ACS, /dev/shm (core/topology.hpp): only
  /// with two or more GPUs, or from `accel-doctor multi`.
  std::optional<Topology> topology;
  std::optional<OnnxRuntimeInfo> onnxruntime;  ///< only when the ONNX Runtime engine ran
};

// ---------------------------------------------------------------- report

struct Finding {
  std::string id;
  Severity severity = Severity::none;
  std::string title;
  std::string evidence;
  std::string why;
  std::string fix;
  std::string reference;
  double impact = 0;  ///< expected impact used to rank (higher first)
};

struct ToolInfo {
  std::string version;
  std::string commit;
};

struct Context {
  ToolInfo tool;
  std::string started_at;  ///< RFC 3339
  std::string finished_at;
  std::vector<std::string> argv;
  std::string command;  ///< "ops", "env", "doctor", ...
  Environment environment;
};

struct Report {
  int schema_version = kSchemaVersion;
  Context context;
  std::vector<Result> results;
  std::vector<Finding> findings;
  std::string verdict;
};

/// Current tool version and git commit (compiled in).
ToolInfo tool_info();
/// Now as RFC 3339 UTC, e.g. "2026-11-29T21:12:17Z".
std::string now_rfc3339();

// JSON (de)serialisation. Readers accept missing fields (defaults) and ignore
// unknown ones; the closed sets are written by name (core/evidence_enums.hpp).
ACCEL_JSON_DECLARE(Environment)
ACCEL_JSON_DECLARE(Finding)
ACCEL_JSON_DECLARE(ToolInfo)
ACCEL_JSON_DECLARE(Context)
ACCEL_JSON_DECLARE(Report)

/// Thrown by report readers on malformed or unsupported input.
struct ReportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Brings a parsed report document of an older schema_version up to
/// kSchemaVersion, one version step at a time (v1 -> v2 -> ...), so readers
/// only ever see the current shape. Version 1 is the only one so far: the
/// identity. A future v2 adds its `case 1:` step here (e.g. a renamed field
/// moved to its new name). Throws ReportError for a version no release wrote.
json upgrade_report_json(json doc, const std::string& origin);

/// Parses a report document; throws ReportError with a clear message for
/// invalid JSON, a missing schema_version, or a newer schema than this tool reads.
Report parse_report(const std::string& text, const std::string& origin);
/// Reads and parses a report file (ReportError when unreadable or malformed).
Report read_report_file(const std::string& path);

}  // namespace accel
