#include "engines/onnxruntime/run_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "core/accumulation.hpp"
#include "core/stats.hpp"
#include "engines/onnxruntime/profile_parse.hpp"
#include "platform/detail.hpp"

namespace accel::ort {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::uint64_t key_seed(const std::string& key) {  // FNV-1a: stable across machines
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  return h;
}

/// The graph input tensors for `g` from the values drawn for the row (the
/// same doubles for every graph of the row, rounded to each input's type).
std::vector<HostTensor> make_inputs(const Graph& g, const std::vector<std::vector<double>>& values) {
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    HostTensor t;
    t.spec = g.inputs[i];
    t.data = encode(t.spec.dtype, values[i]);
    out.push_back(std::move(t));
  }
  return out;
}

ProfileEvidence profile_evidence(const Placement& p) {
  ProfileEvidence e;
  // Placement's "no_nodes" (nothing to prove) is the report's "unavailable".
  e.where = where_from_string(p.where).value_or(Where::unavailable);
  e.detail = p.detail;
  e.kernel_count = p.target_nodes;
  e.kernel_time_us = p.target_us;
  e.h2d_count = p.from_host;
  e.d2h_count = p.to_host;
  e.memcpy_time_us = p.memcpy_us;
  if (e.where == Where::cpu_fallback) e.fallback_cost_us = p.fallback_cost_us();
  e.implementation["provider"] = p.target_ep;
  for (const auto& op : p.cpu_ops) e.ops.push_back(op + " (CPU)");
  return e;
}

json placement_json(const Placement& p) {
  return json{{"target_nodes", p.target_nodes},
              {"target_us", p.target_us},
              {"cpu_nodes", p.cpu_nodes},
              {"cpu_us", p.cpu_us},
              {"cpu_ops", p.cpu_ops},
              {"shape_nodes", p.shape_nodes},
              {"memcpy_nodes", p.memcpy_nodes},
              {"memcpy_to_host", p.to_host},
              {"memcpy_from_host", p.from_host},
              {"memcpy_us", p.memcpy_us},
              {"other_nodes", p.other_nodes},
              {"runs", p.runs},
              {"inserted_casts", p.inserted_casts},
              {"inserted_cast_us", p.inserted_cast_us},
              {"nodes_by_provider", p.nodes_by_provider}};
}

/// The reference outputs: the row in fp64 on the CPU provider, else fp32,
/// graph optimisations off. `method` names which one answered.
std::vector<HostTensor> reference_outputs(const Env& env, const CheckDef& def, DType dtype, bool quick,
                                          std::uint64_t seed, const std::vector<std::vector<double>>& values,
                                          bool force_writer, std::string& method, std::string& why_not) {
  for (DType ref : {DType::fp64, DType::fp32}) {
    try {
      Build rb(dtype, ref, quick, seed);
      def.build(rb);
      const Model m = Model::build(env, rb.graph(), force_writer);
      SessionConfig cfg;
      cfg.optimization = abi::ORT_DISABLE_ALL;
      Session s = Session::create(env, m, cfg);
      const auto inputs = make_inputs(rb.graph(), values);
      s.bind_inputs(inputs);
      s.run();
      method = fmt::format("cpu_provider_{}", to_string(ref));
      return s.outputs();
    } catch (const std::exception& e) {
      why_not +=
          fmt::format("{}{}: {}", why_not.empty() ? "" : "; ", to_string(ref), short_message(e.what()));
    }
  }
  return {};
}

}  // namespace

TimerBudget timer_budget(bool quick) {
  TimerBudget b;
  if (quick) {
    b.warmup_ms = 5;
    b.min_samples = 5;
    b.max_samples = 15;
    b.budget_ms = 150;
  }
  return b;
}

Timing time_calls(const std::function<void()>& call, const TimerBudget& budget) {
  int warmup = 0;
  const auto w0 = Clock::now();
  double last_us = 0;
  do {
    const auto t = Clock::now();
    call();
    last_us = std::chrono::duration<double, std::micro>(Clock::now() - t).count();
    ++warmup;
  } while (ms_since(w0) < budget.warmup_ms && warmup < 1000);
  const int inner =
      std::clamp(static_cast<int>(std::ceil(budget.sample_target_us / std::max(last_us, 1e-3))), 1, 64);
  std::vector<double> samples;
  const auto s0 = Clock::now();
  bool exhausted = false;
  while (static_cast<int>(samples.size()) < budget.max_samples) {
    const auto t = Clock::now();
    for (int i = 0; i < inner; ++i) call();
    samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count() / inner);
    const int n = static_cast<int>(samples.size());
    if (n >= budget.min_samples && relative_iqr(summarize(samples)) < kNoisyRelativeIqr) break;
    if (ms_since(s0) > budget.budget_ms && n >= std::min(3, budget.min_samples)) {
      exhausted = n < budget.min_samples || relative_iqr(summarize(samples)) >= kNoisyRelativeIqr;
      break;
    }
  }
  return make_timing(std::move(samples), warmup, inner, "host_clock_run", exhausted);
}

