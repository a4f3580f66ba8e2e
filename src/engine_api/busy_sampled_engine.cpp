#include "engine_api/busy_sampled_engine.hpp"

#include <mutex>

namespace accel::engine {

void attach_gpu_busy(std::vector<Result>& results, std::vector<ItemWindow>& windows, double run_end_ms,
                     const std::function<GpuBusy(double, double)>& summary, const std::string& why_not) {
  for (auto& r : results) {
    if (r.device.empty() || r.device == "cpu") continue;
    if (!why_not.empty()) {
      if (r.kind == ResultKind::check)
        continue;  // the reason once per workload row, not on every operator check
      GpuBusy none;
      none.not_measured = why_not;
      r.gpu_busy = none;
      continue;
    }
    for (auto& w : windows) {
      if (w.used || w.key != r.key) continue;
      w.used = true;
      r.gpu_busy = summary(w.t0_ms, w.t1_ms < 0 ? run_end_ms : w.t1_ms);
      break;
    }
  }
}

BusySampledEngine::BusySampledEngine(std::unique_ptr<Engine> inner, GpuBusySamplerFactory factory)
    : inner_(std::move(inner)), factory_(std::move(factory)) {}

std::vector<Result> BusySampledEngine::sampled(
    const RunCallbacks& cb, const std::function<std::vector<Result>(const RunCallbacks&)>& run) {
  return run_gpu_busy_sampled(factory_, cb, run);
}

std::vector<Result> run_gpu_busy_sampled(const GpuBusySamplerFactory& factory, const RunCallbacks& cb,
                                         const std::function<std::vector<Result>(const RunCallbacks&)>& run) {
  std::unique_ptr<platform::GpuBusySampler> sampler;
  try {
    if (factory) sampler = factory();
  } catch (const std::exception&) {
    sampler.reset();  // sampling is an extra: never the reason a run fails
  }
  if (!sampler) return run(cb);
  std::mutex mu;  // callbacks come from the engine reader's thread, the results after it
  std::vector<ItemWindow> windows;
  RunCallbacks wrapped;
  wrapped.on_start = [&](const ItemInfo& item, std::size_t i, std::size_t n) {
    {
      std::lock_guard<std::mutex> lock(mu);
      windows.push_back({item.key, sampler->now_ms(), -1, false});
    }
    if (cb.on_start) cb.on_start(item, i, n);
  };
  wrapped.on_result = [&](const Result& r) {
    {
      std::lock_guard<std::mutex> lock(mu);
      const double now = sampler->now_ms();
      for (auto it = windows.rbegin(); it != windows.rend(); ++it) {
        if (it->key == r.key && it->t1_ms < 0) {
          it->t1_ms = now;
          break;
        }
      }
    }
    if (cb.on_result) cb.on_result(r);
  };
  sampler->start();
  std::vector<Result> results;
  try {
    results = run(wrapped);
  } catch (...) {
    sampler->stop();
    throw;
  }
  const double end = sampler->now_ms();
  sampler->stop();
  std::lock_guard<std::mutex> lock(mu);
  attach_gpu_busy(
      results, windows, end, [&sampler](double t0, double t1) { return sampler->summary(t0, t1); },
      sampler->has_sources() ? std::string() : "not sampled: " + sampler->why_not());
  return results;
}

std::vector<Result> BusySampledEngine::run_ops(const OpsOptions& o, const RunCallbacks& cb) {
  return sampled(cb, [&](const RunCallbacks& c) { return inner_->run_ops(o, c); });
}
std::vector<Result> BusySampledEngine::run_bench(const BenchOptions& o, const RunCallbacks& cb) {
  return sampled(cb, [&](const RunCallbacks& c) { return inner_->run_bench(o, c); });
}
std::vector<Result> BusySampledEngine::run_llm(const LlmOptions& o, const RunCallbacks& cb) {
  return sampled(cb, [&](const RunCallbacks& c) { return inner_->run_llm(o, c); });
}
std::vector<Result> BusySampledEngine::run_train(const TrainOptions& o, const RunCallbacks& cb) {
  return sampled(cb, [&](const RunCallbacks& c) { return inner_->run_train(o, c); });
}
std::vector<Result> BusySampledEngine::run_multi(const MultiOptions& o, const RunCallbacks& cb) {
  return sampled(cb, [&](const RunCallbacks& c) { return inner_->run_multi(o, c); });
}

}  // namespace accel::engine
