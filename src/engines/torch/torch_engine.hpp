// The torch engine behind the Engine interface (engine_api/engine.hpp), in
// the process that links libtorch: accel-doctor-torch serves it to the
// front end (engines/torch/main.cpp); the engine tests call it directly.
#pragma once

#include "engine_api/engine.hpp"

namespace accel::engine {

class TorchEngine final : public Engine {
 public:
  EngineEnvironment environment() override;
  std::vector<CheckInfo> list_checks(const OpsOptions& options) override;
  std::vector<Result> run_ops(const OpsOptions& options, const RunCallbacks& callbacks) override;
  std::vector<ItemInfo> list_benchmarks(const BenchOptions& options) override;
  std::vector<Result> run_bench(const BenchOptions& options, const RunCallbacks& callbacks) override;
  LlmPlan plan_llm(const LlmOptions& options) override;
  std::vector<Result> run_llm(const LlmOptions& options, const RunCallbacks& callbacks) override;
  TrainPlan plan_train(const TrainOptions& options) override;
  std::vector<Result> run_train(const TrainOptions& options, const RunCallbacks& callbacks) override;
  std::vector<ItemInfo> list_multi(const MultiOptions& options) override;
  std::vector<Result> run_multi(const MultiOptions& options, const RunCallbacks& callbacks) override;
};

}  // namespace accel::engine
