#include "core/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/noise_floors.hpp"
#include "core/repeat.hpp"

namespace accel {

std::string_view to_string(Change c) {
  switch (c) {
    case Change::faster:
      return "faster";
    case Change::slower:
      return "slower";
    case Change::same:
      return "same";
    case Change::newly_failing:
      return "newly_failing";
    case Change::fixed:
      return "fixed";
    case Change::still_failing:
      return "still_failing";
    case Change::status_changed:
      return "status_changed";
    case Change::new_result:
      return "new";
    case Change::missing:
      return "missing";
    case Change::not_comparable:
      return "not_comparable";
  }
  return "unknown";
}

std::size_t Comparison::count(Change c) const {
  return static_cast<std::size_t>(
      std::count_if(results.begin(), results.end(), [c](const ComparedResult& r) { return r.change == c; }));
}

bool Comparison::regressed() const {
  return count(Change::slower) > 0 || count(Change::newly_failing) > 0 || !lost.empty();
}

namespace {

/// The samples of a result's timing when they describe its median (their
/// median is median_us within 0.1%), or when it is a merge of repeated runs
/// (--repeat: median_us is the median of the runs' medians, the samples are
/// pooled); else (an edited report) none.
std::vector<double> samples_of(const Result& r) {
  const Timing& t = *r.timing;
  std::vector<double> v;
  for (const double x : t.samples_us) {
    if (std::isfinite(x)) v.push_back(x);
  }
  if (v.empty()) return v;
  auto median = [](std::vector<double> sorted) {
    std::sort(sorted.begin(), sorted.end());
    const std::size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  };
  auto near = [&](double m) { return std::fabs(m - t.median_us) <= 1e-3 * std::fabs(t.median_us); };
  if (near(median(v))) return v;
  const std::vector<double> runs = repeat_values(r, "median_us");
  if (!runs.empty() && near(median(runs))) return v;
  return {};
}

std::vector<double> finite_only(const std::vector<double>& v) {
  std::vector<double> out;
  for (const double x : v) {
    if (std::isfinite(x)) out.push_back(x);
  }
  return out;
}

/// Counts of U = 0..n1*n2 over all C(n1+n2, n1) arrangements without ties:
/// the coefficients of the Gaussian binomial [n1+n2 choose n1]_q, built as
/// prod_{i=1..n1} (1 - q^(n2+i)) / (1 - q^i), one exact step at a time.
std::vector<double> u_distribution(std::size_t n1, std::size_t n2) {
  std::vector<double> c(n1 * n2 + 1, 0.0);
  c[0] = 1;
  std::size_t deg = 0;
  for (std::size_t i = 1; i <= n1; ++i) {
    const std::size_t m = n2 + i;
    deg += n2;                                                // the degree after this step (i * n2)
    for (std::size_t k = deg; k >= m; --k) c[k] -= c[k - m];  // * (1 - q^m)
    for (std::size_t k = i; k <= deg; ++k) c[k] += c[k - i];  // / (1 - q^i)
  }
  return c;
}

}  // namespace

double mann_whitney_min_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  double total = 1;  // C(n1 + n2, n1)
  for (std::size_t i = 1; i <= n1; ++i) total = total * static_cast<double>(n2 + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / total);
}

