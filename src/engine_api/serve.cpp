#include "engine_api/serve.hpp"

#include <iterator>

#include "engine_api/engine_protocol.hpp"

namespace accel::engine {

namespace {

class Events {
 public:
  explicit Events(std::FILE* out) : out_(out) {}
  void send(const json& j) {
    const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(s.data(), 1, s.size(), out_);
    std::fflush(out_);
  }

 private:
  std::FILE* out_;
};

RunCallbacks streaming(Events& events) {
  RunCallbacks cb;
  cb.on_start = [&events](const ItemInfo& item, std::size_t i, std::size_t n) {
    events.send({{"event", event_name(EngineEvent::start)}, {"index", i}, {"total", n}, {"item", item}});
  };
  cb.on_result = [&events](const Result& r) {
    events.send({{"event", event_name(EngineEvent::result)}, {"result", r}});
  };
  return cb;
}

/// The items a run will start, as the engine lists them (the front end
/// accounts for any the engine never reaches).
std::vector<ItemInfo> planned_items(Engine& engine, SuiteId suite, const json& options) {
  switch (suite) {
    case SuiteId::ops: {
      std::vector<ItemInfo> items;
      for (const auto& c : engine.list_checks(options.get<OpsOptions>())) {
        items.push_back({c.key, ResultKind::check, c.name, c.category, c.dtype, c.shape});
      }
      return items;
    }
    case SuiteId::bench:
      return engine.list_benchmarks(options.get<BenchOptions>());
    case SuiteId::llm:
      return engine.plan_llm(options.get<LlmOptions>()).items;
    case SuiteId::train:
      return engine.plan_train(options.get<TrainOptions>()).items;
    case SuiteId::multi:
      return engine.list_multi(options.get<MultiOptions>());
  }
  return {};
}

std::vector<Result> run(Engine& engine, SuiteId suite, const json& options, const RunCallbacks& cb) {
  switch (suite) {
    case SuiteId::ops:
      return engine.run_ops(options.get<OpsOptions>(), cb);
    case SuiteId::bench:
      return engine.run_bench(options.get<BenchOptions>(), cb);
    case SuiteId::llm:
      return engine.run_llm(options.get<LlmOptions>(), cb);
    case SuiteId::train:
      return engine.run_train(options.get<TrainOptions>(), cb);
    case SuiteId::multi:
      return engine.run_multi(options.get<MultiOptions>(), cb);
  }
  return {};
}

json serve(Engine& engine, EngineRequest request, const json& req, Events& events) {
  const json options = req.value("options", json::object());
  switch (request) {
    case EngineRequest::environment:
      return {{"event", event_name(EngineEvent::environment)}, {"environment", engine.environment()}};
    case EngineRequest::list_checks:
      return {{"event", event_name(EngineEvent::checks)},
              {"checks", engine.list_checks(options.get<OpsOptions>())}};
    case EngineRequest::list_benchmarks:
      return {{"event", event_name(EngineEvent::items)},
              {"items", engine.list_benchmarks(options.get<BenchOptions>())}};
    case EngineRequest::plan_llm: {
      const LlmPlan p = engine.plan_llm(options.get<LlmOptions>());
      return {{"event", event_name(EngineEvent::plan)},
              {"resolved", json(p.resolved)},
              {"items", p.items},
              {"attention_problem", p.attention_problem},
              {"sdpa_backend_problem", p.sdpa_backend_problem}};
    }
    case EngineRequest::plan_train: {
      const TrainPlan p = engine.plan_train(options.get<TrainOptions>());
      return {{"event", event_name(EngineEvent::plan)},
              {"resolved", json(p.resolved)},
              {"items", p.items},
              {"model_descriptions", p.model_descriptions}};
    }
    case EngineRequest::list_multi:
      return {{"event", event_name(EngineEvent::items)},
              {"items", engine.list_multi(options.get<MultiOptions>())}};
    case EngineRequest::run: {
      const auto suite = parse_suite_name(req.value("suite", ""));
      if (!suite) throw std::invalid_argument("unknown suite '" + req.value("suite", "") + "'");
      events.send(
          {{"event", event_name(EngineEvent::plan)}, {"items", planned_items(engine, *suite, options)}});
      return {{"event", event_name(EngineEvent::done)},
              {"results", run(engine, *suite, options, streaming(events))}};
    }
  }
  throw std::invalid_argument("unknown request");
}

}  // namespace

int serve_engine(Engine& engine, const EngineIdentity& id, std::istream& in, std::FILE* out) {
  Events events(out);
  events.send({{"event", event_name(EngineEvent::hello)},
               {"protocol", kEngineProtocolVersion},
               {"engine", id.name},
               {"version", id.version}});
  const std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    const json req = json::parse(input);
    if (!req.is_object()) throw std::invalid_argument("the request is not a JSON object");
    if (const int v = req.value("protocol", 0); v != kEngineProtocolVersion) {
      throw std::invalid_argument("protocol " + std::to_string(v) + " requested; this engine speaks " +
                                  std::to_string(kEngineProtocolVersion));
    }
    const std::string name = req.value("request", "");
    const auto request = parse_request_name(name);
    if (!request) throw std::invalid_argument("unknown request '" + name + "'");
    events.send(serve(engine, *request, req, events));
    return 0;
  } catch (const std::exception& e) {
    events.send({{"event", event_name(EngineEvent::error)}, {"message", e.what()}});
    return 2;
  }
}

}  // namespace accel::engine
