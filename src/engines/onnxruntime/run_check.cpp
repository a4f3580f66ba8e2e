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

std::string first_line(const std::string& s) {
  const auto nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
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
  e.where = p.where == "no_nodes" ? "unavailable" : p.where;
  e.detail = p.detail;
  e.kernel_count = p.target_nodes;
  e.kernel_time_us = p.target_us;
  e.h2d_count = p.from_host;
  e.d2h_count = p.to_host;
  e.memcpy_time_us = p.memcpy_us;
  if (p.where == "cpu_fallback") e.fallback_cost_us = p.fallback_cost_us();
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
      why_not += fmt::format("{}{}: {}", why_not.empty() ? "" : "; ", to_string(ref), first_line(e.what()));
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

Result CheckRunner::run(const CheckDef& def, DType dtype) const {
  const auto t_all = Clock::now();
  const bool host_target = target_.candidate.ep == "CPUExecutionProvider";
  Result r;
  r.key = check_key(def, dtype);
  r.kind = "check";
  r.name = def.name;
  r.category = "ort-" + def.category;
  r.dtype = std::string(to_string(dtype));
  r.device = target_.candidate.device;
  r.evidence["engine"] = "onnxruntime";
  r.evidence["provider"] = target_.candidate.ep;
  r.evidence["flops_formula"] = def.flops_formula;
  r.evidence["bytes_formula"] = def.bytes_formula;
  if (def.contrib) r.evidence["domain"] = "com.microsoft";
  const std::uint64_t seed = key_seed(r.key);
  auto phase = [&](const char* name, Clock::time_point t0) { r.phase_ms[name] = ms_since(t0); };

  auto t = Clock::now();
  Build b(dtype, dtype, options_.quick, seed);
  std::vector<std::vector<double>> values;
  std::optional<Model> model;
  try {
    def.build(b);
    r.shape = b.shape;
    r.work = {b.flops, b.bytes};
    if (!b.tag.empty()) r.evidence["shape_tag"] = b.tag;
    for (std::size_t i = 0; i < b.graph().inputs.size(); ++i) {
      values.push_back(draw_values(b.fills()[i], b.graph().inputs[i].elements(), seed + 17 * (i + 1)));
      // Round once to the input's type so every model sees the same values.
      const DType in_type = b.graph().inputs[i].dtype;
      values.back() = decode(in_type, encode(in_type, values.back()).data(), values.back().size());
    }
    model = Model::build(env_, b.graph(), options_.force_writer);
    r.evidence["model_path"] = to_string(model->path());
  } catch (const std::exception& e) {
    r = failed(std::move(r), std::string("building the model: ") + e.what());
    r.wall_ms = ms_since(t_all);
    return r;
  }
  int opset = 0;
  for (const auto& [d, v] : b.graph().opsets) {
    if (d.empty()) opset = v;
  }
  r.evidence["opset"] = opset;
  const auto inputs = make_inputs(b.graph(), values);
  phase("inputs", t);

  // 1. The profiled session: first call, outputs, placement.
  std::vector<HostTensor> outputs;
  Placement placement;
  t = Clock::now();
  try {
    SessionConfig cfg;
    cfg.provider = target_.provider();
    cfg.profile = true;
    std::string stem = r.key;
    std::replace(stem.begin(), stem.end(), '/', '_');
    cfg.profile_prefix = (std::filesystem::path(options_.scratch_dir) / stem).string();
    Session s = Session::create(env_, *model, cfg);
    s.bind_inputs(inputs);
    const auto c0 = Clock::now();
    s.run();
    r.metrics["first_call_us"] = ms_since(c0) * 1000;
    outputs = s.outputs();
    s.run();
    s.run();
    const std::string file = s.end_profiling();
    if (!file.empty()) {
      try {
        std::string why;
        const auto text = platform::detail::read_text(file, &why, std::size_t{256} << 20);
        if (!text) throw ProfileError("cannot read " + file + ": " + why);
        placement = classify_placement(parse_profile(*text), target_.candidate.ep);
      } catch (const ProfileError& e) {
        placement.where = "no_nodes";
        placement.detail = std::string("the profile could not be read: ") + e.what();
      }
      if (options_.keep_profiles) {
        r.evidence["profile_file"] = file;
      } else {
        std::error_code ec;
        std::filesystem::remove(file, ec);
      }
    }
  } catch (const OrtError& e) {
    const std::string msg = e.what();
    if (is_missing_kernel(msg)) {
      r.status = Status::unavailable;
      r.reason = fmt::format("{} has no kernel for this: {}", target_.candidate.ep, short_message(msg));
    } else {
      r = failed(std::move(r), msg);
    }
    r.evidence["ort_error_code"] = error_code_name(e.code);
    r.wall_ms = ms_since(t_all);
    return r;
  } catch (const std::exception& e) {
    r = failed(std::move(r), e.what());
    r.wall_ms = ms_since(t_all);
    return r;
  }
  phase("first_call", t);
  r.profile = profile_evidence(placement);
  r.evidence["placement"] = placement_json(placement);

  // 2. The hard yes/no: can the whole graph run without the CPU provider?
  if (!host_target) {
    t = Clock::now();
    try {
      SessionConfig cfg;
      cfg.provider = target_.provider();
      cfg.disable_cpu_fallback = true;
      (void)Session::create(env_, *model, cfg);
      r.evidence["disable_cpu_ep_fallback"] =
          "session created: every node has a " + target_.candidate.ep + " kernel";
    } catch (const std::exception& e) {
      r.evidence["disable_cpu_ep_fallback"] = "session refused: " + first_line(e.what());
      // (Shape/Size nodes the runtime put on the CPU on purpose also make it refuse.)
      if (r.profile->where == "device_kernels" && placement.shape_nodes == 0) {
        // The profile saw no CPU node, yet the runtime needs one: trust the runtime.
        r.profile->where = "cpu_fallback";
        r.profile->detail += "; with session.disable_cpu_ep_fallback=1 the session is refused";
      }
    }
    phase("fallback_check", t);
  }

  // 3. Correctness against the CPU provider.
  t = Clock::now();
  std::string method, why_not;
  std::vector<HostTensor> ref;
  if (def.verify) {
    ref = reference_outputs(env_, def, dtype, options_.quick, seed, values, options_.force_writer, method,
                            why_not);
  }
  phase("reference", t);
  const double tol = check_tolerance(dtype, b.accumulation_length, def.tolerance_scale);
  std::string mismatch;
  if (!ref.empty() && ref.size() == outputs.size()) {
    Accuracy acc;
    acc.method = method;
    acc.tolerance = tol;
    double worst = 0;
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const Compare how = i < b.compares().size() ? b.compares()[i] : Compare::relative;
      if (how == Compare::skip) continue;
      const auto o =
          decode(outputs[i].spec.dtype, outputs[i].data.data(),
                 outputs[i].data.size() / std::max<std::size_t>(1, element_size(outputs[i].spec.dtype)));
      const auto rf = decode(ref[i].spec.dtype, ref[i].data.data(),
                             ref[i].data.size() / std::max<std::size_t>(1, element_size(ref[i].spec.dtype)));
      if (how == Compare::relative) {
        const double e = relative_error(o, rf);
        worst = std::isnan(e) ? e : std::max(worst, e);
        if (std::isnan(e) || e > tol)
          mismatch = fmt::format("output '{}': relative error {:.3g} over the tolerance {:.3g}",
                                 outputs[i].spec.name, e, tol);
      } else {
        const double frac = equal_fraction(o, rf);
        notes.push_back(fmt::format("'{}' {:.2f}% equal", outputs[i].spec.name, 100 * frac));
        if (frac < (how == Compare::exact ? 1.0 : 0.99))
          mismatch = fmt::format("output '{}': {:.2f}% of the elements equal the reference",
                                 outputs[i].spec.name, 100 * frac);
      }
    }
    acc.rel_error = worst;
    acc.detail = fmt::format("relative error {:.3g} (tolerance {:.3g}) against the {}{}", worst, tol, method,
                             notes.empty() ? "" : fmt::format("; {}", fmt::join(notes, ", ")));
    if (host_target && method == "cpu_provider_fp32" && dtype == DType::fp32) {
      acc.detail +=
          "; the same provider and precision as the target (optimisations off): not an independent reference";
    }
    r.accuracy = acc;
  } else if (def.verify) {
    r.warnings.push_back("no reference: the CPU provider could not run this check in fp64 or fp32 (" +
                         why_not + ")");
  }

  // 4. Timing on a fresh session, then the CPU twin.
  t = Clock::now();
  try {
    SessionConfig cfg;
    cfg.provider = target_.provider();
    Session s = Session::create(env_, *model, cfg);
    s.bind_inputs(inputs);
    r.timing = time_calls([&] { s.run(); }, timer_budget(options_.quick));
  } catch (const std::exception& e) {
    r = failed(std::move(r), std::string("timing: ") + e.what());
    r.wall_ms = ms_since(t_all);
    return r;
  }
  phase("device_timing", t);
  if (!host_target && options_.cpu_twin) {
    t = Clock::now();
    try {
      Session s = Session::create(env_, *model, SessionConfig{});
      s.bind_inputs(inputs);
      r.cpu_timing = time_calls([&] { s.run(); }, timer_budget(true));
      if (r.timing->median_us > 0) r.speedup = r.cpu_timing->median_us / r.timing->median_us;
    } catch (const std::exception& e) {
      r.evidence["cpu_twin"] = "not timed on the CPU provider: " + first_line(e.what());
    }
    phase("cpu_timing", t);
  }
  if (r.timing && r.timing->median_us > 0) {
    if (r.work.flops > 0) r.metrics["tflops"] = r.work.flops / r.timing->median_us * 1e-6;
    if (r.work.bytes > 0) r.metrics["gbps"] = r.work.bytes / r.timing->median_us * 1e-3;
    if (b.items > 0 && !def.unit.empty())
      r.metrics[def.unit + "_per_s"] = b.items / r.timing->median_us * 1e6;
  }

  if (!mismatch.empty()) {
    r.status = Status::mismatch;
    r.reason = mismatch;
  } else {
    r.status = Status::ok;
    if (r.profile && r.profile->where == "cpu_fallback") r.reason = "CPU fallback: " + r.profile->detail;
  }
  r.wall_ms = ms_since(t_all);
  return r;
}

}  // namespace accel::ort
