// Runs one catalog row for one dtype in this process and turns everything
// that happens into a Result. Never throws.
#include "engines/torch/checks/run_check.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>

#include <c10/core/GradMode.h>
#include <fmt/format.h>

#include "core/accumulation.hpp"
#include "core/fallback.hpp"
#include "core/result_keys.hpp"
#include "engines/torch/profiler.hpp"
#include "engines/torch/timer.hpp"

namespace accel::engine {

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

/// Relative Frobenius tolerance per dtype. fp32 allows TF32 convolutions
/// (cuDNN's default), about 5e-4 (see docs/methodology.md).
double dtype_tolerance(at::ScalarType t) {
  switch (t) {
    case at::kDouble:
      return 1e-9;
    case at::kFloat:
      return 2e-3;
    case at::kHalf:
      return 5e-3;
    case at::kBFloat16:
      return 3e-2;
    default:
      return 0;
  }
}

/// The tolerance of a check in `dtype`: for fp16/bf16 sums of products (a
/// row with an accumulation length) the accumulation model's
/// (core/accumulation.hpp), else the dtype's constant; both times the row's
/// scale (ops that chain several roundings).
double check_tolerance(const CheckDef& def, at::ScalarType dtype) {
  if (def.accumulation_length > 0) {
    if (const auto half = parse_half_format(dtype_name(dtype))) {
      return accumulation_model(*half, def.accumulation_length).tolerance * def.tolerance_scale;
    }
  }
  return dtype_tolerance(dtype) * def.tolerance_scale;
}

/// The master inputs of the last check, reused by its next dtype: the fp32,
/// fp16 and bf16 rows of a check see the same values, drawn once (drawing
/// float64 inputs on the CPU was a third of a full GPU run, 2026-11-30).
struct InputCache {
  std::string id;
  Tensors master;
};
thread_local InputCache last_inputs;

const Tensors& master_inputs(const CheckDef& def) {
  const std::string id = def.category + "/" + def.name;
  if (last_inputs.id != id) {
    last_inputs = InputCache{};  // free the previous check's inputs first
    at::manual_seed(fnv1a(id));
    last_inputs.master = def.inputs();
    last_inputs.id = id;
  }
  return last_inputs.master;
}

/// Never the master's own tensor: an op that writes into its input must not
/// change what the next dtype's row sees.
at::Tensor unaliased(const at::Tensor& x, const at::Tensor& master) {
  return x.is_same(master) ? master.clone() : x;
}

Tensors convert(const Tensors& master, at::ScalarType dtype, const c10::Device& device) {
  Tensors out;
  out.reserve(master.size());
  for (const auto& t : master) {
    if (!t.defined()) {
      out.push_back(t);
      continue;
    }
    at::Tensor x = t;
    if (at::isFloatingType(t.scalar_type())) x = x.to(dtype);
    out.push_back(unaliased(x.to(device).contiguous(), t));
  }
  return out;
}

/// The reference sees the inputs rounded to the dtype under test, in float64.
Tensors reference_inputs(const Tensors& master, at::ScalarType dtype) {
  Tensors out;
  for (const auto& t : master) {
    if (t.defined() && at::isFloatingType(t.scalar_type())) {
      out.push_back(unaliased(t.to(dtype).to(at::kDouble), t));
    } else {
      out.push_back(t.defined() ? t.clone() : t);
    }
  }
  return out;
}

double bytes_of(const Tensors& ts, at::ScalarType dtype) {
  double b = 0;
  for (const auto& t : ts) {
    if (!t.defined()) continue;
    const auto elem = at::isFloatingType(t.scalar_type()) ? at::elementSize(dtype) : t.element_size();
    b += static_cast<double>(t.numel()) * static_cast<double>(elem);
  }
  return b;
}

at::Tensor as_real64(const at::Tensor& t) {
  at::Tensor x = t.detach().cpu();
  if (x.is_complex()) x = at::view_as_real(x.resolve_conj());
  return x.to(at::kDouble);
}

/// Empty string when `out` matches `ref`, else the reason; fills `acc`.
std::string compare(const at::Tensor& out, const at::Tensor& ref, Verify verify, double tol, Accuracy& acc) {
  const at::Tensor o = as_real64(out);
  const at::Tensor r = as_real64(ref);
  if (o.sizes() != r.sizes()) {
    return fmt::format("shape {} differs from the reference {}", fmt::join(o.sizes(), "x"),
                       fmt::join(r.sizes(), "x"));
  }
  if (verify == Verify::exact) {
    acc.method = "exact";
    acc.tolerance = 0;
    const double mismatches = (o != r).sum().item<double>();
    acc.rel_error = o.numel() ? mismatches / static_cast<double>(o.numel()) : 0;
    acc.detail = fmt::format("{} of {} elements differ", mismatches, o.numel());
    return mismatches == 0 ? "" : acc.detail;
  }
  acc.method = "float64_reference";
  acc.tolerance = tol;
  const at::Tensor ref_ok = at::isfinite(r);
  const at::Tensor out_ok = at::isfinite(o);
  const bool ref_finite = ref_ok.all().item<bool>();
  const bool out_finite = out_ok.all().item<bool>();
  if (ref_finite && !out_finite) {
    const auto bad = (~out_ok).sum().item<int64_t>();
    acc.rel_error = 1e300;  // JSON has no infinity; 1e300 stands for non-finite output
    acc.detail = fmt::format("{} non-finite values (NaN/inf) where the reference is finite", bad);
    return acc.detail;
  }
  double num = 0;
  double den = 0;
  if (ref_finite) {  // the common case: nothing to mask
    num = (o - r).norm().item<double>();
    den = r.norm().item<double>();
  } else {  // compare where both are finite (a NaN the reference has too is agreement)
    const at::Tensor mask = ref_ok & out_ok;
    num = at::where(mask, o - r, at::zeros_like(o)).norm().item<double>();
    den = at::where(mask, r, at::zeros_like(r)).norm().item<double>();
  }
  acc.rel_error = den > 0 ? num / den : num;
  acc.detail = fmt::format("relative error {:.3g} (tolerance {:.3g})", acc.rel_error, tol);
  return acc.rel_error <= tol ? "" : acc.detail;
}

struct Profiled {
  ProfileEvidence evidence;
  std::vector<TraceEvent> events;  ///< empty when no capture was possible
  bool captured = false;
};

/// One more call under the profiler: where did the work run?
Profiled profile_check(const CheckDef& def, const Tensors& dev_in, const OpEnv& env, const RunContext& ctx,
                       const std::string& key) {
  ClassifyOptions co;
  co.target_is_host = ctx.device.is_cpu();
  co.profiler_sees_device = ctx.profiler_blind.empty();
  co.transfer_check = def.transfer;
  Capture cap;
  {
    WarnAlwaysGuard always;  // a fallback announced once per process is announced again here
    cap = profile_call(
        ctx.device, [&] { (void)def.op(dev_in, env); }, !ctx.trace_dir.empty());
  }
  Profiled out;
  if (!cap.unavailable.empty()) {
    out.evidence.where = Where::unavailable;
    out.evidence.detail = cap.unavailable;
    return out;
  }
  ProfileEvidence& p = out.evidence;
  p = classify_events(cap.events, co, ctx.implementations);
  if (!co.profiler_sees_device) p.detail += " (" + ctx.profiler_blind + ")";
  if (!ctx.trace_dir.empty() && !cap.trace_json.empty()) {
    std::string file = key;
    for (char& c : file) {
      if (c == '/') c = '_';
    }
    std::ofstream(ctx.trace_dir + "/" + file + ".json") << cap.trace_json;
  }
  out.events = std::move(cap.events);
  out.captured = true;
  return out;
}

/// The CPU fallbacks the backend announced in the check's warnings (kb
/// entries with check_where cpu_fallback), timed in the profiled call; or,
/// on a backend that announces every fallback and announced none, device
/// work by its own account (core/fallback.hpp).
void apply_fallback_evidence(Result& r, const RunContext& ctx, const Profiled* profiled) {
  if (ctx.device.is_cpu() || !ctx.kb) return;
  const auto announced = announced_fallbacks(r.warnings, *ctx.kb, ctx.machine);
  if (!announced.empty()) {
    if (!r.profile) r.profile = ProfileEvidence{};
    if (profiled && profiled->captured) {
      const FallbackTimes times = time_fallbacks(profiled->events, announced);
      mark_announced_fallback(*r.profile, announced, &times, "");
    } else {
      mark_announced_fallback(*r.profile, announced, nullptr,
                              profiled ? r.profile->detail : "the profiler is off (--no-profile)");
    }
    return;
  }
  if (ctx.announces_cpu_fallback && r.status == Status::ok && r.profile &&
      r.profile->where == Where::profiler_blind) {
    mark_backend_kernels(*r.profile, device_string(ctx.device), ctx.plugin);
  }
}

/// Wall time of a check's phases (inputs, first_call, reference, ...) into
/// `Result::phase_ms`.
class PhaseClock {
 public:
  PhaseClock(Result& r, std::chrono::steady_clock::time_point start) : r_(r), start_(start) {}
  void done(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    r_.phase_ms[name] += std::chrono::duration<double, std::milli>(now - start_).count();
    start_ = now;
  }

