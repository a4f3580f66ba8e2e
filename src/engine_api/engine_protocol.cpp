#include "engine_api/engine_protocol.hpp"

#include "core/enum_names.hpp"
#include "engine_api/engine.hpp"

namespace accel::engine {

namespace {
constexpr std::pair<EngineRequest, const char*> kRequests[] = {
    {EngineRequest::environment, "environment"},         {EngineRequest::list_checks, "list_checks"},
    {EngineRequest::list_benchmarks, "list_benchmarks"}, {EngineRequest::plan_llm, "plan_llm"},
    {EngineRequest::plan_train, "plan_train"},           {EngineRequest::run, "run"},
    {EngineRequest::list_multi, "list_multi"},
};
constexpr std::pair<SuiteId, const char*> kSuites[] = {{SuiteId::ops, "ops"},
                                                       {SuiteId::bench, "bench"},
                                                       {SuiteId::llm, "llm"},
                                                       {SuiteId::train, "train"},
                                                       {SuiteId::multi, "multi"}};
constexpr std::pair<EngineEvent, const char*> kEvents[] = {
    {EngineEvent::hello, "hello"},   {EngineEvent::environment, "environment"},
    {EngineEvent::checks, "checks"}, {EngineEvent::items, "items"},
    {EngineEvent::plan, "plan"},     {EngineEvent::start, "start"},
    {EngineEvent::result, "result"}, {EngineEvent::done, "done"},
    {EngineEvent::error, "error"},
};
}  // namespace

const char* event_name(EngineEvent e) { return enum_name(kEvents, e, ""); }

std::optional<EngineEvent> parse_event_name(std::string_view name) {
  return enum_parse<EngineEvent>(kEvents, name);
}

const char* request_name(EngineRequest r) { return enum_name(kRequests, r, ""); }

std::optional<EngineRequest> parse_request_name(std::string_view name) {
  return enum_parse<EngineRequest>(kRequests, name);
}

const char* suite_name(SuiteId s) { return enum_name(kSuites, s, ""); }

std::optional<SuiteId> parse_suite_name(std::string_view name) { return enum_parse<SuiteId>(kSuites, name); }

void to_json(json& j, const EngineEnvironment& e) {
  j = json{{"torch", e.torch}, {"devices", e.devices}, {"blas", e.blas}};
}

void from_json(const json& j, EngineEnvironment& e) {
  e.torch = j.value("torch", TorchInfo{});
  e.devices = j.value("devices", std::vector<DeviceInfo>{});
  e.blas = j.value("blas", BlasInfo{});
}

}  // namespace accel::engine