double relative_error(const std::vector<double>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return std::nan("");
  double num = 0, den = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(out[i]) || std::isnan(ref[i])) return std::nan("");
    const double d = out[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

double equal_fraction(const std::vector<double>& out, const std::vector<double>& ref) {
  if (out.size() != ref.size()) return 0;
  if (out.empty()) return 1;
  std::size_t same = 0;
  for (std::size_t i = 0; i < out.size(); ++i) same += out[i] == ref[i];
  return static_cast<double>(same) / static_cast<double>(out.size());
}

double check_tolerance(DType dtype, std::int64_t accumulation_length, double tolerance_scale) {
  double tol = dtype == DType::fp16 ? 5e-3 : dtype == DType::fp64 ? 1e-9 : 2e-3;
  if (dtype == DType::fp16 && accumulation_length > 0) {
    tol = accumulation_model(HalfFormat::fp16, accumulation_length).tolerance;
  }
  return tol * std::max(1.0, tolerance_scale);
}

bool is_missing_kernel(const std::string& m) {
  return m.find("Could not find an implementation for") != std::string::npos ||
         m.find("No Op registered for") != std::string::npos ||
         m.find("is not a registered function/op") != std::string::npos ||
         m.find("Unsupported ONNX opset") != std::string::npos ||
         (m.find("opset") != std::string::npos && m.find("is under development") != std::string::npos) ||
         (m.find("not supported") != std::string::npos && m.find("ONNX Runtime only") != std::string::npos);
}

ProviderChoice Target::provider() const {
  ProviderChoice p;
  p.ep = candidate.ep;
  p.device_id = candidate.device_id;
  p.ep_device = ep_device;
  return p;
}

CheckRunner::CheckRunner(const Env& env, Target target, RunOptions options)
    : env_(env), target_(std::move(target)), options_(std::move(options)) {}

Result CheckRunner::failed(Result r, const std::string& message) const {
  ErrorInfo err;
  err.message = short_message(message);
  if (options_.kb) {
    if (auto d = options_.kb->classify(message, options_.machine)) {
      err.cause_id = d->id;
      err.cause = d->cause;
      err.fix = d->fix;
      err.reference = d->reference;
    }
  }
  r.status = Status::error;
  r.error = err;
  return r;
}

namespace {

/// One check's run, step by step (CheckRunner::run). Each step returns
/// false when the result is final (an error, unavailable).
class CheckRun {
 public:
  CheckRun(const CheckRunner& runner, const Env& env, const CheckDef& def, DType dtype)
      : runner_(runner),
        env_(env),
        def_(def),
        dtype_(dtype),
        o_(runner.options()),
        t_(runner.target()),
        host_target_(t_.candidate.ep == "CPUExecutionProvider"),
        b_(dtype, dtype, o_.quick, key_seed(check_key(def, dtype))) {
    r_.key = check_key(def, dtype);
    r_.kind = ResultKind::check;
    r_.name = def.name;
    r_.category = "ort-" + def.category;
    r_.dtype = std::string(to_string(dtype));
    r_.device = t_.candidate.device;
    r_.evidence["engine"] = "onnxruntime";
    r_.evidence["provider"] = t_.candidate.ep;
    r_.evidence["flops_formula"] = def.flops_formula;
    r_.evidence["bytes_formula"] = def.bytes_formula;
    if (def.contrib) r_.evidence["domain"] = "com.microsoft";
    seed_ = key_seed(r_.key);
  }

  Result run() {
    const auto t0 = Clock::now();
    if (step("inputs", [&] { return prepare(); }) && step("first_call", [&] { return first_calls(); })) {
      if (!host_target_) step("fallback_check", [&] { return fallback_check(); });
      std::string mismatch;
      step("reference", [&] { return verify(mismatch); });
      if (step("device_timing", [&] { return time_target(); })) {
        if (!host_target_ && o_.cpu_twin) step("cpu_timing", [&] { return time_cpu_twin(); });
        rates();
        if (!mismatch.empty()) {
          r_.status = Status::mismatch;
          r_.reason = mismatch;
        } else {
          r_.status = Status::ok;
          if (r_.profile && r_.profile->where == Where::cpu_fallback)
            r_.reason = "CPU fallback: " + r_.profile->detail;
        }
      }
    }
    r_.wall_ms = ms_since(t0);
    return std::move(r_);
  }

 private:
  template <class F>
  bool step(const char* name, F&& f) {
    const auto t = Clock::now();
    const bool go_on = f();
    r_.phase_ms[name] = ms_since(t);
    return go_on;
  }

  bool fail(const std::string& message) {
    r_ = runner_.failed(std::move(r_), message);
    return false;
  }

  bool prepare() {
    try {
      def_.build(b_);
      r_.shape = b_.shape;
      r_.work = {b_.flops, b_.bytes};
      if (!b_.tag.empty()) r_.evidence["shape_tag"] = b_.tag;
      for (std::size_t i = 0; i < b_.graph().inputs.size(); ++i) {
        const auto& spec = b_.graph().inputs[i];
        auto v = draw_values(b_.fills()[i], spec.elements(), seed_ + 17 * (i + 1));
        // Round once to the input's type so every model sees the same values.
        values_.push_back(decode(spec.dtype, encode(spec.dtype, v).data(), v.size()));
      }
      model_.emplace(Model::build(env_, b_.graph(), o_.force_writer));
      r_.evidence["model_path"] = to_string(model_->path());
    } catch (const std::exception& e) {
      return fail(std::string("building the model: ") + e.what());
    }
    for (const auto& [d, v] : b_.graph().opsets) {
      if (d.empty()) r_.evidence["opset"] = v;
    }
    inputs_ = make_inputs(b_.graph(), values_);
    return true;
  }

  /// The profiled session: the first call's output, two more calls, the placement.
  bool first_calls() {
    try {
      SessionConfig cfg;
      cfg.provider = t_.provider();
      cfg.profile = true;
      std::string stem = r_.key;
      std::replace(stem.begin(), stem.end(), '/', '_');
      cfg.profile_prefix = (std::filesystem::path(o_.scratch_dir) / stem).string();
      Session s = Session::create(env_, *model_, cfg);
      s.bind_inputs(inputs_);
      const auto c0 = Clock::now();
      s.run();
      r_.metrics["first_call_us"] = ms_since(c0) * 1000;
      outputs_ = s.outputs();
      s.run();
      s.run();
      read_profile(s.end_profiling());
    } catch (const OrtError& e) {
      const std::string msg = e.what();
      r_.evidence["ort_error_code"] = error_code_name(e.code);
      if (!is_missing_kernel(msg)) return fail(msg);
      r_.status = Status::unavailable;
      r_.reason = fmt::format("{} has no kernel for this: {}", t_.candidate.ep, short_message(msg));
      return false;
    } catch (const std::exception& e) {
      return fail(e.what());
    }
    r_.profile = profile_evidence(placement_);
    r_.evidence["placement"] = placement_json(placement_);
    return true;
  }

  void read_profile(const std::string& file) {
    if (file.empty()) return;
    try {
      std::string why;
      const auto text = platform::detail::read_text(file, &why, std::size_t{256} << 20);
      if (!text) throw ProfileError("cannot read " + file + ": " + why);
      placement_ = classify_placement(parse_profile(*text), t_.candidate.ep);
    } catch (const ProfileError& e) {
      placement_.where = "no_nodes";
      placement_.detail = std::string("the profile could not be read: ") + e.what();
    }
    if (o_.keep_profiles) {
      r_.evidence["profile_file"] = file;
    } else {
      std::error_code ec;
      std::filesystem::remove(file, ec);
    }
  }

  /// The hard yes/no: can the whole graph run without the CPU provider?
  bool fallback_check() {
    try {
      SessionConfig cfg;
      cfg.provider = t_.provider();
      cfg.disable_cpu_fallback = true;
      (void)Session::create(env_, *model_, cfg);
      r_.evidence["disable_cpu_ep_fallback"] =
          "session created: every node has a " + t_.candidate.ep + " kernel";
    } catch (const std::exception& e) {
      r_.evidence["disable_cpu_ep_fallback"] = "session refused: " + short_message(e.what());
      // The profile saw no CPU node, yet the runtime needs one: trust the
      // runtime (Shape/Size nodes it put on the CPU on purpose also make it refuse).
      if (r_.profile->where == Where::device_kernels && placement_.shape_nodes == 0) {
        r_.profile->where = Where::cpu_fallback;
        r_.profile->detail += "; with session.disable_cpu_ep_fallback=1 the session is refused";
      }
    }
    return true;
  }

  /// Correctness against the CPU provider; `mismatch` says why when wrong.
  bool verify(std::string& mismatch) {
    if (!def_.verify) return true;
    std::string method, why_not;
    const auto ref =
        reference_outputs(env_, def_, dtype_, o_.quick, seed_, values_, o_.force_writer, method, why_not);
    if (ref.empty() || ref.size() != outputs_.size()) {
      r_.warnings.push_back("no reference: the CPU provider could not run this check in fp64 or fp32 (" +
                            why_not + ")");
      return true;
    }
    Accuracy acc;
    acc.method = method;
    acc.tolerance = check_tolerance(dtype_, b_.accumulation_length, def_.tolerance_scale);
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
      const Compare how = i < b_.compares().size() ? b_.compares()[i] : Compare::relative;
      if (how == Compare::skip) continue;
      const auto out = values_of(outputs_[i]);
      const auto rf = values_of(ref[i]);
      const std::string& name = outputs_[i].spec.name;
      if (how == Compare::relative) {
        const double e = relative_error(out, rf);
        acc.rel_error = std::isnan(e) ? e : std::max(acc.rel_error, e);
        if (std::isnan(e) || e > acc.tolerance)
          mismatch = fmt::format("output '{}': relative error {:.3g} over the tolerance {:.3g}", name, e,
                                 acc.tolerance);
      } else {
        const double frac = equal_fraction(out, rf);
        notes.push_back(fmt::format("'{}' {:.2f}% equal", name, 100 * frac));
        if (frac < (how == Compare::exact ? 1.0 : 0.99))
          mismatch =
              fmt::format("output '{}': {:.2f}% of the elements equal the reference", name, 100 * frac);
      }
    }
    acc.detail =
        fmt::format("relative error {:.3g} (tolerance {:.3g}) against the {}{}", acc.rel_error, acc.tolerance,
                    method, notes.empty() ? "" : fmt::format("; {}", fmt::join(notes, ", ")));
    if (host_target_ && method == "cpu_provider_fp32" && dtype_ == DType::fp32)
      acc.detail +=
          "; the same provider and precision as the target (optimisations off): not an independent reference";
    if (!mismatch.empty() && dtype_ == DType::fp16 && b_.accumulation_length > 0) {
      mismatch += "; " + explain_accumulation_error(
                             accumulation_model(HalfFormat::fp16, b_.accumulation_length), acc.rel_error);
    }
    r_.accuracy = acc;
    return true;
  }

  static std::vector<double> values_of(const HostTensor& t) {
    return decode(t.spec.dtype, t.data.data(),
                  t.data.size() / std::max<std::size_t>(1, element_size(t.spec.dtype)));
  }

  /// Timing on a fresh, unprofiled session.
  bool time_target() {
    try {
      SessionConfig cfg;
      cfg.provider = t_.provider();
      Session s = Session::create(env_, *model_, cfg);
      s.bind_inputs(inputs_);
      r_.timing = time_calls([&] { s.run(); }, timer_budget(o_.quick));
    } catch (const std::exception& e) {
      return fail(std::string("timing: ") + e.what());
    }
    return true;
  }

  bool time_cpu_twin() {
    try {
      Session s = Session::create(env_, *model_, SessionConfig{});
      s.bind_inputs(inputs_);
      r_.cpu_timing = time_calls([&] { s.run(); }, timer_budget(true));
      if (r_.timing->median_us > 0) r_.speedup = r_.cpu_timing->median_us / r_.timing->median_us;
    } catch (const std::exception& e) {
      r_.evidence["cpu_twin"] = "not timed on the CPU provider: " + short_message(e.what());
    }
    return true;
  }

  void rates() {
    if (!r_.timing || r_.timing->median_us <= 0) return;
    const double us = r_.timing->median_us;
    if (r_.work.flops > 0) r_.metrics["tflops"] = r_.work.flops / us * 1e-6;
    if (r_.work.bytes > 0) r_.metrics["gbps"] = r_.work.bytes / us * 1e-3;
    if (b_.items > 0 && !def_.unit.empty()) r_.metrics[def_.unit + "_per_s"] = b_.items / us * 1e6;
  }

  const CheckRunner& runner_;
  const Env& env_;
  const CheckDef& def_;
  DType dtype_;
  const RunOptions& o_;
  const Target& t_;
  bool host_target_;
  Result r_;
  std::uint64_t seed_ = 0;
  Build b_;
  std::vector<std::vector<double>> values_;
  std::optional<Model> model_;
  std::vector<HostTensor> inputs_, outputs_;
  Placement placement_;
};

}  // namespace

Result CheckRunner::run(const CheckDef& def, DType dtype) const {
  return CheckRun(*this, env_, def, dtype).run();
}

}  // namespace accel::ort