double mann_whitney_p(const std::vector<double>& a_in, const std::vector<double>& b_in) {
  const std::vector<double> a = finite_only(a_in), b = finite_only(b_in);
  const std::size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return 1;
  std::vector<std::pair<double, int>> all;
  for (const double x : a) all.emplace_back(x, 0);
  for (const double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  const std::size_t n = all.size();
  double r1 = 0, tie_term = 0;
  bool ties = false;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;  // mid-rank
    const double t = static_cast<double>(j - i);
    if (j - i > 1) ties = true;
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second == 0) r1 += rank;
    }
    i = j;
  }
  const double u = r1 - static_cast<double>(n1) * static_cast<double>(n1 + 1) / 2.0;
  const double mean = static_cast<double>(n1) * static_cast<double>(n2) / 2.0;
  if (!ties && n <= 60) {
    const auto c = u_distribution(std::min(n1, n2), std::max(n1, n2));  // symmetric in n1, n2
    double total = 0, below = 0, above = 0;
    const auto ui = static_cast<std::size_t>(std::llround(u));
    for (std::size_t k = 0; k < c.size(); ++k) {
      total += c[k];
      if (k <= ui) below += c[k];
      if (k >= ui) above += c[k];
    }
    return std::min(1.0, 2.0 * std::min(below, above) / total);
  }
  const double nn = static_cast<double>(n);
  const double var =
      static_cast<double>(n1) * static_cast<double>(n2) / 12.0 * ((nn + 1) - tie_term / (nn * (nn - 1)));
  if (!(var > 0)) return 1;
  const double z = std::max(0.0, std::fabs(u - mean) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

namespace {

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

double riqr(const std::optional<Timing>& t) {
  if (!t || !finite_positive(t->median_us) || !std::isfinite(t->iqr_us)) return 0;
  return std::max(0.0, t->iqr_us) / t->median_us;
}

/// A time (lower is better): "ttft_ms", "step_time_us", "us_per_op", "token_latency_p50_ms".
bool is_time_metric(const std::string& m) {
  auto ends = [&](const char* suffix) {
    const std::string s(suffix);
    return m.size() > s.size() && m.compare(m.size() - s.size(), s.size(), s) == 0;
  };
  return ends("_us") || ends("_ms") || m.rfind("us_per_", 0) == 0 || m.rfind("ms_per_", 0) == 0;
}

struct Figure {
  std::string name;
  bool higher_is_better = false;
  double a = 0, b = 0;
};

std::optional<Figure> common_figure(const Result& a, const Result& b) {
  if (a.timing && b.timing && finite_positive(a.timing->median_us) && finite_positive(b.timing->median_us)) {
    return Figure{"median_us", false, a.timing->median_us, b.timing->median_us};
  }
  auto both = [&](const std::string& m) -> std::optional<Figure> {
    const auto ia = a.metrics.find(m), ib = b.metrics.find(m);
    if (ia == a.metrics.end() || ib == b.metrics.end()) return std::nullopt;
    if (!finite_positive(ia->second) || !finite_positive(ib->second)) return std::nullopt;
    return Figure{m, !is_time_metric(m), ia->second, ib->second};
  };
  for (const char* m : {"tokens_per_s", "samples_per_s", "tflops", "gbps"}) {
    if (auto f = both(m)) return f;
  }
  for (const auto& [name, v] : a.metrics) {
    if (is_time_metric(name)) {
      if (auto f = both(name)) return f;
    }
  }
  return std::nullopt;
}

std::string failure_note(const Result& r) {
  std::string msg = r.error && !r.error->message.empty() ? r.error->message : r.reason;
  msg = msg.substr(0, msg.find('\n'));
  if (msg.size() > 160) msg = msg.substr(0, 157) + "...";
  return msg;
}

std::map<std::string, const Result*> index(const Report& r, const std::string& origin,
                                           std::vector<std::string>& notes) {
  std::map<std::string, const Result*> out;
  std::size_t dup = 0;
  for (const auto& res : r.results) {
    if (!out.emplace(res.key, &res).second) ++dup;
  }
  if (dup > 0)
    notes.push_back(fmt::format("{} has {} duplicate key(s); the first of each is compared", origin, dup));
  return out;
}

std::string chosen_device(const Report& r) {
  const auto& s = r.context.environment.selection;
  if (!s) return "";
  for (const auto& d : r.context.environment.devices) {
    if (d.id == s->chosen && !d.name.empty()) return s->chosen + " (" + d.name + ")";
  }
  return s->chosen;
}

}  // namespace

std::vector<std::string> environment_differences(const Environment& a, const Environment& b) {
  std::vector<std::string> out;
  auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (!x.empty() && !y.empty() && x != y) out.push_back(fmt::format("{}: {} vs {}", what, x, y));
  };
  auto number = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string(); };
  differ("torch", a.torch.version, b.torch.version);
  differ("torch CUDA", a.torch.cuda_version, b.torch.cuda_version);
  differ("torch HIP", a.torch.hip_version, b.torch.hip_version);
  differ("cuDNN", a.torch.cudnn_version, b.torch.cudnn_version);
  differ("torch CPU capability", a.torch.cpu_capability, b.torch.cpu_capability);
  differ("torch intra-op threads", number(a.torch.intra_op_threads), number(b.torch.intra_op_threads));
  differ("torch inter-op threads", number(a.torch.inter_op_threads), number(b.torch.inter_op_threads));
  differ("CPU BLAS", a.blas.name + (a.blas.version.empty() ? "" : " " + a.blas.version),
         b.blas.name + (b.blas.version.empty() ? "" : " " + b.blas.version));
  differ("NVIDIA driver", a.driver.nvidia_driver, b.driver.nvidia_driver);
  differ("ROCm", a.driver.rocm_version, b.driver.rocm_version);
  differ("amdgpu driver", a.driver.amdgpu_driver, b.driver.amdgpu_driver);
  differ("CPU", a.host.cpu_model, b.host.cpu_model);
  differ("logical cores", number(a.host.logical_cores), number(b.host.logical_cores));
  differ("CPU governor / power plan", a.host.cpu_governor, b.host.cpu_governor);
  differ("OS", a.host.os, b.host.os);
  return out;
}

