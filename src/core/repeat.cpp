#include "core/repeat.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/stats.hpp"

namespace accel {

namespace {

double median_of(const std::vector<double>& v) { return quantile(v, 0.5); }

/// The timings of one key's runs merged: median of medians, pooled samples.
Timing merge_timings(const std::vector<const Timing*>& ts) {
  std::vector<double> pooled, medians;
  Timing out = *ts.front();
  double burst = 0;
  for (const Timing* t : ts) {
    pooled.insert(pooled.end(), t->samples_us.begin(), t->samples_us.end());
    medians.push_back(t->median_us);
    out.noisy = out.noisy || t->noisy;
    out.budget_exhausted = out.budget_exhausted || t->budget_exhausted;
    if (t->burst_us > 0) burst = burst > 0 ? std::min(burst, t->burst_us) : t->burst_us;
  }
  out.median_us = median_of(medians);
  out.burst_us = burst;
  if (!pooled.empty()) {
    const Summary s = summarize(pooled);
    out.iqr_us = s.iqr;
    out.min_us = s.min;
    out.max_us = s.max;
    out.noisy = out.noisy || relative_iqr(s) > kNoisyRelativeIqr;
  } else {
    for (const Timing* t : ts) {
      out.min_us = std::min(out.min_us, t->min_us);
      out.max_us = std::max(out.max_us, t->max_us);
    }
  }
  out.samples_us = std::move(pooled);
  return out;
}

Result merge_ok(const std::vector<const Result*>& rs) {
  Result out = *rs.front();
  json rep{{"runs", rs.size()}};
  std::vector<const Timing*> t, ct;
  for (const Result* r : rs) {
    if (r->timing) t.push_back(&*r->timing);
    if (r->cpu_timing) ct.push_back(&*r->cpu_timing);
  }
  if (t.size() == rs.size()) {
    out.timing = merge_timings(t);
    std::vector<double> m;
    for (const Timing* x : t) m.push_back(x->median_us);
    rep["median_us"] = m;
  }
  if (ct.size() == rs.size()) {
    out.cpu_timing = merge_timings(ct);
    std::vector<double> m;
    for (const Timing* x : ct) m.push_back(x->median_us);
    rep["cpu_median_us"] = m;
  }
  if (out.timing && out.cpu_timing && out.timing->median_us > 0)
    out.speedup = out.cpu_timing->median_us / out.timing->median_us;
  json metrics = json::object();
  for (const auto& [name, first] : rs.front()->metrics) {
    std::vector<double> v;
    for (const Result* r : rs) {
      const auto it = r->metrics.find(name);
      if (it != r->metrics.end() && std::isfinite(it->second)) v.push_back(it->second);
    }
    if (v.empty()) continue;
    out.metrics[name] = median_of(v);
    if (v.size() == rs.size()) metrics[name] = v;
  }
  if (!metrics.empty()) rep["metrics"] = metrics;
  out.wall_ms = 0;
  out.phase_ms.clear();
  for (const Result* r : rs) {
    out.wall_ms += r->wall_ms;
    for (const auto& [phase, ms] : r->phase_ms) out.phase_ms[phase] += ms;
  }
  if (!out.evidence.is_object()) out.evidence = json::object();
  out.evidence["repeat"] = rep;
  return out;
}

}  // namespace

std::vector<Result> merge_repeated_runs(const std::vector<std::vector<Result>>& runs) {
  if (runs.size() == 1) return runs.front();
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Result*>> by_key;
  for (const auto& run : runs) {
    std::map<std::string, bool> seen;  // the first of a key's duplicates in a run
    for (const auto& r : run) {
      if (seen[r.key]) continue;
      seen[r.key] = true;
      auto& v = by_key[r.key];
      if (v.empty()) order.push_back(r.key);
      v.push_back(&r);
    }
  }
  std::vector<Result> out;
  for (const auto& key : order) {
    const auto& rs = by_key[key];
    const auto failing =
        std::count_if(rs.begin(), rs.end(), [](const Result* r) { return is_failure(r->status); });
    const auto ok =
        std::count_if(rs.begin(), rs.end(), [](const Result* r) { return r->status == Status::ok; });
    if (failing > 0) {
      Result r = **std::find_if(rs.begin(), rs.end(), [](const Result* x) { return is_failure(x->status); });
      if (rs.size() > 1 || runs.size() > 1)
        r.warnings.push_back(fmt::format("failed in {} of {} runs (--repeat)", failing, runs.size()));
      out.push_back(std::move(r));
    } else if (ok == 0) {
      out.push_back(*rs.front());  // unavailable or skipped in every run it appears in
    } else {
      std::vector<const Result*> oks;
      for (const Result* r : rs) {
        if (r->status == Status::ok) oks.push_back(r);
      }
      Result r = merge_ok(oks);
      if (oks.size() < runs.size())
        r.warnings.push_back(
            fmt::format("ok in {} of {} runs (--repeat); merged from those", oks.size(), runs.size()));
      out.push_back(std::move(r));
    }
  }
  return out;
}

std::vector<double> repeat_values(const Result& r, const std::string& figure) {
  if (!r.evidence.is_object()) return {};
  const auto rep = r.evidence.find("repeat");
  if (rep == r.evidence.end() || !rep->is_object()) return {};
  const json* v = nullptr;
  if (figure == "median_us") {
    if (rep->contains("median_us")) v = &rep->at("median_us");
  } else if (rep->contains("metrics") && rep->at("metrics").is_object() &&
             rep->at("metrics").contains(figure)) {
    v = &rep->at("metrics").at(figure);
  }
  std::vector<double> out;
  if (!v || !v->is_array()) return out;
  for (const auto& x : *v) {
    if (x.is_number() && std::isfinite(x.get<double>())) out.push_back(x.get<double>());
  }
  if (out.size() < 2) out.clear();
  return out;
}

double relative_range(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double m = median_of(values);
  if (!(m > 0)) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return (*hi - *lo) / m;
}

}  // namespace accel
