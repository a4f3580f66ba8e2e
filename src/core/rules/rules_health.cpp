// Health rules: failing checks grouped by cause, wrong results, work that
// left the device, CPU fallbacks, measurements that cannot be trusted (noise,
// figures above peak), and the state of the host and the GPU (threads,
// governor, other processes, PCIe link, throttling, slow debug settings).
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/ceilings.hpp"
#include "core/roofline.hpp"
#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

/// Share of timed results that must be noisy before the whole run is doubted.
constexpr double kNoisyShare = 0.25;
constexpr std::size_t kNoisyMin = 5;

constexpr const char* kRefExplain = "docs/knowledge-base.md (accel-doctor explain)";
constexpr const char* kRefBenchmark = "https://pytorch.org/docs/stable/benchmark_utils.html";

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

/// Groups unrecognised messages that differ only in numbers and dtype names.
std::string normalise_message(const std::string& message) {
  static const std::regex kNumbers("[0-9]+");
  static const std::regex kDtypes(
      "\\b(Half|BFloat16|Float|Double|ComplexHalf|ComplexFloat|Long|Int|Short|Char|Byte|Bool|float16|"
      "bfloat16|"
      "float32|float64|half|CPUBFloat16Type|CPUHalfType|CUDABFloat16Type|CUDAHalfType)\\b");
  std::string s = std::regex_replace(first_line(message), kDtypes, "<dtype>");
  s = std::regex_replace(s, kNumbers, "#");
  return s.substr(0, 120);
}

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