namespace {

/// The change in status between A and B; nullopt when both are ok and their
/// figures decide.
std::optional<Change> status_change(const Result& ra, const Result& rb, std::string& note) {
  const bool fa = is_failure(ra.status), fb = is_failure(rb.status);
  if (!fa && fb) {
    note = failure_note(rb);
    return Change::newly_failing;
  }
  if (fa && !fb) {
    note = failure_note(ra);
    return rb.status == Status::ok ? Change::fixed : Change::status_changed;
  }
  if (fa && fb) {
    note = failure_note(rb);
    return Change::still_failing;
  }
  if (ra.status != rb.status) {
    note = rb.status == Status::ok ? "" : (rb.reason.empty() ? failure_note(rb) : rb.reason);
    return Change::status_changed;
  }
  if (ra.status != Status::ok) return Change::same;  // both unavailable or skipped
  return std::nullopt;
}

/// Between-process noise: the floor of the result's class, for single runs
/// or for medians of repeated runs; with repeated runs on both sides also
/// twice their own spread between runs (heavier load than the floors were
/// measured under). Raises the row's threshold to it.
void apply_noise_floor(const Result& ra, const Result& rb, ComparedResult& row) {
  // The class of the faster side, so that A -> B and B -> A get the
  // same floor (a slowdown is judged by the baseline's class).
  const Result& base = row.figure == "median_us" && rb.timing->median_us < ra.timing->median_us ? rb : ra;
  const NoiseFloor& nf = noise_floor_for(base);
  const std::vector<double> va = repeat_values(ra, row.figure), vb = repeat_values(rb, row.figure);
  const bool repeated = va.size() >= kRepeatedFloorRuns && vb.size() >= kRepeatedFloorRuns;
  const std::string cls = fmt::format("{}/{}/{}", nf.device_class, to_string(nf.kind),
                                      nf.size.empty() ? size_class_of(base) : std::string(nf.size));
  if (repeated) {
    const double own = 2 * (relative_range(va) + relative_range(vb));
    row.floor = std::max(nf.repeated, own);
    row.floor_source =
        own > nf.repeated
            ? fmt::format("twice the spread between the runs ({} and {} runs)", va.size(), vb.size())
            : fmt::format("{}, medians of {} and {} runs", cls, va.size(), vb.size());
  } else {
    row.floor = nf.single;
    row.floor_source = fmt::format("{}, single runs", cls);
  }
  row.threshold = std::max(row.threshold, row.floor);
}

/// Two ok results with a common figure: faster, slower, the same (within
/// the threshold, or not different by rank), or not comparable.
void compare_figures(const Result& ra, const Result& rb, const Figure& f, const CompareOptions& options,
                     ComparedResult& row) {
  row.figure = f.name;
  row.higher_is_better = f.higher_is_better;
  row.a = f.a;
  row.b = f.b;
  row.relative = (f.b - f.a) / f.a;
  row.threshold = std::max(options.min_change, riqr(ra.timing) + riqr(rb.timing));
  if (options.floors) apply_noise_floor(ra, rb, row);
  row.speedup = f.higher_is_better ? f.b / f.a : f.a / f.b;
  row.noisy = (ra.timing && ra.timing->noisy) || (rb.timing && rb.timing->noisy);
  const bool above_peak =
      (ra.roofline && ra.roofline->above_peak) || (rb.roofline && rb.roofline->above_peak);
  // The rank test on the raw samples, where there are enough of them
  // and they are the samples of the compared medians.
  bool rank_says_same = false;
  if (row.figure == "median_us") {
    const std::vector<double> sa = samples_of(ra), sb = samples_of(rb);
    if (mann_whitney_min_p(sa.size(), sb.size()) <= options.alpha) {
      row.p_value = mann_whitney_p(sa, sb);
      rank_says_same = row.p_value >= options.alpha;
    }
  }
  // The size of the change, the same both ways: a 3x slowdown and a 3x
  // speed-up are both 2 (|relative| of a speed-up never reaches 1, so a
  // floor above 100% would hide every one).
  const double effect = std::max(f.b / f.a, f.a / f.b) - 1;
  if (effect <= row.threshold) {
    row.change = Change::same;
  } else if (rank_says_same) {
    row.change = Change::same;
    row.note = fmt::format(
        "beyond the threshold, but the samples do not differ by rank (Mann-Whitney "
        "p = {:.3g} >= {:.3g})",
        row.p_value, options.alpha);
  } else if (above_peak) {
    // A figure above its peak is a likely timing error (or a cache-served
    // working set): its change says nothing about the upgrade.
    row.change = Change::not_comparable;
    row.note = "a figure above its peak on one side (likely a timing error, or data served from cache)";
  } else {
    const bool better = f.higher_is_better ? row.relative > 0 : row.relative < 0;
    row.change = better ? Change::faster : Change::slower;
  }
}

/// One result of A against the same key in B (null: B lacks it).
ComparedResult compare_result(const Result& ra, const Result* rb, const CompareOptions& options) {
  ComparedResult row;
  row.key = ra.key;
  row.kind = ra.kind;
  row.status_a = std::string(to_string(ra.status));
  if (!rb) {
    row.change = Change::missing;
    return row;
  }
  row.status_b = std::string(to_string(rb->status));
  if (const auto change = status_change(ra, *rb, row.note)) {
    row.change = *change;
  } else if (const auto f = common_figure(ra, *rb)) {
    compare_figures(ra, *rb, *f, options, row);
  } else {
    row.change = Change::not_comparable;
  }
  return row;
}

/// Whole kinds of result that A had on a device type and B has none of.
std::vector<std::string> lost_groups(const Report& a, const Report& b) {
  auto groups = [](const Report& r) {
    std::set<std::string> g;
    for (const auto& x : r.results) {
      const std::string type = x.device.substr(0, x.device.find(':'));
      g.insert(fmt::format("{} on {}", to_string(x.kind), type.empty() ? "?" : type));
    }
    return g;
  };
  const auto ga = groups(a), gb = groups(b);
  std::vector<std::string> lost;
  for (const auto& g : ga) {
    if (!gb.count(g)) lost.push_back(g);
  }
  return lost;
}

}  // namespace

