// Health rules: measurements that cannot be trusted (noise, figures above peak). Thresholds and shared
// helpers: rules_health_detail.hpp.
#include "core/rules/rules_health_detail.hpp"

namespace accel::rules::health {

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

}  // namespace accel::rules::health
