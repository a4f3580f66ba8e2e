// The torch suites by name, for the workers and for in-process runs.
#include "engines/torch/suites.hpp"

#include "engine_api/worker.hpp"

namespace accel::engine {

// Suite factories live beside each suite (ops.cpp, bench.cpp, ...).
std::unique_ptr<WorkerSuite> make_ops_suite(const json& job);
std::unique_ptr<WorkerSuite> make_bench_suite(const json& job);
std::unique_ptr<WorkerSuite> make_llm_suite(const json& job);
std::unique_ptr<WorkerSuite> make_train_suite(const json& job);
std::unique_ptr<WorkerSuite> make_multi_suite(const json& job);

std::unique_ptr<WorkerSuite> make_torch_suite(const std::string& suite, const json& job) {
  const auto id = parse_suite_name(suite);
  if (!id) throw std::invalid_argument("unknown suite '" + suite + "'");
  switch (*id) {
    case SuiteId::ops:
      return make_ops_suite(job);
    case SuiteId::bench:
      return make_bench_suite(job);
    case SuiteId::llm:
      return make_llm_suite(job);
    case SuiteId::train:
      return make_train_suite(job);
    case SuiteId::multi:
      return make_multi_suite(job);
  }
  throw std::invalid_argument("unknown suite '" + suite + "'");
}

std::vector<Result> run_torch_suite(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                                    bool isolate, const RunCallbacks& callbacks) {
  if (options.kb) return run_suite(items, options, isolate, callbacks, make_torch_suite);
  const auto kb = try_load_kb();
  IsolationOptions with_kb = options;
  with_kb.kb = kb ? &*kb : nullptr;
  return run_suite(items, with_kb, isolate, callbacks, make_torch_suite);
}

}  // namespace accel::engine
