// An Engine that samples GPU utilisation while another engine measures: the
// front end wraps the engine it starts (ProcessEngine, any engine kind) in
// this, so `GpuBusy` (core/evidence.hpp) is recorded for every engine alike
// without the engine knowing. During each suite run the sampler
// (platform/gpu_busy.hpp) reads every GPU every period; the item's window
// runs from its `start` event to its `result` event as the front end
// receives them (the whole item: warm-up and the item's own set-up
// included); each result on a device other than the CPU gets the summary
// of its window, or `not_measured` with the reason (no source, too short).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine_api/engine.hpp"
#include "platform/gpu_busy.hpp"

namespace accel::engine {

/// Makes the sampler for a run (its sources are opened then, so a GPU the
/// environment found is sampled); nullptr turns sampling off for that run.
using GpuBusySamplerFactory = std::function<std::unique_ptr<platform::GpuBusySampler>()>;

/// Item windows as recorded during a run, and the rule that attaches them
/// to results (exposed for the unit tests).
struct ItemWindow {
  std::string key;
  double t0_ms = 0;
  double t1_ms = -1;  ///< -1 while the item runs (then the run's end is used)
  bool used = false;
};
/// Gives each result whose device is not "cpu" (nor empty) the GpuBusy of
/// the first unused window with its key (`summary(t0, t1)`), or, with no
/// window (rows the engine added at the end), none. `why_not` non-empty:
/// every such result except operator checks gets `not_measured` = why_not instead.
void attach_gpu_busy(std::vector<Result>& results, std::vector<ItemWindow>& windows, double run_end_ms,
                     const std::function<GpuBusy(double, double)>& summary, const std::string& why_not);

/// Runs `run` with the GPU busy sampler `factory` makes (none: `run(cb)` as
/// is): each item's window is taken from the callbacks `run` is handed
/// (`cb`'s own are still called), and the results get `gpu_busy` through
/// attach_gpu_busy. A factory that throws means no sampling, never a failed
/// run. For engines the front end runs in its own process (ONNX Runtime,
/// cli/cmd_ort.cpp) as for BusySampledEngine's suites.
std::vector<Result> run_gpu_busy_sampled(const GpuBusySamplerFactory& factory, const RunCallbacks& cb,
                                         const std::function<std::vector<Result>(const RunCallbacks&)>& run);

class BusySampledEngine final : public Engine {
 public:
  BusySampledEngine(std::unique_ptr<Engine> inner, GpuBusySamplerFactory factory);

  EngineEnvironment environment() override { return inner_->environment(); }
  std::vector<CheckInfo> list_checks(const OpsOptions& o) override { return inner_->list_checks(o); }
  std::vector<Result> run_ops(const OpsOptions& o, const RunCallbacks& cb) override;
  std::vector<ItemInfo> list_benchmarks(const BenchOptions& o) override { return inner_->list_benchmarks(o); }
  std::vector<Result> run_bench(const BenchOptions& o, const RunCallbacks& cb) override;
  LlmPlan plan_llm(const LlmOptions& o) override { return inner_->plan_llm(o); }
  std::vector<Result> run_llm(const LlmOptions& o, const RunCallbacks& cb) override;
  TrainPlan plan_train(const TrainOptions& o) override { return inner_->plan_train(o); }
  std::vector<Result> run_train(const TrainOptions& o, const RunCallbacks& cb) override;
  std::vector<ItemInfo> list_multi(const MultiOptions& o) override { return inner_->list_multi(o); }
  std::vector<Result> run_multi(const MultiOptions& o, const RunCallbacks& cb) override;

  Engine& inner() { return *inner_; }

 private:
  std::vector<Result> sampled(const RunCallbacks& cb,
                              const std::function<std::vector<Result>(const RunCallbacks&)>& run);

  std::unique_ptr<Engine> inner_;
  GpuBusySamplerFactory factory_;
};

}  // namespace accel::engine
