// The torch engine's implementations of the suites (accel-doctor-torch):
// what TorchEngine (torch_engine.hpp) serves to the front end and what the
// engine tests call directly. The options and items are the torch-free
// contract in engine_api/ (ops.hpp, bench.hpp, llm.hpp, train.hpp); the
// front end never links these.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "engine_api/bench.hpp"
#include "engine_api/engine_protocol.hpp"
#include "engine_api/isolation.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/multi.hpp"
#include "engine_api/ops.hpp"
#include "engine_api/train.hpp"
#include "engine_api/worker.hpp"

namespace accel::engine {

/// The knowledge base that names the causes of failed items (workers that
/// crash or hang included); nullopt, said on stderr, when it cannot be
/// loaded (results then keep their messages without a cause).
std::optional<KnowledgeBase> try_load_kb();

/// The checks the filters select, in catalog order.
std::vector<CheckInfo> list_checks(const OpsOptions& options);

/// Runs the selected checks and returns every result (also those of crashed,
/// hung or skipped checks). Never throws for a failing check.
std::vector<Result> run_ops(const OpsOptions& options, const OpsCallbacks& callbacks = {});

/// The rows the options select, in run order.
std::vector<ItemInfo> list_benchmarks(const BenchOptions& options);

/// Runs them; never throws for a failing row.
std::vector<Result> run_bench(const BenchOptions& options, const RunCallbacks& callbacks = {});

/// The bench keys of the ceilings the rows of `options` are drawn against:
/// the GEMM ceiling of each prefill's device and dtype, the memory rows of
/// each decode's device (bench_ceilings.hpp).
std::vector<std::string> llm_ceiling_keys(const LlmOptions& options);

/// The options with every default resolved (presets, dtype, grids).
LlmOptions resolve_llm_options(LlmOptions options);

/// The items the options expand to, in run order.
std::vector<ItemInfo> list_llm(const LlmOptions& options);

/// "" when this torch can restrict SDPA to `backend` (LlmOptions::sdpa_backend),
/// else why not. Leaves torch's own choice in place.
std::string sdpa_backend_problem(const std::string& backend);

/// "" when this torch can run `attention` (LlmOptions::attention: "auto",
/// "sdpa", "math"), else why not ("sdpa" needs torch >= 2.0).
std::string attention_problem(const std::string& attention);

/// Runs them; never throws for a failing item. Device rows whose CPU twin
/// ran get `speedup` (device tokens/s over CPU tokens/s). The bench rows it
/// measured as ceilings (those not in `options.ceilings`) come first.
std::vector<Result> run_llm(const LlmOptions& options, const RunCallbacks& callbacks = {});

/// The options with every default resolved.
TrainOptions resolve_train_options(TrainOptions options);

/// The items the options expand to, in run order.
std::vector<ItemInfo> list_train(const TrainOptions& options);

/// Runs them; never throws for a failing item. Device step rows whose CPU
/// twin ran get `speedup`.
std::vector<Result> run_train(const TrainOptions& options, const RunCallbacks& callbacks = {});

/// One line describing a model ("mlp: 784-1024-1024-10, ReLU, 1.86M
/// parameters"); throws std::invalid_argument for an unknown name.
std::string describe_train_model(const std::string& model);

/// The multi items (engine_api/multi.hpp), in run order.
std::vector<ItemInfo> list_multi(const MultiOptions& options);

/// Runs them (engines/torch/multi/); never throws for a failing item.
std::vector<Result> run_multi(const MultiOptions& options, const RunCallbacks& callbacks = {});

/// The suite a worker runs, by name ("ops", "bench", "llm", "train", "multi");
/// throws std::invalid_argument for another name.
std::unique_ptr<WorkerSuite> make_torch_suite(const std::string& suite, const json& job);

/// run_suite (engine_api/worker.hpp) over the torch suites. Without
/// `options.kb` it loads the kb (try_load_kb), which names the cause in the
/// stderr of a worker that crashed or hung.
std::vector<Result> run_torch_suite(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                                    bool isolate, const RunCallbacks& callbacks);

/// run_torch_suite for a suite whose options carry `device`,
/// `item_timeout_s`, `machine` and `isolate` (bench, llm, train): the
/// options are the workers' job.
template <typename Options>
std::vector<Result> run_torch_items(const std::string& suite, const Options& options,
                                    const std::vector<ItemInfo>& items, const RunCallbacks& callbacks) {
  IsolationOptions iso;
  iso.suite = suite;
  iso.job = json(options);
  iso.device = options.device;
  iso.item_timeout_s = options.item_timeout_s;
  iso.machine = options.machine;
  return run_torch_suite(items, iso, options.isolate, callbacks);
}

}  // namespace accel::engine
