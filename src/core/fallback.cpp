// Announced CPU fallbacks: kb recognition, timing from a capture, evidence
// (fallback.hpp).
#include "core/fallback.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/units.hpp"

namespace accel {

std::vector<AnnouncedFallback> announced_fallbacks(const std::vector<std::string>& warnings,
                                                   const KnowledgeBase& kb, const MachineContext& context) {
  std::vector<AnnouncedFallback> out;
  for (const auto& w : warnings) {
    for (const auto& d : kb.explain(w, context)) {
      if (d.check_where != "cpu_fallback") continue;
      const auto op = d.details.find("op");
      if (op == d.details.end() || op->second.empty()) continue;
      const bool seen =
          std::any_of(out.begin(), out.end(), [&](const AnnouncedFallback& f) { return f.op == op->second; });
      if (!seen) out.push_back({op->second, d.id});
    }
  }
  return out;
}

std::string profiler_op_name(std::string_view op) {
  // "aten::mul.out": the overload follows the first '.' after the namespace.
  const auto ns = op.find("::");
  const auto dot = op.find('.', ns == std::string_view::npos ? 0 : ns + 2);
  return std::string(dot == std::string_view::npos ? op : op.substr(0, dot));
}

namespace {
struct Interval {
  double start, end;
};

/// Outermost intervals of `events` (sorted by start, longest first on ties).
std::vector<Interval> outermost(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.start < out.back().end && i.end <= out.back().end) continue;  // nested
    out.push_back(i);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double t = 0, covered_to = -1e300;
  for (const auto& i : v) {  // sorted by start
    const double s = std::max(i.start, covered_to);
    if (i.end > s) t += i.end - s;
    covered_to = std::max(covered_to, i.end);
  }
  return t;
}
}  // namespace

FallbackTimes time_fallbacks(const std::vector<TraceEvent>& events,
                             const std::vector<AnnouncedFallback>& ops) {
  FallbackTimes t;
  double first = 0, last = 0;
  bool any = false;
  for (const auto& e : events) {
    if (e.kind != TraceEvent::Kind::op) continue;
    first = any ? std::min(first, e.ts_us) : e.ts_us;
    last = any ? std::max(last, e.ts_us + e.dur_us) : e.ts_us + e.dur_us;
    any = true;
  }
  t.call_us = any ? last - first : 0;
  std::vector<Interval> all;
  for (const auto& f : ops) {
    const std::string name = profiler_op_name(f.op);
    std::vector<Interval> mine;
    for (const auto& e : events) {
      if (e.kind == TraceEvent::Kind::op && e.name == name) mine.push_back({e.ts_us, e.ts_us + e.dur_us});
    }
    const auto outer = outermost(mine);
    FallbackOp op;
    op.op = f.op;
    op.cause_id = f.cause_id;
    op.calls = static_cast<int>(outer.size());
    for (const auto& i : outer) op.time_us += i.end - i.start;
    t.ops.push_back(std::move(op));
    all.insert(all.end(), outer.begin(), outer.end());
  }
  t.total_us = length(outermost(std::move(all)));
  return t;
}

void mark_announced_fallback(ProfileEvidence& p, const std::vector<AnnouncedFallback>& ops,
                             const FallbackTimes* times, const std::string& why_not_timed) {
  if (ops.empty()) return;
  p.where = Where::cpu_fallback;
  p.fallback_ops.clear();
  std::vector<std::string> parts;
  if (times) {
    p.fallback_ops = times->ops;
    p.fallback_cost_us = times->total_us;
    p.call_us = times->call_us;
    for (const auto& op : times->ops) {
      if (op.calls == 0) {
        parts.push_back(fmt::format("{} (not seen by the profiler)", op.op));
      } else {
        parts.push_back(fmt::format("{} ({} call{}, {})", op.op, op.calls, op.calls == 1 ? "" : "s",
                                    format_us(op.time_us)));
      }
    }
    const std::string share =
        times->call_us > 0
            ? fmt::format("{} of the {} call ({:.0f}%)", format_us(times->total_us),
                          format_us(times->call_us), 100.0 * std::min(1.0, times->total_us / times->call_us))
            : format_us(times->total_us);
    p.detail = fmt::format("the backend announced it ran {} on the CPU: {}", fmt::join(parts, ", "), share);
  } else {
    for (const auto& f : ops) {
      FallbackOp op;
      op.op = f.op;
      op.cause_id = f.cause_id;
      p.fallback_ops.push_back(op);
      parts.push_back(f.op);
    }
    p.detail =
        fmt::format("the backend announced it ran {} on the CPU (cost not measured: {})",
                    fmt::join(parts, ", "), why_not_timed.empty() ? "no profiler capture" : why_not_timed);
  }
}

void mark_backend_kernels(ProfileEvidence& p, const std::string& device, const std::string& plugin) {
  p.where = Where::backend_kernels;
  p.detail = fmt::format(
      "the profiler cannot see {}'s work, the output stayed on the device, and {} (which announces every op "
      "it runs on the CPU) announced no fallback: the op ran on the device by the backend's own account",
      device, plugin.empty() ? "the backend" : plugin);
}

}  // namespace accel
