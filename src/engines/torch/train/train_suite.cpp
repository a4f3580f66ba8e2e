// The `train` suite: items, measurements, loss agreement, batch sweep.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/profile.hpp"
#include "core/result_keys.hpp"
#include "engine_api/ops.hpp"
#include "engine_api/train.hpp"
#include "engines/torch/backend/backend.hpp"
#include "engines/torch/profiler.hpp"
#include "engines/torch/suite_item.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/timer.hpp"
#include "engines/torch/train/trainer.hpp"

namespace accel::engine {

namespace {

using train::Precision;

constexpr std::uint64_t kModelSeed = 42;
constexpr std::uint64_t kDataSeed = 1234;
constexpr std::int64_t kSyntheticSamples = 8192;
constexpr double kRingBytes = 256.0 * 1024 * 1024;  ///< host batches kept pinned per measurement

std::string device_type_of(const std::string& device) {
  const auto colon = device.find(':');
  return colon == std::string::npos ? device : device.substr(0, colon);
}

struct Item {
  ItemInfo info;
  std::string what;     ///< step, item_cost, sweep
  bool on_cpu = false;  ///< the CPU twin of a GPU target
  std::string model;
  std::string precision;
  int batch = 0;
};

/// The precision of the item-cost and sweep rows: bf16 on a GPU when asked
/// for (what GPU training uses), fp32 on the CPU, else the first listed.
std::string main_precision(const TrainOptions& o) {
  const bool cpu = device_type_of(o.device) == "cpu";
  const std::string want = cpu ? "fp32" : "bf16";
  if (std::find(o.precisions.begin(), o.precisions.end(), want) != o.precisions.end()) return want;
  return o.precisions.front();
}

std::vector<Item> build_items(const TrainOptions& o) {
  std::vector<Item> items;
  const std::string type = device_type_of(o.device);
  auto add = [&](bool on_cpu, const std::string& what, const std::string& model, const std::string& prec,
                 int b) {
    Item it;
    it.what = what;
    it.on_cpu = on_cpu;
    it.model = model;
    it.precision = prec;
    it.batch = b;
    TrainKey key;
    key.device_type = on_cpu ? "cpu" : type;
    key.model = model;
    key.precision = prec;
    it.info.kind = ResultKind::train;
    it.info.category = model;
    it.info.dtype = prec;
    if (what == "step") {
      key.item = TrainKey::Item::step;
      key.batch = b;
      it.info.key = key.str();
      it.info.name = fmt::format("step b{}", b);
      it.info.shape = fmt::format("batch {} x 1x28x28", b);
    } else if (what == "item_cost") {
      key.item = TrainKey::Item::item_cost;
      key.batch = b;
      it.info.key = key.str();
      it.info.name = fmt::format("item() b{}", b);
      it.info.shape = fmt::format("batch {} x 1x28x28", b);
    } else {
      key.item = TrainKey::Item::sweep;
      it.info.key = key.str();
      it.info.name = fmt::format("sweep {}..{}", o.sweep_min, o.sweep_max);
      it.info.shape = fmt::format("batch {} to {}, doubling", o.sweep_min, o.sweep_max);
    }
    items.push_back(std::move(it));
  };
  const std::string mainp = main_precision(o);
  for (const auto& model : o.models) {
    for (const auto& prec : o.precisions) {
      for (int b : o.batches) add(false, "step", model, prec, b);
    }
    if (o.item_cost) add(false, "item_cost", model, mainp, o.batches.front());
    if (o.sweep) add(false, "sweep", model, mainp, 0);
  }
  if (type != "cpu" && o.cpu_compare) {
    for (const auto& model : o.models) add(true, "step", model, "fp32", o.batches.front());
  }
  if (!o.filters.empty()) {
    std::vector<Item> kept;
    for (auto& it : items) {
      for (const auto& f : o.filters) {
        if (it.info.key.find(f) != std::string::npos) {
          kept.push_back(std::move(it));
          break;
        }
      }
    }
    items = std::move(kept);
  }
  return items;
}

double mean_tail(const std::vector<double>& v, std::size_t n) {
  n = std::min(n, v.size());
  double s = 0;
  for (std::size_t i = v.size() - n; i < v.size(); ++i) s += v[i];
  return n ? s / static_cast<double>(n) : 0;
}

json rounded(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(std::isfinite(x) ? std::round(x * 1e4) / 1e4 : x);
  return a;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

class TrainSuite final : public WorkerSuite {
 public:
  explicit TrainSuite(const json& job) : o_(resolve_train_options(job.get<TrainOptions>())) {
    for (auto& it : build_items(o_)) items_.emplace(it.info.key, std::move(it));
    target_ = parse_device(o_.device);
  }

  json prepare() override {
    initialise_device(target_);
    return json::object();
  }

  Result run(const std::string& key) override {
    const auto wall0 = std::chrono::steady_clock::now();
    const auto it = items_.find(key);
    Result r =
        start_result(key, ResultKind::train, it == items_.end() ? nullptr : &it->second.info, "no such item");
    if (it == items_.end()) return r;
    const Item& item = it->second;
    const c10::Device dev = item.on_cpu ? c10::Device(c10::kCPU) : target_;
    return run_suite_item(
        std::move(r), dev, wall0, [&](Result& res) { run_item(res, item, dev); },
        [&](Result& res, const std::exception& e, const std::string&) {
          if (train::is_out_of_memory(e)) res.evidence["out_of_memory"] = true;
          release_device_memory(dev);
        });
  }

 private:
  const train::Dataset& data() {
    if (!data_) {
      data_ = o_.data_dir.empty() ? train::synthetic_dataset(kSyntheticSamples, kDataSeed)
                                  : train::mnist_dataset(o_.data_dir);
    }
    return *data_;
  }

  train::StepConfig step_config() const {
    train::StepConfig c;
    c.inject_oom_above_bytes = o_.inject_oom_above_bytes;
    return c;
  }

  void run_item(Result& r, const Item& item, const c10::Device& dev) {
    const Precision prec = train::precision_from_name(item.precision);
    if (const std::string why = train::precision_unavailable(dev, prec); !why.empty()) {
      r.status = Status::unavailable;
      r.reason = why;
      return;
    }
    const train::Dataset& d = data();
    r.evidence["data"] = d.description;
    r.evidence["model"] = describe_train_model(item.model);
    if (o_.inject_oom_above_bytes > 0) {
      r.evidence["injected_oom_limit_bytes"] = o_.inject_oom_above_bytes;
      r.metrics["injected_limit_bytes"] = static_cast<double>(o_.inject_oom_above_bytes);
    }
    if (item.what == "step") {
      step_row(r, item, dev, prec);
    } else if (item.what == "item_cost") {
      item_cost_row(r, item, dev, prec);
    } else {
      sweep_row(r, item, dev, prec);
    }
  }

  /// Distinct host batches of `batch` samples, pinned for a device target,
  /// cycled by the timed steps (at most kRingBytes of them, at least one).
  std::vector<train::HostBatch> ring(std::int64_t batch, const c10::Device& dev) {
    const int n = static_cast<int>(std::clamp(kRingBytes / train::batch_bytes(batch), 1.0, 4.0));
    std::vector<train::HostBatch> out;
    for (int i = 0; i < n; ++i) out.push_back(train::host_batch(data(), i * batch, batch, !dev.is_cpu()));
    return out;
  }

  TimerOptions step_timer(const c10::Device& dev, bool one_call_per_sample) const {
    TimerOptions t = o_.quick ? TimerOptions::quick() : TimerOptions::bench_quick();
    if (dev.is_cpu() || one_call_per_sample) {
      // A step on the CPU is milliseconds: one per sample, one warm-up.
      t.min_sample_us = 1;
      t.warmup_ms = 1;
      t.min_samples = 3;
      t.budget_ms = o_.quick ? 150 : 1000;
    } else {
      // Several steps per sample so the host queues ahead, as in training.
      t.min_sample_us = o_.quick ? 2000 : 10000;
      t.warmup_ms = o_.quick ? 20 : 100;
    }
    return t;
  }

  void reset_peak(const c10::Device& dev) const {
    if (dev.is_cpu()) return;
    if (const auto* b = accelerator_backend(dev)) b->reset_peak_memory(dev.index());
  }

  std::optional<double> peak_bytes(const c10::Device& dev) const {
    if (dev.is_cpu()) return std::nullopt;
    if (const auto* b = accelerator_backend(dev)) {
      if (auto mem = b->memory(dev.index())) return static_cast<double>(mem->peak_allocated_bytes);
    }
    return std::nullopt;
  }

  // ---------------------------------------------------------------- step rows

  void step_row(Result& r, const Item& item, const c10::Device& dev, Precision prec) {
    const std::int64_t batch = item.batch;
    train::Trainer trainer(train::make_model(item.model, dev, kModelSeed), prec, dev, step_config());
    const auto batches = ring(batch, dev);
    std::size_t next = 0;
    auto one = [&] { (void)trainer.step(batches[next++ % batches.size()]); };
    reset_peak(dev);
    r.timing = time_op(dev, one, step_timer(dev, false));
    const double step_us = r.timing->median_us;
    r.metrics["samples_per_s"] = static_cast<double>(batch) / (step_us * 1e-6);
    r.metrics["step_ms"] = step_us / 1000.0;
    r.metrics["parameters"] = static_cast<double>(trainer.model().parameter_count());
    r.work.flops = 3.0 * trainer.model().forward_flops_per_sample() * static_cast<double>(batch);
    r.metrics["tflops"] = r.work.flops / (step_us * 1e-6) / 1e12;
    r.metrics["input_bytes_per_step"] = train::batch_bytes(batch);
    r.evidence["flops_basis"] = "estimated: 3 x forward FLOPs of the convolutions and linear layers";
    r.evidence["host_batches"] = fmt::format("{} distinct host batches{}, cycled", batches.size(),
                                             dev.is_cpu() ? "" : " in pinned memory");
    if (auto peak = peak_bytes(dev)) r.metrics["peak_memory_bytes"] = *peak;
    profile_steps(r, dev, one);
    if (const auto* s = trainer.scaler()) {
      r.metrics["grad_scale"] = s->current_scale();
      r.metrics["skipped_steps"] = trainer.skipped_steps();
    }
    r.status = Status::ok;
    if (item.on_cpu) {
      r.evidence["note"] = "CPU twin of the device rows (throughput only), for the speed-up";
      return;
    }
    loss_agreement(r, item, dev, prec);
  }

  /// Host->device bytes, synchronisations and host reads of a step, from a
  /// profiler capture of two steps minus that of an empty call (the
  /// capture's own closing synchronisation).
  void profile_steps(Result& r, const c10::Device& dev, const std::function<void()>& one) {
    constexpr int kSteps = 2;
    const Capture base = profile_call(dev, [] {});
    const Capture cap = profile_call(dev, [&] {
      for (int i = 0; i < kSteps; ++i) one();
    });
    if (!cap.unavailable.empty()) {
      r.evidence["profile_unavailable"] = cap.unavailable;
      return;
    }
    ClassifyOptions co;
    co.target_is_host = dev.is_cpu();
    const ProfileEvidence p = classify_events(cap.events, co);
    const ProfileEvidence b = classify_events(base.events, co);
    auto reads = [](const std::vector<TraceEvent>& events) {
      int n = 0;
      for (const auto& e : events)
        n += e.kind == TraceEvent::Kind::op && e.name == "aten::_local_scalar_dense";
      return n;
    };
    r.metrics["h2d_bytes_per_step"] = std::max(0.0, p.h2d_bytes - b.h2d_bytes) / kSteps;
    r.metrics["h2d_copies_per_step"] = std::max(0, p.h2d_count - b.h2d_count) / static_cast<double>(kSteps);
    r.metrics["d2h_copies_per_step"] = std::max(0, p.d2h_count - b.d2h_count) / static_cast<double>(kSteps);
    r.metrics["syncs_per_step"] = std::max(0, p.sync_count - b.sync_count) / static_cast<double>(kSteps);
    r.metrics["host_reads_per_step"] =
        std::max(0, reads(cap.events) - reads(base.events)) / static_cast<double>(kSteps);
    if (!dev.is_cpu()) r.metrics["kernels_per_step"] = p.kernel_count / static_cast<double>(kSteps);
    r.profile = p;
    r.evidence["profile_note"] = fmt::format(
        "one capture of {} steps, counts per step after subtracting an empty capture{}", kSteps,
        dev.is_cpu()
            ? "; the target is the CPU: batches are used in place, no copies or device synchronisations"
            : "");
  }

  /// The fp32 loss curve of (device, model, batch), computed once per worker.
  const std::vector<double>& fp32_curve(const Item& item, const c10::Device& dev) {
    const std::string id = fmt::format("{}/{}/{}", dev.str(), item.model, item.batch);
    auto found = fp32_curves_.find(id);
    if (found == fp32_curves_.end()) {
      found = fp32_curves_
                  .emplace(id, train::loss_curve(item.model, Precision::fp32, dev, data(), item.batch,
                                                 o_.steps, kModelSeed, step_config()))
                  .first;
    }
    return found->second;
  }

  void loss_agreement(Result& r, const Item& item, const c10::Device& dev, Precision prec) {
    const std::vector<double> curve = prec == Precision::fp32
                                          ? fp32_curve(item, dev)
                                          : train::loss_curve(item.model, prec, dev, data(), item.batch,
                                                              o_.steps, kModelSeed, step_config());
    const std::vector<double>& ref = fp32_curve(item, dev);
    if (curve.empty() || ref.size() != curve.size()) return;
    const std::size_t tail = std::max<std::size_t>(1, curve.size() / 5);
    const double first = curve.front(), last = mean_tail(curve, tail), last32 = mean_tail(ref, tail);
    double max_diff = 0;
    bool finite = true;
    for (std::size_t i = 0; i < curve.size(); ++i) {
      finite = finite && std::isfinite(curve[i]);
      max_diff = std::max(max_diff, std::abs(curve[i] - ref[i]));
    }
    r.metrics["loss_first"] = first;
    r.metrics["loss_final"] = last;
    r.metrics["loss_final_fp32"] = last32;
    r.metrics["loss_steps"] = static_cast<double>(curve.size());
    r.evidence["loss_curve"] = rounded(curve);
    r.evidence["loss_final_basis"] = fmt::format("mean of the last {} of {} steps", tail, curve.size());
    if (!finite) {
      r.status = Status::mismatch;
      r.reason =
          fmt::format("the {} loss became non-finite within {} steps", precision_name(prec), curve.size());
      return;
    }
    // Whether SGD makes progress is judged only over enough steps and a
    // batch large enough for BatchNorm and a stable gradient; below that a
    // rising loss is noise, not a fault of the device.
    constexpr std::size_t kMinJudgedSteps = 10;
    constexpr int kMinJudgedBatch = 8;
    if (curve.size() < kMinJudgedSteps || item.batch < kMinJudgedBatch) {
      r.evidence["loss_fall_not_judged"] = fmt::format(
          "{} steps at batch {}: too few steps or too small a batch to judge (needs >= {} and >= {})",
          curve.size(), item.batch, kMinJudgedSteps, kMinJudgedBatch);
    } else if (!(last < first)) {
      r.status = Status::mismatch;
      r.reason =
          fmt::format("the loss did not fall in {} steps ({:.4g} -> {:.4g})", curve.size(), first, last);
      return;
    }
    if (prec == Precision::fp32) return;
    r.evidence["loss_curve_fp32"] = rounded(ref);
    // Stated tolerance: |final - final_fp32| <= rtol * final_fp32 + atol.
    const double rtol = prec == Precision::fp16 ? 0.05 : 0.10, atol = prec == Precision::fp16 ? 0.03 : 0.05;
    const double diff = std::abs(last - last32), tol = rtol * last32 + atol;
    r.metrics["loss_final_abs_diff"] = diff;
    r.metrics["loss_tolerance"] = tol;
    r.metrics["loss_curve_max_abs_diff"] = max_diff;
    r.accuracy = Accuracy{
        "loss_vs_fp32", last32 > 0 ? diff / last32 : diff, last32 > 0 ? tol / last32 : tol,
        fmt::format(
            "final loss {:.4f} vs fp32 {:.4f} after {} steps from the same weights and data: |diff| {:.4f}, "
            "tolerance {:.4f} ({:.0f}% + {:.2f}); largest step-wise difference {:.4f}",
            last, last32, curve.size(), diff, tol, rtol * 100, atol, max_diff)};
    if (diff > tol) {
      r.status = Status::mismatch;
      r.reason = r.accuracy->detail;
    }
  }

  static std::string precision_name(Precision p) { return train::precision_name(p); }

  // ---------------------------------------------------------------- item cost

  void item_cost_row(Result& r, const Item& item, const c10::Device& dev, Precision prec) {
    const std::int64_t batch = item.batch;
    const int k = dev.is_cpu() ? (o_.quick ? 1 : 2) : (o_.quick ? 8 : 16);  // steps per timed call
    train::Trainer trainer(train::make_model(item.model, dev, kModelSeed), prec, dev, step_config());
    const auto batches = ring(batch, dev);
    std::size_t next = 0;
    auto without = [&] {
      for (int i = 0; i < k; ++i) (void)trainer.step(batches[next++ % batches.size()]);
    };
    double sink = 0;
    auto with = [&] {
      for (int i = 0; i < k; ++i) sink += trainer.step(batches[next++ % batches.size()]).item<double>();
    };
    // Without, with, with, without (ABBA): a drift of the machine's speed
    // during the measurement cancels instead of showing up as a cost.
    const TimerOptions t = step_timer(dev, true);
    const Timing plain1 = time_op(dev, without, t);
    const Timing item1 = time_op(dev, with, t);
    const Timing item2 = time_op(dev, with, t);
    const Timing plain2 = time_op(dev, without, t);
    r.timing = item1.median_us <= item2.median_us ? item1 : item2;
    const double step0 = (plain1.median_us + plain2.median_us) / (2.0 * k);
    const double step1 = (item1.median_us + item2.median_us) / (2.0 * k);
    const double cost = step1 - step0;
    // The noise: the timings' spread, or how far the two runs of one variant
    // disagree, whichever is larger.
    const double spread = std::max({(plain1.iqr_us + plain2.iqr_us + item1.iqr_us + item2.iqr_us) / (2.0 * k),
                                    std::abs(plain1.median_us - plain2.median_us) / k,
                                    std::abs(item1.median_us - item2.median_us) / k});
    r.metrics["step_ms"] = step0 / 1000.0;
    r.metrics["step_with_item_ms"] = step1 / 1000.0;
    r.metrics["samples_per_s"] = static_cast<double>(batch) / (step0 * 1e-6);
    r.metrics["samples_per_s_with_item"] = static_cast<double>(batch) / (step1 * 1e-6);
    r.metrics["item_cost_us"] = cost;
    r.metrics["item_cost_pct"] = 100.0 * cost / step0;
    r.metrics["item_cost_noise_us"] = spread;
    r.evidence["timing_without_item"] = plain1.median_us <= plain2.median_us ? plain1 : plain2;
    r.evidence["method"] = fmt::format(
        "each timed call runs {} steps back to back, without and with a loss.item() after each step, timed "
        "in the "
        "order without, with, with, without; the cost is the difference of the mean medians per step",
        k);
    const bool measurable = std::abs(cost) > spread;
    r.evidence["item_cost_measurable"] = measurable;
    r.evidence["verdict"] =
        !measurable ? fmt::format(
                          "loss.item() per step: {:+.1f} µs ({:+.1f}%), within the timing noise (±{:.1f} "
                          "µs): no measurable cost here",
                          cost, 100.0 * cost / step0, spread)
        : dev.is_cpu()
            ? fmt::format("loss.item() per step costs {:+.1f} µs ({:+.1f}%), noise ±{:.1f} µs", cost,
                          100.0 * cost / step0, spread)
            : fmt::format(
                  "loss.item() per step costs {:+.1f} µs ({:+.1f}%, noise ±{:.1f} µs): each read waits for "
                  "the device to finish the step, so the host cannot queue the next step while the device "
                  "works",
                  cost, 100.0 * cost / step0, spread);
    (void)sink;
    r.status = Status::ok;
  }

  // ---------------------------------------------------------------- sweep

  struct Point {
    double samples_per_s = 0, step_ms = 0;
    std::optional<double> peak_bytes;
  };

  Point sweep_point(const Item& item, const c10::Device& dev, Precision prec, std::int64_t batch) {
    train::Trainer trainer(train::make_model(item.model, dev, kModelSeed), prec, dev, step_config());
    const auto batches = ring(batch, dev);
    std::size_t next = 0;
    reset_peak(dev);
    TimerOptions t = step_timer(dev, false);
    t.budget_ms = std::min(t.budget_ms, o_.quick ? 100.0 : 500.0);
    const Timing timing = time_op(
        dev, [&] { (void)trainer.step(batches[next++ % batches.size()]); }, t);
    Point p;
    p.step_ms = timing.median_us / 1000.0;
    p.samples_per_s = static_cast<double>(batch) / (timing.median_us * 1e-6);
    p.peak_bytes = peak_bytes(dev);
    return p;
  }

  void sweep_row(Result& r, const Item& item, const c10::Device& dev, Precision prec) {
    json curve = json::array();
    int max_batch = 0, best_batch = 0;
    double best = 0;
    std::string limit = "cap";
    for (std::int64_t b = o_.sweep_min; b <= o_.sweep_max; b *= 2) {
      try {
        const Point p = sweep_point(item, dev, prec, b);
        json point = {{"batch", b}, {"samples_per_s", p.samples_per_s}, {"step_ms", p.step_ms}};
        if (p.peak_bytes) point["peak_memory_bytes"] = *p.peak_bytes;
        curve.push_back(point);
        max_batch = static_cast<int>(b);
        if (p.samples_per_s > best) {
          best = p.samples_per_s;
          best_batch = static_cast<int>(b);
        }
      } catch (const std::exception& e) {
        const std::string msg = first_line(exception_message(e));
        if (!train::is_out_of_memory(e)) {
          r.status = Status::error;
          r.reason = fmt::format("batch {}: {}", b, msg);
          r.error = ErrorInfo{r.reason, "", "", "", ""};
          limit = "error";
          break;
        }
        // The trainer and its batches are gone with the scope; give the
        // allocator's cache back and say what is left.
        const bool injected = msg.find("injected by accel-doctor") != std::string::npos;
        limit = injected ? "injected_out_of_memory" : "out_of_memory";
        release_device_memory(dev);
        r.metrics["oom_at_batch"] = static_cast<double>(b);
        r.evidence["oom_message"] = msg;
        json released = {{"empty_cache", !dev.is_cpu()}};
        if (!dev.is_cpu()) {
          if (const auto* backend = accelerator_backend(dev)) {
            if (auto mem = backend->memory(dev.index())) {
              released["allocated_bytes_after"] = mem->allocated_bytes;
              released["reserved_bytes_after"] = mem->reserved_bytes;
              r.metrics["reserved_bytes_after_release"] = static_cast<double>(mem->reserved_bytes);
            }
          }
        }
        r.evidence["memory_released"] = released;
        break;
      }
    }
    r.evidence["curve"] = curve;
    r.evidence["limit"] = limit;
    r.evidence["injected"] = limit == "injected_out_of_memory";
    r.metrics["sweep_points"] = static_cast<double>(curve.size());
    r.metrics["max_batch"] = max_batch;
    if (best_batch) {
      r.metrics["best_batch"] = best_batch;
      r.metrics["samples_per_s"] = best;
    }
    if (limit == "cap") {
      r.evidence["limit_detail"] = fmt::format(
          "no out-of-memory up to the sweep's cap of {}: the largest batch that fits is at least {}",
          o_.sweep_max, max_batch);
    } else if (limit != "error") {
      r.evidence["limit_detail"] =
          fmt::format("{}out of memory at batch {}: the largest batch that fits is {}",
                      limit == "injected_out_of_memory"
                          ? fmt::format("injected limit of {} bytes: ", o_.inject_oom_above_bytes)
                          : std::string(),
                      r.metrics["oom_at_batch"], max_batch);
    }
    if (limit == "error") return;
    if (max_batch == 0) {
      r.status = Status::error;
      r.reason = fmt::format("out of memory already at batch {}{}", o_.sweep_min,
                             limit == "injected_out_of_memory" ? " (injected limit)" : "");
      r.error = ErrorInfo{r.reason, "", "", "", ""};
      return;
    }
    r.status = Status::ok;
  }

  TrainOptions o_;
  std::map<std::string, Item> items_;
  c10::Device target_ = c10::kCPU;
  std::optional<train::Dataset> data_;
  std::map<std::string, std::vector<double>> fp32_curves_;
};

}  // namespace

std::unique_ptr<WorkerSuite> make_train_suite(const json& job) { return std::make_unique<TrainSuite>(job); }

std::string describe_train_model(const std::string& model) {
  static std::map<std::string, std::string> cache;
  auto it = cache.find(model);
  if (it == cache.end()) {
    it = cache.emplace(model, train::make_model(model, c10::Device(c10::kCPU), kModelSeed)->description())
             .first;
  }
  return it->second;
}

TrainOptions resolve_train_options(TrainOptions o) {
  const bool cpu = device_type_of(o.device) == "cpu";
  if (o.models.empty()) o.models = train::model_names();
  if (o.precisions.empty()) o.precisions = {"fp32", "fp16", "bf16"};
  if (o.batches.empty()) o.batches = {cpu ? (o.quick ? 32 : 64) : 256};
  if (o.steps <= 0) o.steps = o.quick ? 20 : 100;
  if (o.sweep_min <= 0) o.sweep_min = cpu ? 16 : 64;
  if (o.sweep_max <= 0) o.sweep_max = cpu ? (o.quick ? 128 : 1024) : (o.quick ? 16384 : 65536);
  o.sweep_max = std::max(o.sweep_max, o.sweep_min);
  return o;
}

std::vector<ItemInfo> list_train(const TrainOptions& options) {
  std::vector<ItemInfo> out;
  for (const auto& it : build_items(resolve_train_options(options))) out.push_back(it.info);
  return out;
}

std::vector<Result> run_train(const TrainOptions& options, const RunCallbacks& callbacks) {
  const TrainOptions o = resolve_train_options(options);
  auto results = run_torch_items("train", o, list_train(o), callbacks);
  const auto step_key = [](const Result& r) -> std::optional<TrainKey> {
    auto k = TrainKey::parse(r.key);
    if (!k || k->item != TrainKey::Item::step) return std::nullopt;
    return k;
  };
  // fp16/bf16 step rows: speed over the fp32 row of the same device, model and batch.
  std::map<std::string, double> fp32_rate;  // key of the fp32 row -> samples/s
  for (const auto& r : results) {
    if (r.dtype == "fp32" && r.status == Status::ok && step_key(r) && r.metrics.count("samples_per_s")) {
      fp32_rate[r.key] = r.metrics.at("samples_per_s");
    }
  }
  for (auto& r : results) {
    const auto k = step_key(r);
    if (r.dtype == "fp32" || r.status != Status::ok || !k || !r.metrics.count("samples_per_s")) continue;
    TrainKey fp32 = *k;
    fp32.precision = "fp32";
    const auto found = fp32_rate.find(fp32.str());
    if (found != fp32_rate.end() && found->second > 0) {
      r.metrics["speedup_vs_fp32"] = r.metrics.at("samples_per_s") / found->second;
    }
  }
  // Device step rows get their speed-up over the CPU twin (same model and
  // batch; the twin runs fp32).
  const std::string type = device_type_of(o.device);
  if (type == "cpu") return results;
  std::map<std::pair<std::string, int>, double> cpu_rate;  // (model, batch) -> samples/s
  for (const auto& r : results) {
    const auto k = step_key(r);
    if (r.device == "cpu" && r.status == Status::ok && k && r.metrics.count("samples_per_s")) {
      cpu_rate[{k->model, k->batch}] = r.metrics.at("samples_per_s");
    }
  }
  for (auto& r : results) {
    const auto k = step_key(r);
    if (r.device == "cpu" || r.status != Status::ok || !k || !r.metrics.count("samples_per_s")) continue;
    const auto found = cpu_rate.find({k->model, k->batch});
    if (found != cpu_rate.end() && found->second > 0)
      r.speedup = r.metrics.at("samples_per_s") / found->second;
  }
  return results;
}

}  // namespace accel::engine
