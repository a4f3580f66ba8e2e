// What a measuring engine offers the front end. The front end (accel-doctor)
// links no torch: it reaches an engine through this interface, implemented
// by ProcessEngine (engine_api/process_engine.hpp), which starts the engine
// executable (accel-doctor-torch) and speaks the engine protocol
// (engine_api/engine_protocol.hpp) with it. Inside the engine executable the
// same interface is implemented by the engine itself (engines/torch/
// torch_engine.hpp) and served by serve_engine (engine_api/serve.hpp).
//
// Errors: every method may throw EngineError (the engine could not start,
// died without answering, or refused the request); suite runs never throw
// for a failing item (it is that item's result).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "engine_api/bench.hpp"
#include "engine_api/isolation.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/multi.hpp"
#include "engine_api/ops.hpp"
#include "engine_api/train.hpp"

namespace accel::engine {

struct EngineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The part of `env` only the engine can see: its framework build, the
/// devices it can use, and the CPU BLAS loaded with it.
struct EngineEnvironment {
  TorchInfo torch;
  std::vector<DeviceInfo> devices;
  BlasInfo blas;
};
void to_json(json& j, const EngineEnvironment& e);
void from_json(const json& j, EngineEnvironment& e);

/// An LLM run before it starts: the options with every default resolved,
/// its items, and why this engine cannot honour the attention choices (""
/// when it can).
struct LlmPlan {
  LlmOptions resolved;
  std::vector<ItemInfo> items;
  std::string attention_problem;     ///< for LlmOptions::attention
  std::string sdpa_backend_problem;  ///< for LlmOptions::sdpa_backend
};

/// A training run before it starts: resolved options, items, and one line
/// per model of `resolved.models` (same order) describing it.
struct TrainPlan {
  TrainOptions resolved;
  std::vector<ItemInfo> items;
  std::vector<std::string> model_descriptions;
};

class Engine {
 public:
  virtual ~Engine() = default;
  /// The engine's framework build, devices and BLAS.
  virtual EngineEnvironment environment() = 0;
  /// The operator checks `options.filters` select, in catalog order.
  virtual std::vector<CheckInfo> list_checks(const OpsOptions& options) = 0;
  virtual std::vector<Result> run_ops(const OpsOptions& options, const RunCallbacks& callbacks) = 0;
  /// The benchmark rows the options select, in run order.
  virtual std::vector<ItemInfo> list_benchmarks(const BenchOptions& options) = 0;
  virtual std::vector<Result> run_bench(const BenchOptions& options, const RunCallbacks& callbacks) = 0;
  virtual LlmPlan plan_llm(const LlmOptions& options) = 0;
  /// The ceilings it measured (bench rows) come first (engine_api/llm.hpp).
  virtual std::vector<Result> run_llm(const LlmOptions& options, const RunCallbacks& callbacks) = 0;
  virtual TrainPlan plan_train(const TrainOptions& options) = 0;
  virtual std::vector<Result> run_train(const TrainOptions& options, const RunCallbacks& callbacks) = 0;
  /// The multi-GPU / multi-process items (engine_api/multi.hpp). An engine
  /// without the suite keeps these defaults, which throw EngineError.
  virtual std::vector<ItemInfo> list_multi(const MultiOptions& options);
  virtual std::vector<Result> run_multi(const MultiOptions& options, const RunCallbacks& callbacks);
};

/// Every Engine method as an override, for the class body of an engine
/// that implements them all out of line (ProcessEngine, TorchEngine): a
/// method added to Engine is added here, once.
#define ACCEL_ENGINE_OVERRIDES                                                                        \
  EngineEnvironment environment() override;                                                           \
  std::vector<CheckInfo> list_checks(const OpsOptions& options) override;                             \
  std::vector<Result> run_ops(const OpsOptions& options, const RunCallbacks& callbacks) override;     \
  std::vector<ItemInfo> list_benchmarks(const BenchOptions& options) override;                        \
  std::vector<Result> run_bench(const BenchOptions& options, const RunCallbacks& callbacks) override; \
  LlmPlan plan_llm(const LlmOptions& options) override;                                               \
  std::vector<Result> run_llm(const LlmOptions& options, const RunCallbacks& callbacks) override;     \
  TrainPlan plan_train(const TrainOptions& options) override;                                         \
  std::vector<Result> run_train(const TrainOptions& options, const RunCallbacks& callbacks) override; \
  std::vector<ItemInfo> list_multi(const MultiOptions& options) override;                             \
  std::vector<Result> run_multi(const MultiOptions& options, const RunCallbacks& callbacks) override;

}  // namespace accel::engine
