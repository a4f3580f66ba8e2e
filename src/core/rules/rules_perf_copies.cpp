// Performance rules: pinned against pageable host<->device copies. Thresholds and shared helpers:
// rules_perf_detail.hpp.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- copies

void rule_pinned(const Ctx& c, std::vector<Finding>& out) {
  struct Pair {
    const Result* pageable = nullptr;
    const Result* pinned = nullptr;
  };
  std::map<std::string, Pair> pairs;  // direction/size
  for (const auto& row : bench_rows(c, "transfer")) {
    const std::string dir = row.k.name.substr(0, 3);
    auto& p = pairs[dir + "/" + row.r->device + "/" + row.k.shape];
    if (row.k.name.find("pageable") != std::string::npos) p.pageable = row.r;
    if (row.k.name.find("pinned") != std::string::npos) p.pinned = row.r;
  }
  const Pair* best = nullptr;
  double best_ratio = 0;
  for (const auto& [k, p] : pairs) {
    if (!p.pageable || !p.pinned || metric(*p.pageable, "gbps") <= 0) continue;
    // The largest size shows the steady-state rates; among those, H2D first (input pipelines).
    if (!best || p.pinned->work.bytes > best->pinned->work.bytes ||
        (p.pinned->work.bytes == best->pinned->work.bytes && starts_with(k, "h2d"))) {
      best = &p;
      best_ratio = metric(*p.pinned, "gbps") / metric(*p.pageable, "gbps");
    }
  }
  if (!best || best_ratio < kPinnedRatio) return;
  out.push_back(make_finding(
      "pageable_copies", Severity::info, std::min(25.0, 10 + 5 * std::log2(best_ratio)),
      fmt::format("Pinned host memory copies {} faster than pageable memory", times(best_ratio)),
      fmt::format("{} {}: pageable {} vs pinned {}", best->pinned->name.substr(0, 3), best->pinned->shape,
                  rate(metric(*best->pageable, "gbps"), "GB/s"), rate(metric(*best->pinned, "gbps"), "GB/s")),
      "Copies from pageable memory go through a staging buffer and block the host; input pipelines that feed "
      "the GPU from pageable tensors spend that difference on every batch.",
      "DataLoader(..., pin_memory=True) and x.to(device, non_blocking=True); for your own buffers "
      "tensor.pin_memory() once and reuse it",
      kRefPinned));
}

}  // namespace accel::rules::perf
