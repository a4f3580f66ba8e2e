// Health rules: failing checks grouped by cause, wrong results, work that left the device, CPU fallbacks.
// Thresholds and shared helpers: rules_health_detail.hpp.
#include "core/rules/rules_health_detail.hpp"

namespace accel::rules::health {

// ---------------------------------------------------------------- failures

/// The setting of this run's environment whose documented symptom the
/// failure's text shows (kb/rules.json setting_symptoms), with the variable;
/// {nullptr, nullptr} when none does.
std::pair<const SettingSymptom*, const EnvVar*> setting_behind(const Ctx& c, const Result& r) {
  if (!c.options.data) return {nullptr, nullptr};
  std::string text = r.reason;
  if (r.error) text += "\n" + r.error->message;
  for (const char* k : {"error_full", "stderr_tail"}) {
    if (r.evidence.contains(k) && r.evidence[k].is_string()) text += "\n" + r.evidence[k].get<std::string>();
  }
  for (const auto& s : c.options.data->setting_symptoms) {
    for (const auto& v : c.env.env_vars) {
      if (v.name != s.name || !RE2::FullMatch(v.value, s.value)) continue;
      for (const auto& symptom : s.symptoms) {
        if (RE2::PartialMatch(text, symptom)) return {&s, &v};
      }
    }
  }
  return {nullptr, nullptr};
}

namespace {

/// Failing checks of one cause (a set variable, a kb entry, a crash or
/// hang, or the shape of the message).
struct ErrorGroup {
  std::vector<const Result*> results;
  bool crash = false;
  std::pair<const SettingSymptom*, const EnvVar*> setting{nullptr, nullptr};  ///< "setting:" groups
};

/// The failing items by cause, keyed "setting:NAME", "cause:ID",
/// "status:crashed", "message:SHAPE".
std::map<std::string, ErrorGroup> group_errors(const Ctx& c) {
  std::map<std::string, ErrorGroup> groups;
  for (const auto& r : c.report.results) {
    if (r.status != Status::error && r.status != Status::crashed && r.status != Status::hung) continue;
    std::string id;
    const auto setting = setting_behind(c, r);
    if (setting.first) {
      // A set variable explains it (issue 18): say so before any device or
      // build explanation.
      id = "setting:" + setting.second->name;
    } else if (r.error && !r.error->cause_id.empty()) {
      id = "cause:" + r.error->cause_id;
    } else if (r.status == Status::crashed || r.status == Status::hung) {
      id = std::string("status:") + std::string(to_string(r.status));
    } else {
      id = "message:" + normalise_message(r.error ? r.error->message : r.reason);
    }
    auto& g = groups[id];
    if (setting.first) g.setting = setting;
    g.results.push_back(&r);
    g.crash = g.crash || r.status == Status::crashed || r.status == Status::hung;
  }
  return groups;
}

/// Unrecognised one-off errors go into one finding, so they do not bury the
/// rest: takes them out of `groups` when there are two or more.
void one_off_errors(std::map<std::string, ErrorGroup>& groups, std::vector<Finding>& out) {
  std::vector<const Result*> singles;
  for (const auto& [id, g] : groups) {
    if (starts_with(id, "message:") && g.results.size() == 1) singles.push_back(g.results.front());
  }
  if (singles.size() < 2) return;
  for (auto it = groups.begin(); it != groups.end();) {
    it = starts_with(it->first, "message:") && it->second.results.size() == 1 ? groups.erase(it)
                                                                              : std::next(it);
  }
  std::vector<std::string> lines;
  for (const auto* r : singles) {
    const std::string m = first_line(r->error && !r->error->message.empty() ? r->error->message : r->reason);
    lines.push_back(fmt::format("{}: {}", r->key, m.size() > 140 ? m.substr(0, 137) + "..." : m));
  }
  out.push_back(make_finding(
      "op_errors", Severity::warning, 50 + std::min<double>(10, singles.size()),
      fmt::format("{} more checks fail with errors the knowledge base does not recognise", singles.size()),
      list_some(lines, 6),
      "These operations cannot run on this device as built: code that uses them fails, or has to move the "
      "data "
      "to the CPU.",
      "Run `accel-doctor explain` on each message (the JSON report keeps the full text under "
      "evidence.error_full); if one is not recognised, report it with the JSON report attached",
      kRefExplain));
}

/// A group a set variable explains.
Finding setting_finding(const Ctx& c, const ErrorGroup& g, Severity severity,
                        const std::vector<std::string>& keys, const std::string& message) {
  const Result& first = *g.results.front();
  const SettingSymptom& s = *g.setting.first;
  const EnvVar& v = *g.setting.second;
  std::string fix = unset_var_advice(c.platform, v.name);
  if (!s.fix.empty()) fix += "; " + s.fix;
  return make_finding(
      "setting_breaks_checks", severity,
      (severity == Severity::critical ? 90 : 60) + std::min<double>(5, keys.size()),
      fmt::format("{} {} {} because {}={} is set", g.results.size(),
                  g.results.size() == 1 ? "check" : "checks",
                  g.crash ? (first.status == Status::hung ? "hang" : "crash") : "fail", v.name, v.value),
      fmt::format("{}; {}={} in the environment; first message: {}", list_some(keys, 6), v.name, v.value,
                  message.substr(0, 300)),
      s.effect + " The device is not the cause: without the setting these operations run.", fix,
      s.source.empty() ? std::string("kb/rules.json setting_symptoms (accel-doctor)") : s.source);
}

/// The title of a group: its kb cause, the crash or hang, or the message.
std::string error_group_title(const ErrorGroup& g, const std::string& message) {
  const Result& first = *g.results.front();
  const std::size_t n = g.results.size();
  if (first.error && !first.error->cause_id.empty()) {
    return fmt::format("{} {} fail{}: {}", n, n == 1 ? "check" : "checks", n == 1 ? "s" : "",
                       first.error->cause);
  }
  if (g.crash) {
    return fmt::format("{} {} {} the worker", n, n == 1 ? "check" : "checks",
                       first.status == Status::hung ? "hung" : "crashed");
  }
  std::string shown = message;
  if (shown.size() > 90) {
    const auto cut = shown.rfind(' ', 90);
    shown = shown.substr(0, cut == std::string::npos || cut < 40 ? 90 : cut) + "…";
  }
  return fmt::format("{} {} fail{} with: {}", n, n == 1 ? "check" : "checks", n == 1 ? "s" : "", shown);
}

Finding error_group_finding(const ErrorGroup& g, Severity severity, const std::vector<std::string>& keys,
                            const std::string& message) {
  const Result& first = *g.results.front();
  const bool recognised = first.error && !first.error->cause_id.empty();
  std::string fix =
      recognised && !first.error->fix.empty()
          ? first.error->fix
          : "Run `accel-doctor explain` on the full message (the JSON report keeps it under "
            "evidence.error_full); if it is not recognised, report it with the JSON report attached";
  return make_finding(
      "op_errors", severity,
      (severity == Severity::critical ? 85 : 55) + std::min<double>(10, g.results.size()),
      error_group_title(g, message),
      fmt::format("{}; first message: {}", list_some(keys, 6), message.substr(0, 300)),
      recognised
          ? first.error->cause
          : "These operations cannot run on this device as built: code that uses them fails, or has to "
            "move the data to the CPU.",
      fix, recognised && !first.error->reference.empty() ? first.error->reference : kRefExplain);
}

}  // namespace

void rule_errors(const Ctx& c, std::vector<Finding>& out) {
  std::size_t checks = 0;
  for (const auto& r : c.report.results) checks += r.kind == ResultKind::check;
  std::map<std::string, ErrorGroup> groups = group_errors(c);
  one_off_errors(groups, out);
  for (const auto& [id, g] : groups) {
    const Result& first = *g.results.front();
    std::vector<std::string> keys;
    for (const auto* r : g.results) keys.push_back(r->key);
    const std::string message =
        first_line(first.error && !first.error->message.empty() ? first.error->message : first.reason);
    const double share = checks > 0 ? static_cast<double>(g.results.size()) / checks : 0;
    const Severity severity = g.crash || share >= 0.25 ? Severity::critical : Severity::warning;
    out.push_back(g.setting.first ? setting_finding(c, g, severity, keys, message)
                                  : error_group_finding(g, severity, keys, message));
  }
}

void rule_wrong_results(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> keys;
  std::string detail;
  bool serious = false;  // a wrong fp32/fp64/integer result, or any wrong result on an accelerator
  for (const auto& r : c.report.results) {
    if (r.status != Status::mismatch) continue;
    keys.push_back(r.key);
    if (detail.empty()) detail = r.reason.empty() && r.accuracy ? r.accuracy->detail : r.reason;
    serious = serious || (r.device != "cpu" && !r.device.empty()) || (r.dtype != "fp16" && r.dtype != "bf16");
  }
  if (keys.empty()) return;
  // Half-precision kernels on the CPU are rarely used and often less accurate
  // than the reference tolerance: worth knowing, not the first thing to fix.
  out.push_back(make_finding(
      "wrong_results", serious ? Severity::critical : Severity::warning,
      (serious ? 88 : 52) + std::min<double>(10, keys.size()),
      fmt::format("{} {} wrong results", keys.size(), keys.size() == 1 ? "check gives" : "checks give"),
      fmt::format("{}; e.g. {}", list_some(keys, 6), detail),
      serious ? "A wrong answer is worse than an error: training diverges or inference degrades silently. On "
                "a GPU "
                "this points at a driver, runtime or library bug, an unsafe override "
                "(HSA_OVERRIDE_GFX_VERSION), or a "
                "kernel with too little precision for the dtype."
              : "Half-precision CPU kernels that accumulate in fp16/bf16 lose accuracy (or overflow) on "
                "large inputs; "
                "code that runs these ops in fp16/bf16 on the CPU gets the same wrong numbers.",
      serious ? "Update the driver and torch; rerun the failing checks in fp32 to see whether only low "
                "precision is "
                "affected (accel-doctor ops --filter <name>); if they still fail, report them with the JSON "
                "report"
              : "Keep these ops in fp32 on the CPU (autocast on the CPU does so for most of them), or update "
                "torch",
      kRefExplain));
}

void rule_off_device(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> keys;
  for (const auto& r : c.report.results) {
    if (r.status == Status::off_device) keys.push_back(r.key);
  }
  if (keys.empty()) return;
  out.push_back(make_finding(
      "off_device", Severity::warning, 60,
      fmt::format("{} {} returned tensors on another device", keys.size(),
                  keys.size() == 1 ? "check" : "checks"),
      list_some(keys, 6),
      "The output left the device: the op ran (at least partly) elsewhere, and every later op pays a copy.",
      "Keep the inputs and the op on the device; check for .cpu()/.numpy() calls and for backend fallbacks "
      "(PYTORCH_ENABLE_MPS_FALLBACK on macOS)",
      kRefExplain));
}

void rule_cpu_fallback(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> keys, announced;
  double cost = 0, device_time = 0;
  int h2d = 0, d2h = 0;
  for (const auto& r : c.report.results) {
    if (!r.profile || r.profile->where != Where::cpu_fallback) continue;
    // ONNX Runtime rows have their own finding with node counts (ort_cpu_fallback).
    if (starts_with(r.key, "ort/") || starts_with(r.key, "bench/ort-")) continue;
    std::string k = r.key;
    // Announced by the backend (torch-directml's warning): the ops' own time;
    // else seen by the profiler: the copies' time.
    const bool by_announcement = !r.profile->fallback_ops.empty();
    for (const auto& op : r.profile->fallback_ops) {
      if (std::find(announced.begin(), announced.end(), op.op) == announced.end()) announced.push_back(op.op);
    }
    if (r.profile->fallback_cost_us > 0)
      k += fmt::format(" ({} {})", rate(r.profile->fallback_cost_us, "µs"),
                       by_announcement ? "on the CPU" : "of copies");
    keys.push_back(k);
    cost += r.profile->fallback_cost_us;
    h2d += r.profile->h2d_count;
    d2h += r.profile->d2h_count;
    if (r.timing) device_time += r.timing->median_us;
  }
  if (keys.empty()) return;
  std::string evidence = fmt::format("{} {} ran on the CPU with device inputs: {}", keys.size(),
                                     keys.size() == 1 ? "operation" : "operations", list_some(keys, 6));
  if (!announced.empty()) {
    evidence += fmt::format("; the backend announced these ops on the CPU: {}", list_some(announced, 8));
  }
  if (h2d + d2h > 0) evidence += fmt::format("; {} host-to-device and {} device-to-host copies", h2d, d2h);
  if (cost > 0) {
    evidence +=
        fmt::format(", {} of {} time per call", rate(cost, "µs"), announced.empty() ? "copy" : "fallback");
    if (device_time > 0)
      evidence += fmt::format(" ({} of their total time)", pct(100 * std::min(1.0, cost / device_time)));
  }
  std::string fix;
  if (c.platform.backend == "mps") {
    fix =
        "These ops have no Metal kernel in this torch: update torch (each release adds MPS kernels); "
        "PYTORCH_ENABLE_MPS_FALLBACK=1 only hides the fallback; keep them out of the hot loop or do them "
        "before moving data to the GPU";
  } else if (c.platform.backend == "directml") {
    fix =
        "These ops have no DirectML kernel: update torch-directml, replace them with supported ops (basic "
        "arithmetic, exp/log, matmul, conv), or do them once outside the training loop";
  } else {
    fix =
        "Update torch (device kernels are added release by release) or replace the op; until then keep it "
        "out "
        "of the hot loop";
  }
  out.push_back(
      make_finding("cpu_fallback", Severity::warning, 50 + std::min<double>(20, keys.size() * 2),
                   fmt::format("{} {} silently fall{} back to the CPU", keys.size(),
                               keys.size() == 1 ? "operation" : "operations", keys.size() == 1 ? "s" : ""),
                   evidence,
                   "Each call copies its inputs to the host, computes on the CPU and copies back, and the "
                   "device waits: the "
                   "op costs the round trip plus CPU time, and the GPU looks busy in code that is not.",
                   fix, "https://pytorch.org/docs/stable/notes/mps.html"));
}

}  // namespace accel::rules::health
