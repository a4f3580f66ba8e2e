// The engine protocol: how the front end asks an engine executable for its
// environment, lists and plans, and suite runs. A documented contract
// (docs/architecture.md, "The engine protocol"); engines of other frameworks
// (ONNX Runtime, Vulkan, a Python package) speak it too.
//
// The front end starts `<engine> serve`, writes one request (a JSON object,
// one line) on its stdin and closes it, then reads one JSON object per line
// on its stdout (anything else on stdout is ignored; the engine's stderr is
// the user's). Every reply starts with
//   {"event": "hello", "protocol": 1, "engine": "torch", "version": "0.1.0"}
// and then, by request:
//   {"protocol": 1, "request": "environment"}
//       -> {"event": "environment", "environment": EngineEnvironment}
//   {"protocol": 1, "request": "list_checks", "options": OpsOptions}
//       -> {"event": "checks", "checks": [CheckInfo...]}
//   {"protocol": 1, "request": "list_benchmarks", "options": BenchOptions}
//       -> {"event": "items", "items": [ItemInfo...]}
//   {"protocol": 1, "request": "plan_llm", "options": LlmOptions}
//       -> {"event": "plan", "resolved": LlmOptions, "items": [...],
//           "attention_problem": "", "sdpa_backend_problem": ""}
//   {"protocol": 1, "request": "plan_train", "options": TrainOptions}
//       -> {"event": "plan", "resolved": TrainOptions, "items": [...],
//           "model_descriptions": ["mlp: ...", ...]}
//   {"protocol": 1, "request": "list_multi", "options": MultiOptions}
//       -> {"event": "items", "items": [ItemInfo...]}
//   {"protocol": 1, "request": "run", "suite": "ops"|"bench"|"llm"|"train"|"multi",
//    "options": {...}}
//       -> {"event": "plan", "items": [ItemInfo...]}  (the items it means to run;
//           the LLM ceilings it may measure first are not among them)
//          {"event": "start", "index": I, "total": N, "item": ItemInfo}  (each item)
//          {"event": "result", "result": Result}                         (each item)
//          {"event": "done", "results": [Result...]}  (the final list: it
//           may add rows such as the LLM ceilings and figures such as the
//           speed-up over the CPU, computed once every item finished)
// A request the engine cannot serve gets {"event": "error", "message": M}.
// Options and items are in engine_api/suite_json.cpp; Result is the report's.
// The protocol version changes when a request or event changes meaning; the
// front end refuses an engine with another version and says to rebuild.
#pragma once

#include <optional>
#include <string_view>

namespace accel::engine {

inline constexpr int kEngineProtocolVersion = 1;

/// The requests of the engine protocol.
enum class EngineRequest { environment, list_checks, list_benchmarks, plan_llm, plan_train, run, list_multi };

/// The suites a `run` request names.
enum class SuiteId { ops, bench, llm, train, multi };

/// The events an engine writes (the "event" field of each line).
enum class EngineEvent { hello, environment, checks, items, plan, start, result, done, error };

const char* event_name(EngineEvent e);
/// nullopt for a name that is no event of this protocol.
std::optional<EngineEvent> parse_event_name(std::string_view name);
const char* request_name(EngineRequest r);
std::optional<EngineRequest> parse_request_name(std::string_view name);
const char* suite_name(SuiteId s);
std::optional<SuiteId> parse_suite_name(std::string_view name);

}  // namespace accel::engine
