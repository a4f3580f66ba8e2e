#include "engines/torch/torch_engine.hpp"

#include "engines/torch/environment.hpp"
#include "engines/torch/suites.hpp"

namespace accel::engine {

EngineEnvironment TorchEngine::environment() { return collect_engine_environment(); }

std::vector<CheckInfo> TorchEngine::list_checks(const OpsOptions& o) { return engine::list_checks(o); }

std::vector<Result> TorchEngine::run_ops(const OpsOptions& o, const RunCallbacks& cb) {
  return engine::run_ops(o, cb);
}

std::vector<ItemInfo> TorchEngine::list_benchmarks(const BenchOptions& o) {
  return engine::list_benchmarks(o);
}

std::vector<Result> TorchEngine::run_bench(const BenchOptions& o, const RunCallbacks& cb) {
  return engine::run_bench(o, cb);
}

LlmPlan TorchEngine::plan_llm(const LlmOptions& o) {
  LlmPlan p;
  p.attention_problem = attention_problem(o.attention);
  p.sdpa_backend_problem = sdpa_backend_problem(o.sdpa_backend);
  p.resolved = resolve_llm_options(o);
  p.items = list_llm(o);
  return p;
}

std::vector<Result> TorchEngine::run_llm(const LlmOptions& o, const RunCallbacks& cb) {
  return engine::run_llm(o, cb);
}

TrainPlan TorchEngine::plan_train(const TrainOptions& o) {
  TrainPlan p;
  p.resolved = resolve_train_options(o);
  p.items = list_train(o);
  for (const auto& m : p.resolved.models) p.model_descriptions.push_back(describe_train_model(m));
  return p;
}

std::vector<Result> TorchEngine::run_train(const TrainOptions& o, const RunCallbacks& cb) {
  return engine::run_train(o, cb);
}

std::vector<ItemInfo> TorchEngine::list_multi(const MultiOptions& o) { return engine::list_multi(o); }

std::vector<Result> TorchEngine::run_multi(const MultiOptions& o, const RunCallbacks& cb) {
  return engine::run_multi(o, cb);
}

}  // namespace accel::engine