Comparison compare_reports(const Report& a, const Report& b, const CompareOptions& options,
                           const std::string& origin_a, const std::string& origin_b) {
  Comparison c;
  c.origin_a = origin_a;
  c.origin_b = origin_b;
  c.min_change = options.min_change;
  c.alpha = options.alpha;
  c.floors = options.floors;
  const auto ia = index(a, origin_a, c.notes);
  const auto ib = index(b, origin_b, c.notes);

  const std::string da = chosen_device(a), db = chosen_device(b);
  if (!da.empty() && !db.empty() && da != db)
    c.notes.push_back(fmt::format("measured devices differ: {} vs {}", da, db));
  for (const auto& note : environment_differences(a.context.environment, b.context.environment)) {
    c.notes.push_back("environment differs (it can explain the changes below): " + note);
  }

  std::set<std::string> seen;
  for (const auto& ra : a.results) {
    if (!seen.insert(ra.key).second) continue;
    const auto it = ib.find(ra.key);
    c.results.push_back(compare_result(ra, it == ib.end() ? nullptr : it->second, options));
  }
  for (const auto& rb : b.results) {
    if (ia.count(rb.key) || !seen.insert(rb.key).second) continue;
    ComparedResult row;
    row.key = rb.key;
    row.kind = rb.kind;
    row.status_b = std::string(to_string(rb.status));
    row.change = Change::new_result;
    if (is_failure(rb.status)) row.note = failure_note(rb);
    c.results.push_back(std::move(row));
  }
  c.lost = lost_groups(a, b);
  for (const auto& g : c.lost) c.notes.push_back(fmt::format("B has no {} results that A had: lost", g));
  return c;
}