void rule_errors(const Ctx& c, std::vector<Finding>& out) {
  struct Group {
    std::vector<const Result*> results;
    bool crash = false;
  };
  std::map<std::string, Group> groups;
  std::map<std::string, std::pair<const SettingSymptom*, const EnvVar*>> settings;  // group id -> setting
  std::size_t checks = 0;
  for (const auto& r : c.report.results) {
    if (r.kind == ResultKind::check) ++checks;
    if (r.status != Status::error && r.status != Status::crashed && r.status != Status::hung) continue;
    std::string id;
    if (const auto setting = setting_behind(c, r); setting.first) {
      // A set variable explains it (issue 18): say so before any device or
      // build explanation.
      id = "setting:" + setting.second->name;
      settings[id] = setting;
    } else if (r.error && !r.error->cause_id.empty()) {
      id = "cause:" + r.error->cause_id;
    } else if (r.status == Status::crashed || r.status == Status::hung) {
      id = std::string("status:") + std::string(to_string(r.status));
    } else {
      id = "message:" + normalise_message(r.error ? r.error->message : r.reason);
    }
    auto& g = groups[id];
    g.results.push_back(&r);
    g.crash = g.crash || r.status == Status::crashed || r.status == Status::hung;
  }
  // Unrecognised one-off errors go into one finding, so they do not bury the rest.
  std::vector<const Result*> singles;
  for (const auto& [id, g] : groups) {
    if (starts_with(id, "message:") && g.results.size() == 1) singles.push_back(g.results.front());
  }
  if (singles.size() >= 2) {
    for (auto it = groups.begin(); it != groups.end();) {
      it = starts_with(it->first, "message:") && it->second.results.size() == 1 ? groups.erase(it)
                                                                                : std::next(it);
    }
    std::vector<std::string> lines;
    for (const auto* r : singles) {
      const std::string m =
          first_line(r->error && !r->error->message.empty() ? r->error->message : r->reason);
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
  for (const auto& [id, g] : groups) {
    const Result& first = *g.results.front();
    std::vector<std::string> keys;
    for (const auto* r : g.results) keys.push_back(r->key);
    const std::string message =
        first_line(first.error && !first.error->message.empty() ? first.error->message : first.reason);
    const double share = checks > 0 ? static_cast<double>(g.results.size()) / checks : 0;
    const Severity severity = g.crash || share >= 0.25 ? Severity::critical : Severity::warning;
    if (const auto it = settings.find(id); it != settings.end()) {
      const SettingSymptom& s = *it->second.first;
      const EnvVar& v = *it->second.second;
      std::string fix = unset_var_advice(c.platform, v.name);
      if (!s.fix.empty()) fix += "; " + s.fix;
      out.push_back(make_finding(
          "setting_breaks_checks", severity,
          (severity == Severity::critical ? 90 : 60) + std::min<double>(5, keys.size()),
          fmt::format("{} {} {} because {}={} is set", g.results.size(),
                      g.results.size() == 1 ? "check" : "checks",
                      g.crash ? (first.status == Status::hung ? "hang" : "crash") : "fail", v.name, v.value),
          fmt::format("{}; {}={} in the environment; first message: {}", list_some(keys, 6), v.name, v.value,
                      message.substr(0, 300)),
          s.effect + " The device is not the cause: without the setting these operations run.", fix,
          s.source.empty() ? std::string("kb/rules.json setting_symptoms (accel-doctor)") : s.source));
      continue;
    }
    const bool recognised = first.error && !first.error->cause_id.empty();
    std::string title;
    if (recognised) {
      title = fmt::format("{} {} fail{}: {}", g.results.size(), g.results.size() == 1 ? "check" : "checks",
                          g.results.size() == 1 ? "s" : "", first.error->cause);
    } else if (g.crash) {
      title = fmt::format("{} {} {} the worker", g.results.size(), g.results.size() == 1 ? "check" : "checks",
                          first.status == Status::hung ? "hung" : "crashed");
    } else {
      std::string shown = message;
      if (shown.size() > 90) {
        const auto cut = shown.rfind(' ', 90);
        shown = shown.substr(0, cut == std::string::npos || cut < 40 ? 90 : cut) + "…";
      }
      title =
          fmt::format("{} {} fail{} with: {}", g.results.size(), g.results.size() == 1 ? "check" : "checks",
                      g.results.size() == 1 ? "s" : "", shown);
    }
    std::string fix =
        recognised && !first.error->fix.empty()
            ? first.error->fix
            : "Run `accel-doctor explain` on the full message (the JSON report keeps it under "
              "evidence.error_full); if it is not recognised, report it with the JSON report attached";
    out.push_back(make_finding(
        "op_errors", severity,
        (severity == Severity::critical ? 85 : 55) + std::min<double>(10, g.results.size()), title,
        fmt::format("{}; first message: {}", list_some(keys, 6), message.substr(0, 300)),
        recognised
            ? first.error->cause
            : "These operations cannot run on this device as built: code that uses them fails, or has to "
              "move the data to the CPU.",
        fix, recognised && !first.error->reference.empty() ? first.error->reference : kRefExplain));
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

// ---------------------------------------------------------------- trust in the numbers

void rule_noisy(const Ctx& c, std::vector<Finding>& out) {
  std::size_t timed = 0, noisy = 0, budget = 0;
  const Result* worst = nullptr;
  double worst_riqr = 0;
  for (const auto& r : c.report.results) {
    if (!r.timing || r.timing->median_us <= 0) continue;
    ++timed;
    if (r.timing->noisy) ++noisy;
    if (r.timing->budget_exhausted) ++budget;
    const double riqr = r.timing->iqr_us / r.timing->median_us;
    if (r.timing->noisy && riqr > worst_riqr) {
      worst_riqr = riqr;
      worst = &r;
    }
  }
  const std::size_t bad = std::max(noisy, budget);
  if (timed == 0 || bad < kNoisyMin || static_cast<double>(bad) / timed < kNoisyShare) return;
  std::string evidence = fmt::format("{} of {} timings are noisy (IQR > 10% of the median)", noisy, timed);
  if (budget > 0)
    evidence += fmt::format(", {} stopped at the time budget before the spread settled", budget);
  if (worst) {
    evidence += fmt::format("; worst: {} at {} ± {}", worst->key, rate(worst->timing->median_us, "µs"),
                            pct(100 * worst_riqr));
  }
  std::string fix =
      "Rerun on an idle machine: close other programs (and other jobs on the GPU), plug a laptop in";
  if (c.platform.os == "windows") {
    fix += ", select the Best performance power mode";
  } else if (c.platform.os == "linux" || c.platform.os == "wsl") {
    fix += ", use the performance CPU governor (sudo cpupower frequency-set -g performance)";
  }
  fix +=
      "; avoid --quick when comparing runs; compare only differences larger than the IQRs (accel-doctor "
      "compare "
      "does)";
  out.push_back(make_finding("noisy_results", Severity::warning, 45 + 20 * static_cast<double>(bad) / timed,
                             "Timings are too noisy to trust", evidence,
                             "With this much spread, speed-ups, % of peak and comparisons between runs "
                             "reflect the load on the machine "
                             "as much as the hardware.",
                             fix, kRefBenchmark));
}

void rule_above_peak(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> suspect, cached;
  const Result* worst = nullptr;
  for (const auto& r : c.report.results) {
    if (!r.roofline || !r.roofline->above_peak) continue;
    if (above_peak_from_cache(r)) {
      cached.push_back(r.key);
      continue;
    }
    suspect.push_back(fmt::format("{} ({} of bound)", r.key, pct(r.roofline->percent_of_bound)));
    if (!worst || r.roofline->percent_of_bound > worst->roofline->percent_of_bound) worst = &r;
  }
  for (const auto& r : c.report.results) {
    for (const char* m : {"decode_roofline_pct", "prefill_roofline_pct"}) {
      const auto it = r.metrics.find(m);
      if (it != r.metrics.end() && it->second > 100 * kAbovePeakFactor) {
        suspect.push_back(fmt::format("{} ({} {})", r.key, m, pct(it->second)));
      }
    }
  }
  if (!suspect.empty()) {
    std::string evidence = list_some(suspect, 5);
    if (worst) {
      evidence +=
          fmt::format("; e.g. {} measured {} against a bound of {} ({})", worst->key,
                      worst->roofline->achieved_tflops > 0 ? rate(worst->roofline->achieved_tflops, "TFLOP/s")
                                                           : rate(worst->roofline->achieved_gbps, "GB/s"),
                      worst->roofline->bound_tflops > 0 ? rate(worst->roofline->bound_tflops, "TFLOP/s")
                                                        : rate(worst->roofline->bandwidth_gbps, "GB/s"),
                      worst->roofline->peak_source);
    }
    out.push_back(make_finding(
        "above_peak", Severity::warning, 42,
        fmt::format("{} {} above the hardware's peak: likely timing errors, not results", suspect.size(),
                    suspect.size() == 1 ? "figure is" : "figures are"),
        evidence,
        "Nothing runs faster than the hardware allows: a figure above 105% of the bound means the timer "
        "stopped "
        "before the device finished (a missing synchronisation), a cached or skipped computation, a wrong "
        "work "
        "formula, or a wrong peak for this device (clock above the rated boost, wrong table row).",
        "Treat these figures as invalid; rerun them (accel-doctor bench --filter <key>); if they stay above "
        "peak, "
        "report them with the JSON report so the timer or the peak table can be fixed",
        "docs/roofline.md (the 105% rule)"));
  }
  if (!cached.empty()) {
    out.push_back(make_finding(
        "above_peak_cached", Severity::info, 4,
        fmt::format("{} small {} beat the measured memory bandwidth: their data sits in caches",
                    cached.size(), cached.size() == 1 ? "check" : "checks"),
        fmt::format("{} (working sets <= 256 MiB, bounded by the DRAM bandwidth measured in this run)",
                    list_some(cached, 4)),
        "The roofline's memory roof is the DRAM bandwidth; data that fits in the caches moves faster, so % "
        "of bound "
        "says nothing for these checks (their timings are still valid).",
        "Nothing to fix; judge memory-bound performance by the bench memory rows (accel-doctor bench "
        "--filter "
        "memory)",
        "docs/roofline.md"));
  }
}

// ---------------------------------------------------------------- host

std::optional<int> env_int(const Ctx& c, const char* name) {
  const EnvVar* v = c.env_var(name);
  if (!v) return std::nullopt;
  try {
    std::size_t pos = 0;
    const int n = std::stoi(v->value, &pos);
    if (pos == 0) return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// CPUs this process may use: its affinity mask and cgroup CPU quota (rounded
/// up), whichever is smaller; nullopt when neither was read.
std::optional<int> usable_cpus(const HostInfo& h) {
  std::optional<int> n = h.affinity_cpus;
  if (h.cpu_quota_cpus && *h.cpu_quota_cpus > 0) {
    const int q = static_cast<int>(std::ceil(*h.cpu_quota_cpus - 1e-9));
    n = std::min(n.value_or(q), q);
  }
  return n;
}

/// A process limited to part of the machine's CPUs (affinity, cgroup quota).
void rule_host_cpu_limited(const Ctx& c, std::vector<Finding>& out) {
  const auto& h = c.env.host;
  const auto usable = usable_cpus(h);
  if (!usable || !h.logical_cores || *usable >= *h.logical_cores) return;
  const int logical = *h.logical_cores;
  std::vector<std::string> by;
  if (h.affinity_cpus && *h.affinity_cpus < logical)
    by.push_back(fmt::format("CPU affinity {} ({} CPUs)", h.affinity_list, *h.affinity_cpus));
  if (h.cpu_quota_cpus && *h.cpu_quota_cpus < logical)
    by.push_back(fmt::format("cgroup CPU quota {:.2g} CPUs", *h.cpu_quota_cpus));
  const bool severe = *usable * 2 <= logical;
  std::string evidence =
      fmt::format("{} of {} logical CPUs usable: {}", *usable, logical, fmt::join(by, "; "));
  if (c.env.torch.intra_op_threads)
    evidence += fmt::format("; torch intra-op threads {}", *c.env.torch.intra_op_threads);
  const bool over = c.env.torch.intra_op_threads && *c.env.torch.intra_op_threads > *usable;
  if (over) evidence += " (more threads than usable CPUs: they preempt each other)";
  out.push_back(make_finding(
      "host_cpu_limited", severe || over ? Severity::warning : Severity::info,
      severe ? (c.target_is_cpu() ? 62 : 42) : 14,
      fmt::format("This process may use {} of the machine's {} CPUs", *usable, logical), evidence,
      c.target_is_cpu()
          ? "Every CPU figure of this run (GEMM rate, bandwidth, operator times) describes that part of the "
            "machine, and models run at that speed."
          : "The host side of GPU work runs on these CPUs: kernel launches, data loading and augmentation, "
            "operators that fall back to the CPU, and the CPU baseline of every speed-up this report shows. "
            "Too "
            "few CPUs leave the GPU waiting for input.",
      "The launcher or container set it: taskset / numactl, docker run --cpus / --cpuset-cpus, a Kubernetes "
      "CPU limit, Slurm --cpus-per-task; give the job more CPUs, or if the limit is meant, match torch's "
      "threads and DataLoader num_workers to it (torch.set_num_threads)",
      "https://docs.kernel.org/admin-guide/cgroup-v2.html#cpu"));
}

void rule_threads(const Ctx& c, std::vector<Finding>& out) {
  const auto& h = c.env.host;
  const auto threads = c.env.torch.intra_op_threads;
  if (!threads || !h.logical_cores || *threads <= 0) return;
  const int t = *threads, logical = *h.logical_cores;
  const int physical = h.physical_cores.value_or(0);
  // A BLAS thread pool of its own nests inside each intra-op thread.
  std::optional<int> blas;
  std::string blas_var;
  for (const char* n : {"OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const auto v = env_int(c, n);
    if (!v) continue;
    if (std::string(n) == "OMP_NUM_THREADS" && *v == t) continue;  // torch took its count from it
    blas = v;
    blas_var = n;
    break;
  }
  std::string fix = fmt::format(
      "Use at most one thread per physical core in total: torch.set_num_threads({}) or OMP_NUM_THREADS={}; "
      "with several worker processes divide the cores between them (e.g. torchrun sets OMP_NUM_THREADS=1 per "
      "process), and leave the BLAS pool at 1 inside torch's threads (OPENBLAS_NUM_THREADS=1 / "
      "MKL_NUM_THREADS=1)",
      physical > 0 ? physical : logical, physical > 0 ? physical : logical);
  const std::string why =
      "More runnable threads than cores make them preempt each other and thrash the caches; spinning OpenMP "
      "threads then waste whole time slices, so CPU work gets slower, not faster.";
  if (t > logical) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::warning, c.target_is_cpu() ? 60 : 30,
        fmt::format("torch uses {} threads on {} logical cores", t, logical),
        fmt::format(
            "intra-op threads {}, logical cores {}, physical {}{}", t, logical,
            physical > 0 ? std::to_string(physical) : "?",
            c.env_var("OMP_NUM_THREADS") ? ", OMP_NUM_THREADS=" + c.env_var("OMP_NUM_THREADS")->value : ""),
        why, fix, "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (blas && *blas > 1 && t > 1 && t * *blas > logical) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::warning, c.target_is_cpu() ? 55 : 25,
        fmt::format("{} intra-op threads x {}={} = {} threads on {} logical cores", t, blas_var, *blas,
                    t * *blas, logical),
        fmt::format("torch intra-op threads {}, {}={}, logical cores {}", t, blas_var, *blas, logical), why,
        fix, "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (physical > 0 && t > physical && logical > physical && c.target_is_cpu()) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::info, 12,
        fmt::format("torch uses {} threads on {} physical cores (SMT siblings)", t, physical),
        fmt::format("intra-op threads {}, physical cores {}, logical {}", t, physical, logical),
        "Two threads on one core share its vector units: compute-bound ops (GEMM, convolution) rarely gain "
        "and "
        "often lose from SMT threads.",
        fmt::format("Try torch.set_num_threads({}) (or OMP_NUM_THREADS={}) and compare", physical, physical),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  // The other way round: cores torch leaves idle. On a CPU run every figure
  // is the CPU's; on a GPU run the host side (CPU fallbacks, the CPU twin of
  // every speed-up, preprocessing in the process) runs on these threads.
  const int cores = std::min(physical > 0 ? physical : logical, usable_cpus(h).value_or(logical));
  if (!c.target_is_cpu() && t * 2 <= cores && cores >= 4) {
    const EnvVar* omp = c.env_var("OMP_NUM_THREADS");
    out.push_back(make_finding(
        "thread_undersubscription", Severity::warning, 35,
        fmt::format("torch uses {} of {} cores for its CPU work", t, cores),
        fmt::format("intra-op threads {}, physical cores {}, logical {}{}", t,
                    physical > 0 ? std::to_string(physical) : "?", logical,
                    omp ? ", OMP_NUM_THREADS=" + omp->value : ""),
        "The GPU does the model's work, but the host side runs on these threads: operators that fall back to "
        "the CPU, tensors prepared in the process, and the CPU baseline of every speed-up this report shows "
        "(measured on a fraction of the machine, so the speed-ups are inflated).",
        omp ? fmt::format(
                  "OMP_NUM_THREADS={} limits it (launchers such as torchrun set 1 per process): raise it "
                  "to {} / number of processes, or unset it",
                  omp->value, cores)
            : fmt::format("torch.set_num_threads({}) at start-up, or OMP_NUM_THREADS={}", cores, cores),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (c.target_is_cpu() && t < cores) {
    const EnvVar* omp = c.env_var("OMP_NUM_THREADS");
    out.push_back(make_finding(
        "thread_undersubscription", t * 2 <= cores ? Severity::warning : Severity::info,
        t * 2 <= cores ? 45 : 12, fmt::format("torch uses {} of {} cores", t, cores),
        fmt::format("intra-op threads {}, physical cores {}, logical {}{}", t,
                    physical > 0 ? std::to_string(physical) : "?", logical,
                    omp ? ", OMP_NUM_THREADS=" + omp->value : ""),
        "Every CPU op (GEMM, convolution, elementwise) runs on that many threads only: the other cores idle, "
        "and the CPU's speed-up baseline and peak figures describe a part of the machine.",
        omp ? fmt::format("OMP_NUM_THREADS={} limits it: raise it to {} (or unset it), or "
                          "torch.set_num_threads({}) at start-up",
                          omp->value, cores, cores)
            : fmt::format("torch.set_num_threads({}) at start-up (or OMP_NUM_THREADS={}); a container or job "
                          "scheduler may cap the CPUs torch detects (check os.sched_getaffinity(0))",
                          cores, cores),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
  }
}

void rule_governor(const Ctx& c, std::vector<Finding>& out) {
  const std::string g = lower(c.env.host.cpu_governor);
  if (g.empty()) return;
  const bool powersave = g == "powersave" || g.find("power saver") != std::string::npos ||
                         g.find("battery saver") != std::string::npos ||
                         g.find("energy saver") != std::string::npos ||
                         g.find("low power") != std::string::npos;
  if (!powersave) return;
  std::string fix;
  if (c.platform.os == "windows") {
    fix =
        "Settings > System > Power & battery > Power mode: Best performance (or powercfg /setactive "
        "SCHEME_MIN "
        "for the High performance plan); plug the laptop in";
  } else if (c.platform.os == "macos") {
    fix =
        "Turn Low Power Mode off (System Settings > Battery, or sudo pmset -a lowpowermode 0); plug the "
        "laptop in";
  } else {
    fix =
        "sudo cpupower frequency-set -g performance (Debian/Ubuntu: apt install linux-cpupower; Fedora: dnf "
        "install kernel-tools), or powerprofilesctl set performance where power-profiles-daemon runs; on "
        "intel_pstate/amd-pstate with HWP 'powersave' still boosts, so check the measured clocks first";
  }
  const bool cpu_target = c.target_is_cpu();
  out.push_back(make_finding(
      "cpu_power_saving", cpu_target ? Severity::warning : Severity::info, cpu_target ? 40 : 12,
      fmt::format("The CPU runs the '{}' power policy", c.env.host.cpu_governor),
      fmt::format("CPU frequency governor / power plan: {}{}", c.env.host.cpu_governor,
                  c.env.host.cpu_max_mhz ? fmt::format(" (max {:.0f} MHz)", *c.env.host.cpu_max_mhz) : ""),
      cpu_target
          ? "A power-saving policy keeps clocks low and ramps them slowly: CPU work runs slower and its "
            "timings vary."
          : "The host feeds the GPU (Python, kernel launches, data loading): slow CPU clocks make "
            "launch-bound "
            "work slower and timings noisier.",
      fix, "https://docs.kernel.org/admin-guide/pm/cpufreq.html"));
}

// ---------------------------------------------------------------- GPU state

void rule_gpu_processes(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& g : c.env.gpus) {
    if (!g.vendor_info.is_object() || !g.vendor_info.contains("nvml")) continue;
    const json& n = g.vendor_info["nvml"];
    if (!n.is_object() || !n.contains("other_compute_processes") || !n["other_compute_processes"].is_number())
      continue;
    const int others = n["other_compute_processes"].get<int>();
    if (others <= 0) continue;
    std::string evidence = fmt::format("{} other process{} with a compute context on {}", others,
                                       others == 1 ? "" : "es", g.name.empty() ? g.pci_address : g.name);
    if (n.contains("compute_process_pids") && n["compute_process_pids"].is_array()) {
      std::vector<std::string> pids;
      for (const auto& p : n["compute_process_pids"]) pids.push_back(p.dump());
      evidence += " (pids " + list_some(pids, 6) + ")";
    }
    if (n.contains("utilization_gpu_percent") && n["utilization_gpu_percent"].is_number()) {
      evidence +=
          fmt::format("; GPU utilisation {}% before the run", n["utilization_gpu_percent"].get<double>());
    }
    if (n.contains("memory_used_bytes") && n["memory_used_bytes"].is_number() &&
        n.contains("memory_total_bytes") && n["memory_total_bytes"].is_number() &&
        n["memory_total_bytes"].get<double>() > 0) {
      evidence += fmt::format(", memory {:.0f}% in use", 100 * n["memory_used_bytes"].get<double>() /
                                                             n["memory_total_bytes"].get<double>());
    }
    out.push_back(make_finding(
        "gpu_shared", Severity::warning, 55, "Other processes are using the GPU", evidence,
        "The GPU's time and memory are shared: every measurement (and your job) gets "
        "only part of the device, and "
        "the numbers vary with the other work.",
        c.platform.os == "windows" ? "Task Manager > Details, GPU column (or nvidia-smi) shows them; close "
                                     "them, or run on another GPU"
                                   : "nvidia-smi --query-compute-apps=pid,process_name,used_memory "
                                     "--format=csv lists them; stop them or "
                                     "use another GPU (CUDA_VISIBLE_DEVICES); on a shared server ask the "
                                     "scheduler for an exclusive GPU",
        "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
  }
}

void rule_pcie(const Ctx& c, std::vector<Finding>& out) {
  // Best pinned host->device rate of the run, if any.
  double pinned = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || r.status != Status::ok) continue;
    const auto k = BenchKey::parse(r.key);
    if (k && k->group == "transfer" && k->name == "h2d_pinned") {
      const auto it = r.metrics.find("gbps");
      if (it != r.metrics.end()) pinned = std::max(pinned, it->second);
    }
  }
  for (const auto& g : c.env.gpus) {
    const std::optional<PcieLink> host = host_link_of(g);  // the slot's link on boards with a switch
    if (!host || g.integrated.value_or(false)) continue;
    const PcieLink& l = *host;
    const std::string name = g.name.empty() ? g.pci_address : g.name;
    if (l.current_width && l.max_width && *l.current_width > 0 && *l.current_width < *l.max_width) {
      out.push_back(make_finding(
          "pcie_link_degraded", Severity::warning, 45,
          fmt::format("{} runs its PCIe link at x{} of x{}", name, *l.current_width, *l.max_width),
          fmt::format(
              "PCIe link {} x{} (the device supports {} x{}){}", l.current_speed, *l.current_width,
              l.max_speed, *l.max_width,
              pinned > 0 ? fmt::format("; pinned host-to-device copies reach {}", rate(pinned, "GB/s")) : ""),
          "Fewer lanes divide host<->device bandwidth (data loading, CPU offload, copies of results) by the "
          "same "
          "factor; lanes do not drop at idle, so this is the slot, a riser, or a bad seat.",
          "Move the card to a full x16 slot wired to the CPU (see the board manual: M.2 drives and a second "
          "card "
          "often halve a slot), reseat it and check risers; lspci -vv (LnkSta) or nvidia-smi -q -d PCIE "
          "confirms",
          "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
      continue;
    }
    const double cur = pcie_gts(l.current_speed), max = pcie_gts(l.max_speed);
    if (cur > 0 && max > 0 && cur < max && pinned > 0) {
      const int width = l.current_width.value_or(l.max_width.value_or(16));
      const double expected = pcie_lane_gbps(max) * width;
      if (expected > 0 && pinned < 0.5 * expected) {
        out.push_back(make_finding(
            "pcie_link_degraded", Severity::warning, 40,
            fmt::format("{} PCIe link trained at {} of {}, and copies are slow", name, l.current_speed,
                        l.max_speed),
            fmt::format("link {} x{} (max {}); pinned host-to-device copies {} vs ~{} for the maximum link",
                        l.current_speed, width, l.max_speed, rate(pinned, "GB/s"), rate(expected, "GB/s")),
            "GPUs lower the link speed at idle, but copies under load at half the link's rate mean the link "
            "stays "
            "slow: an older slot or chipset lanes, a riser, or BIOS settings.",
            "Check the slot's generation and the BIOS PCIe setting (Auto/Gen4/Gen5), use a slot wired to the "
            "CPU, and "
            "check under load with nvidia-smi -q -d PCIE or lspci -vv (LnkSta)",
            "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
      }
    }
  }
}

void rule_throttled(const Ctx& c, std::vector<Finding>& out) {
  static const std::set<std::string> kBad{"hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown",
                                          "hw_power_brake_slowdown"};
  for (const auto& g : c.env.gpus) {
    if (!g.vendor_info.is_object() || !g.vendor_info.contains("nvml")) continue;
    const json& n = g.vendor_info["nvml"];
    if (!n.is_object() || !n.contains("clocks_event_reasons") || !n["clocks_event_reasons"].is_array())
      continue;
    std::vector<std::string> bad;
    for (const auto& r : n["clocks_event_reasons"]) {
      if (r.is_string() && kBad.count(r.get<std::string>())) bad.push_back(r.get<std::string>());
    }
    if (bad.empty()) continue;
    std::string evidence = fmt::format("NVML reports clock slowdown on {}: {}",
                                       g.name.empty() ? g.pci_address : g.name, list_some(bad));
    if (n.contains("temperature_c") && n["temperature_c"].is_number()) {
      evidence += fmt::format("; temperature {} °C", n["temperature_c"].get<double>());
    }
    if (n.contains("power_w") && n["power_w"].is_number()) {
      evidence += fmt::format(", power {:.0f} W", n["power_w"].get<double>());
      if (n.contains("power_limit_w") && n["power_limit_w"].is_number()) {
        evidence += fmt::format(" of {:.0f} W", n["power_limit_w"].get<double>());
      }
    }
    out.push_back(make_finding("gpu_throttled", Severity::warning, 65,
                               "The GPU is slowing its clocks down (thermal or power protection)", evidence,
                               "A throttled GPU runs at a fraction of its clocks, so everything is slower "
                               "than its datasheet and timings "
                               "drift.",
                               "Check cooling (fans, airflow, dust, case), the power cables and supply; "
                               "nvidia-smi -q -d PERFORMANCE shows "
                               "which reason is active under load",
                               "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"));
  }
}

void rule_slow_env(const Ctx& c, std::vector<Finding>& out) {
  if (!c.options.data) return;
  for (const auto& s : c.options.data->slow_env_vars) {
    const EnvVar* v = c.env_var(s.name);
    if (!v) continue;
    if (!RE2::FullMatch(v->value, s.match)) continue;
    std::string fix = unset_var_advice(c.platform, s.name);
    if (!s.fix.empty()) fix += "; " + s.fix;
    out.push_back(make_finding("slow_setting", s.severity,
                               s.severity == Severity::critical  ? 85
                               : s.severity == Severity::warning ? 50
                                                                 : 10,
                               fmt::format("{}={} slows this run down", s.name, v->value),
                               fmt::format("{}={} is set in the environment", s.name, v->value), s.why, fix,
                               "kb/env_vars.json and kb/rules.json (accel-doctor)"));
  }
}

}  // namespace

std::vector<RuleEntry> health_rules() {
  return {
      {"op_errors",
       "checks with status error/crashed/hung, one finding per kb cause (or per normalised message); "
       "setting_breaks_checks first when a set variable's documented symptom (kb/rules.json "
       "setting_symptoms) is in the failure's text",
       rule_errors},
      {"wrong_results", "checks with status mismatch", rule_wrong_results},
      {"off_device", "checks whose output left the device", rule_off_device},
      {"cpu_fallback", "checks whose profile.where is cpu_fallback, with fallback_cost_us and copy counts",
       rule_cpu_fallback},
      {"noisy_results", ">= 25% (and >= 5) of timings noisy or stopped by the time budget", rule_noisy},
      {"above_peak",
       "roofline.above_peak on a compute roof or a bench row, or an LLM roofline % > 105; small "
       "memory-bound checks above a DRAM roof are info (above_peak_cached)",
       rule_above_peak},
      {"thread_oversubscription",
       "intra-op threads > logical cores, or x BLAS threads > logical cores; info: > "
       "physical cores on a CPU run; thread_undersubscription: on a CPU run fewer intra-op threads than "
       "cores (warning at half or less); on a GPU run half the cores or less (of >= 4)",
       rule_threads},
      {"host_cpu_limited",
       "the process's CPU affinity or cgroup CPU quota allows fewer CPUs than the machine has (warning at "
       "half or "
       "less, or with more torch threads than usable CPUs)",
       rule_host_cpu_limited},
      {"cpu_power_saving", "cpu_governor powersave / a power-saver plan", rule_governor},
      {"gpu_shared", "NVML other_compute_processes > 0", rule_gpu_processes},
      {"pcie_link_degraded",
       "PCIe width below max; or speed below max with pinned copies < 50% of the max link", rule_pcie},
      {"gpu_throttled", "NVML clocks event reasons: hardware/thermal slowdown or power brake",
       rule_throttled},
      {"slow_setting", "an environment variable from kb/rules.json slow_env_vars set to a slowing value",
       rule_slow_env},
  };
}

}  // namespace accel::rules