 private:
  Result& r_;
  std::chrono::steady_clock::time_point start_;
};

/// First call: does it run, and where does the output live? (Warn-always:
/// a fallback the backend announces once per process is announced here.)
/// Sets `off_device` and the output's evidence.
at::Tensor first_call(Result& r, const CheckDef& def, const Tensors& dev_in, const OpEnv& env,
                      const RunContext& ctx) {
  at::Tensor out;
  {
    WarnAlwaysGuard always;
    out = def.op(dev_in, env);
    synchronize(ctx.device);
  }
  const c10::Device expected = def.output_on_host ? c10::Device(c10::kCPU) : ctx.device;
  if (out.defined() && out.device() != expected) {
    r.status = Status::off_device;
    r.reason = fmt::format("output on {} instead of {}", out.device().str(), expected.str());
  }
  r.evidence["output_device"] = out.defined() ? out.device().str() : "undefined";
  if (def.evidence) {
    try {
      const json extra = def.evidence(dev_in, env);  // named: items() of a temporary would dangle
      for (const auto& [k, v] : extra.items()) r.evidence[k] = v;
    } catch (const std::exception& e) {
      r.evidence["evidence_error"] = exception_message(e);
    }
  }
  return out;
}

/// Correctness against the float64 reference, exactly, or by statistics;
/// sets `accuracy` and, when it fails, `mismatch` with the reason.
void verify_output(Result& r, const CheckDef& def, at::ScalarType dtype, const Tensors& master,
                   const at::Tensor& out) {
  Accuracy acc;
  std::string why;
  if (def.verify == Verify::reference || def.verify == Verify::exact) {
    const Tensors ref_in = reference_inputs(master, dtype);
    const at::Tensor ref = def.op(ref_in, OpEnv{c10::Device(c10::kCPU), at::kDouble});
    why = compare(out, ref, def.verify, check_tolerance(def, dtype), acc);
    const auto half = parse_half_format(dtype_name(dtype));
    if (!why.empty() && half && def.accumulation_length > 0 && acc.method == "float64_reference" &&
        acc.rel_error < 1e300) {
      // Say what the error means for the kernel (accumulating in fp16/bf16).
      acc.detail += ": " + explain_accumulation_error(accumulation_model(*half, def.accumulation_length),
                                                      acc.rel_error);
      why = acc.detail;
    }
    r.accuracy = acc;
  } else if (def.verify == Verify::statistical && def.statistic) {
    acc.method = "statistical";
    why = def.statistic(out.detach().cpu(), dtype);
    acc.detail = why.empty() ? "sample statistics plausible" : why;
    r.accuracy = acc;
  }
  if (!why.empty()) {
    r.status = Status::mismatch;
    r.reason = why;
  }
}

/// The same op on the CPU, the baseline of the speed-up. A 10% spread is
/// precise enough for a ratio, and a multi-threaded CPU op rarely settles
/// under 2%, so the device's settings would spend the whole budget on every
/// check (the CPU twins were a quarter of a full H200 run, 2026-11-30).
void time_cpu_twin(Result& r, const CheckDef& def, at::ScalarType dtype, const Tensors& master,
                   const TimerOptions& topt) {
  try {
    const Tensors cpu_in = convert(master, dtype, c10::Device(c10::kCPU));
    const OpEnv cpu_env{c10::Device(c10::kCPU), dtype};
    TimerOptions cpu_opt = topt;
    cpu_opt.min_samples = 3;
    cpu_opt.max_samples = std::min(topt.max_samples, 10);
    cpu_opt.target_rel_iqr = std::max(topt.target_rel_iqr, 0.10);
    cpu_opt.budget_ms = std::min(topt.budget_ms, 15.0);
    cpu_opt.warmup_ms = cpu_opt.max_warmup_ms = 2;
    r.cpu_timing = time_op(
        c10::Device(c10::kCPU), [&] { (void)def.op(cpu_in, cpu_env); }, cpu_opt);
    if (r.timing->median_us > 0) r.speedup = r.cpu_timing->median_us / r.timing->median_us;
  } catch (const std::exception& e) {
    r.evidence["cpu_error"] = exception_message(e);
  }
}

/// Everything after the availability check: inputs, first call,
/// correctness, timings, profile (phases timed from `wall0`, the check's
/// start). Throws what the op throws.
void measure_check(Result& r, const CheckDef& def, at::ScalarType dtype, const RunContext& ctx,
                   const WarningCapture& warnings, std::chrono::steady_clock::time_point wall0) {
  PhaseClock phase(r, wall0);
  const Tensors master = master_inputs(def);
  at::manual_seed(fnv1a(r.key));  // random ops draw from a per-row seed
  const Tensors dev_in = convert(master, dtype, def.inputs_on_host ? c10::Device(c10::kCPU) : ctx.device);
  const OpEnv env{ctx.device, dtype};
  synchronize(ctx.device);
  phase.done("inputs");

  const at::Tensor out = first_call(r, def, dev_in, env, ctx);
  phase.done("first_call");
  const double elem = static_cast<double>(at::elementSize(dtype));
  r.work.bytes = def.bytes ? def.bytes(elem) : bytes_of(dev_in, dtype) + bytes_of({out}, dtype);
  if (r.status != Status::off_device) verify_output(r, def, dtype, master, out);
  phase.done("reference");

  // Timing on the device, then the same op on the CPU.
  const TimerOptions topt = ctx.quick ? TimerOptions::quick() : ctx.timer;
  r.timing = time_op(
      ctx.device, [&] { (void)def.op(dev_in, env); }, topt);
  phase.done("device_timing");
  if (!ctx.device.is_cpu() && def.compare_cpu) {
    time_cpu_twin(r, def, dtype, master, topt);
    phase.done("cpu_timing");
  }
  std::optional<Profiled> profiled;
  if (ctx.profile) {
    profiled = profile_check(def, dev_in, env, ctx, r.key);
    r.profile = profiled->evidence;
    phase.done("profile");
  }
  if (r.status == Status::skipped) r.status = Status::ok;
  r.warnings = warnings.messages();
  apply_fallback_evidence(r, ctx, profiled ? &*profiled : nullptr);
}

/// An exception of the op: `error`, with the kb's cause and fix when it
/// knows the message (which may make it `unavailable` instead).
void record_error(Result& r, const std::string& msg, const RunContext& ctx) {
  ErrorInfo err;
  const auto nl = msg.find('\n');
  err.message = nl == std::string::npos ? msg : msg.substr(0, nl);
  r.status = Status::error;
  if (ctx.kb) {
    if (auto d = ctx.kb->classify(msg, ctx.machine)) {
      err.cause_id = d->id;
      err.cause = d->cause;
      err.fix = d->fix;
      err.reference = d->reference;
      r.status = d->status;
    }
  }
  if (r.status == Status::unavailable) r.reason = err.message;
  if (msg.size() > err.message.size()) r.evidence["error_full"] = msg.substr(0, 4000);
  r.error = err;
  r.timing.reset();
}

}  // namespace

std::string check_key(const CheckDef& def, at::ScalarType dtype) {
  return OpsKey{def.category, def.name, dtype_name(dtype)}.str();
}

Result run_check(const CheckDef& def, at::ScalarType dtype, const RunContext& ctx) {
  const auto wall0 = std::chrono::steady_clock::now();
  Result r;
  r.key = check_key(def, dtype);
  r.kind = ResultKind::check;
  r.name = def.name;
  r.category = def.category;
  r.dtype = dtype_name(dtype);
  r.shape = def.shape;
  r.device = device_string(ctx.device);
  r.work.flops = def.flops;
  auto finish = [&]() -> Result {
    r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
    return r;
  };

  if (def.available) {
    const std::string why = def.available();
    if (!why.empty()) {
      r.status = Status::unavailable;
      r.reason = why;
      return finish();
    }
  }

  WarningCapture warnings;
  c10::NoGradGuard no_grad;  // checks that need autograd enable it themselves
  try {
    measure_check(r, def, dtype, ctx, warnings, wall0);
  } catch (const std::exception& e) {
    record_error(r, exception_message(e), ctx);
  }
  r.warnings = warnings.messages();
  return finish();
}

}  // namespace accel::engine