json comparison_to_json(const Comparison& c) {
  json counts = json::object();
  for (Change ch : {Change::faster, Change::slower, Change::same, Change::newly_failing, Change::fixed,
                    Change::still_failing, Change::status_changed, Change::new_result, Change::missing,
                    Change::not_comparable}) {
    counts[std::string(to_string(ch))] = c.count(ch);
  }
  json rows = json::array();
  for (const auto& r : c.results) {
    json row{{"key", r.key}, {"kind", r.kind}, {"change", std::string(to_string(r.change))}};
    row["status_a"] = r.status_a.empty() ? json(nullptr) : json(r.status_a);
    row["status_b"] = r.status_b.empty() ? json(nullptr) : json(r.status_b);
    if (!r.figure.empty()) {
      row["figure"] = r.figure;
      row["higher_is_better"] = r.higher_is_better;
      row["a"] = r.a;
      row["b"] = r.b;
      row["relative_change"] = r.relative;
      row["threshold"] = r.threshold;
      row["speedup"] = r.speedup;
      row["noisy"] = r.noisy;
      row["p_value"] = r.p_value >= 0 ? json(r.p_value) : json(nullptr);
      if (!r.floor_source.empty()) {
        row["floor"] = r.floor;
        row["floor_source"] = r.floor_source;
      }
    }
    if (!r.note.empty()) row["note"] = r.note;
    rows.push_back(std::move(row));
  }
  return json{
      {"schema_version", 1},
      {"a", c.origin_a},
      {"b", c.origin_b},
      {"rule",
       "a change counts when max(b/a, a/b) - 1 > max(min_change, IQR/median of a + IQR/median of b, floor) "
       "and, where both sides have enough raw timing samples for it, a two-sided Mann-Whitney U test "
       "on them gives p < alpha; floor: the between-process noise of the result's device class, kind "
       "and size (docs/noise-floors.md), for single runs or for medians of --repeat runs"},
      {"floors", c.floors},
      {"min_change", c.min_change},
      {"alpha", c.alpha},
      {"regressed", c.regressed()},
      {"counts", counts},
      {"notes", c.notes},
      {"lost", c.lost},
      {"results", rows}};
}

}  // namespace accel
