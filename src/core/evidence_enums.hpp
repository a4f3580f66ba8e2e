// The closed sets of the evidence model (core/evidence.hpp): the outcome of
// a check (Status), what produced a result (ResultKind), how much a finding
// matters (Severity) and where a check's work ran (Where). Each is written by
// name in JSON; an unknown name read back is a ReportError.
#pragma once

#include <optional>
#include <string_view>

#include "core/json.hpp"

namespace accel {

// ---------------------------------------------------------------- status

/// Outcome of one check. See docs/report-schema.md for the exact meanings.
enum class Status {
  ok,           ///< ran on the target device, result right
  error,        ///< threw; `error` holds the message, cause and fix
  off_device,   ///< output not on the target device
  mismatch,     ///< wrong against the CPU float64 reference (or statistics)
  unavailable,  ///< op or dtype not in this torch build
  crashed,      ///< the worker process died during the check
  hung,         ///< the check passed its time limit
  skipped,      ///< not run; `reason` says why
};

std::string_view to_string(Status s);
/// Parses a status name; returns nullopt for an unknown name.
std::optional<Status> status_from_string(std::string_view name);
/// True for the statuses that make `ops` exit with 1.
bool is_failure(Status s);

// ---------------------------------------------------------------- closed sets

/// What produced a Result (`Result::kind`). Written by name ("check", ...);
/// `none` is the empty name of a result that no suite has claimed yet.
enum class ResultKind {
  none,   ///< ""
  check,  ///< an operator check (ops, vulkan, ort)
  bench,  ///< a benchmark (bench, the default run's GEMM/bandwidth items)
  llm,    ///< an LLM inference step
  train,  ///< a training step
  multi,  ///< a multi-GPU/communication item
  phase,  ///< a phase row of the default run
};
std::string_view to_string(ResultKind k);
/// Parses a result kind name ("" is `none`); nullopt for an unknown name.
std::optional<ResultKind> result_kind_from_string(std::string_view name);

/// How much a Finding matters. Written by name; `none` is the empty name of a
/// finding built without one (shown as "note").
enum class Severity {
  none,      ///< ""
  critical,  ///< the run is wrong or the device does not do the work
  warning,   ///< slower than it should be, or a risk
  info,      ///< advice; never changes the exit code
};
std::string_view to_string(Severity s);
/// Parses a severity name ("" is `none`); nullopt for an unknown name.
std::optional<Severity> severity_from_string(std::string_view name);

/// Where the work of one check ran (`ProfileEvidence::where`); the meanings
/// are documented at ProfileEvidence. Written by name; `none` is "".
enum class Where {
  none,             ///< "": not profiled
  device_kernels,   ///< "device_kernels"
  cpu_fallback,     ///< "cpu_fallback"
  backend_kernels,  ///< "backend_kernels"
  no_device_work,   ///< "no_device_work"
  profiler_blind,   ///< "profiler_blind"
  host,             ///< "host"
  unavailable,      ///< "unavailable"
};
std::string_view to_string(Where w);
/// Parses a `where` name ("" is `none`); nullopt for an unknown name.
std::optional<Where> where_from_string(std::string_view name);

// JSON: written by name. Status: an unknown name is an error.
void to_json(json& j, const Status& v);
void from_json(const json& j, Status& v);
// The other closed sets likewise: a name that is not a string is nlohmann's
// type_error, an unknown name a ReportError naming the set and the value.
void to_json(json& j, const ResultKind& v);
void from_json(const json& j, ResultKind& v);
void to_json(json& j, const Severity& v);
void from_json(const json& j, Severity& v);
void to_json(json& j, const Where& v);
void from_json(const json& j, Where& v);

}  // namespace accel
