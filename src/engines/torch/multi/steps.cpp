// The group, collective and link items. Every rank runs the same sequence
// of calls on the process group, in the same order, so they stay in step:
// the check, a warm-up, a calibration (rank 0, or the link's sender,
// decides how many calls a sample holds and how many samples, and
// broadcasts it), the samples, and the gathering of every rank's samples.
// Times are host clock around a device synchronise (nccl) or around the
// blocking calls (gloo), the mean of `inner` back-to-back calls per sample,
// averaged over the ranks as nccl-tests reports them (-a 1).
#include "engines/torch/multi/steps.hpp"

#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <set>

#include "core/multi/collective.hpp"
#include "core/stats.hpp"
#include "engines/torch/backend/backend.hpp"
#include "engines/torch/torch_util.hpp"
#include "platform/probes.hpp"
#include "platform/process.hpp"

namespace accel::engine {

namespace {

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

struct Budget {
  int warmup;
  double min_sample_us, budget_us;
  int min_samples, max_samples;
};
Budget budget_of(const GroupContext& g) {
  return g.options.quick ? Budget{2, 500, 120e3, 5, 15} : Budget{4, 1000, 400e3, 7, 30};
}

at::TensorOptions long_opts(const GroupContext& g) {
  return at::TensorOptions().device(g.device).dtype(at::kLong);
}

/// Rank `rank`'s input, pattern_value(rank, i) for i < count.
at::Tensor pattern(const GroupContext& g, int rank, int64_t count, at::ScalarType dtype) {
  return (at::arange(count, long_opts(g)) + rank).remainder(3).add_(1).to(dtype);
}

/// sum over the ranks of pattern(r, first + i), i < count.
at::Tensor pattern_sum(const GroupContext& g, int64_t first, int64_t count) {
  const at::Tensor idx = at::arange(first, first + count, long_opts(g));
  at::Tensor acc = at::zeros({count}, long_opts(g));
  for (int r = 0; r < g.world; ++r) acc.add_((idx + r).remainder(3).add_(1));
  return acc;
}

/// The sum of `v` over the ranks (or its maximum), as doubles on this rank's device.
std::vector<double> reduce_values(GroupContext& g, const std::vector<double>& v, std::size_t n, bool max) {
  at::Tensor t = at::zeros({static_cast<int64_t>(n)}, at::TensorOptions().dtype(at::kDouble));
  for (std::size_t i = 0; i < v.size() && i < n; ++i) t[static_cast<int64_t>(i)] = v[i];
  t = t.to(g.device);
  g.comm->all_reduce(t, max);
  t = t.cpu();
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = t[static_cast<int64_t>(i)].item<double>();
  return out;
}

struct Samples {
  std::vector<double> own_us;  ///< this rank's samples (empty when it does not take part)
  int inner = 1;
  int count = 0;
};

/// Warm-up, calibration by `root`, samples: every rank calls this in step;
/// ranks that do not take part (a link's bystanders) only join the broadcast.
Samples time_steps(GroupContext& g, const std::function<void()>& op, bool take_part, int root) {
  const Budget b = budget_of(g);
  Samples s;
  double per_call_us = 0;
  if (take_part) {
    for (int i = 0; i < b.warmup; ++i) op();
    synchronize(g.device);
    const auto t0 = Clock::now();
    op();
    op();
    synchronize(g.device);
    per_call_us = std::max(us_since(t0) / 2, 0.5);
  }
  at::Tensor plan = at::zeros({2}, at::TensorOptions().dtype(at::kLong));
  if (g.rank == root) {
    const int inner = static_cast<int>(std::clamp(std::ceil(b.min_sample_us / per_call_us), 1.0, 4096.0));
    const int count = static_cast<int>(std::clamp(std::floor(b.budget_us / (inner * per_call_us)),
                                                  double(b.min_samples), double(b.max_samples)));
    plan[0] = inner;
    plan[1] = count;
  }
  plan = plan.to(g.device);
  g.comm->broadcast(plan, root);
  plan = plan.cpu();
  s.inner = static_cast<int>(plan[0].item<int64_t>());
  s.count = static_cast<int>(plan[1].item<int64_t>());
  if (!take_part) return s;
  for (int k = 0; k < s.count; ++k) {
    synchronize(g.device);
    const auto t0 = Clock::now();
    for (int i = 0; i < s.inner; ++i) op();
    synchronize(g.device);
    s.own_us.push_back(us_since(t0) / s.inner);
  }
  return s;
}

int element_bytes(at::ScalarType t) { return static_cast<int>(c10::elementSize(t)); }

/// Whether every rank's check passed: the number of ranks whose output was wrong.
int wrong_ranks(GroupContext& g, bool right) {
  return static_cast<int>(std::lround(reduce_values(g, {right ? 0.0 : 1.0}, 1, false)[0]));
}

std::string host_of(const GroupContext& g, int rank) {
  if (rank >= 0 && rank < static_cast<int>(g.identities.size()) && g.identities[rank].is_object()) {
    return g.identities[rank].value("host", std::string());
  }
  return {};
}

/// The accuracy of a checked item; any wrong rank makes it a mismatch.
void set_accuracy(Result& r, int wrong, std::string detail) {
  r.accuracy = Accuracy{"exact", static_cast<double>(wrong), 0, std::move(detail)};
  if (wrong > 0) {
    r.status = Status::mismatch;
    r.reason = r.accuracy->detail;
  }
}

/// Runs an item's body: an exception is its error, and (unless the backend
/// merely lacks the operation) breaks the group for the items after it.
void guarded(GroupContext& g, const MultiItem& item, Result& r, const std::function<void()>& body) {
  const auto wall0 = Clock::now();
  try {
    body();
  } catch (const std::exception& e) {
    set_error(r, e, g.kb, g.options.machine);
    if (r.status != Status::unavailable) {
      g.broken = fmt::format("the process group failed at {}: {}", item.info.key, r.reason);
    }
  }
  r.wall_ms = us_since(wall0) / 1000;
}

}  // namespace

Result multi_result(const GroupContext& g, const MultiItem& item) {
  Result r = start_result(item.info.key, kMultiKind, &item.info, "");
  r.device = device_string(g.device);
  r.status = Status::ok;
  r.evidence["backend"] = g.backend;
  r.evidence["ranks"] = g.world;
  // The requested size, also on rows that never ran (the measured S replaces it).
  if (item.size_bytes > 0) r.metrics["size_bytes"] = item.size_bytes;
  if (item.type == MultiItem::Type::collective) r.metrics["ranks"] = g.world;
  return r;
}

void set_error(Result& r, const std::exception& e, const KnowledgeBase* kb, const MachineContext& machine) {
  const std::string msg = exception_message(e);
  ErrorInfo err;
  err.message = msg.substr(0, msg.find('\n'));
  r.status = msg.find("does not support") != std::string::npos ? Status::unavailable : Status::error;
  if (kb) {
    if (auto d = kb->classify(msg, machine)) {
      err.cause_id = d->id;
      err.cause = d->cause;
      err.fix = d->fix;
      err.reference = d->reference;
    }
  }
  r.reason = err.message;
  if (msg.size() > err.message.size()) r.evidence["error_full"] = msg.substr(0, 4000);
  r.error = err;
  r.timing.reset();
}

json rank_identity(const GroupContext& g) {
  json id;
  id["rank"] = g.rank;
  id["local_rank"] =
      g.options.launch.launcher == multi::Launcher::none ? g.rank : g.options.launch.local_rank;
  id["node_rank"] = g.options.launch.node_rank;
  id["world"] = g.world;
  id["host"] = platform::this_host_name();
  id["pid"] = platform::process_id();
  id["device"] = device_string(g.device);
  id["launcher"] = std::string(multi::to_string(g.options.launch.launcher));
  id["torch"] = TORCH_VERSION;
  id["backend"] = g.backend;
  id["backend_version"] = backend_library_version(g.backend);
  if (!g.device.is_cpu()) {
    if (const auto* be = accelerator_backend()) {
      const DeviceInfo d = be->describe(g.device.index());
      id["device_name"] = d.name;
      id["pci_bus_id"] = d.pci_bus_id;
    }
  } else {
    id["device_name"] = "CPU";
  }
  return id;
}

Result run_group_item(GroupContext& g, const MultiItem& item, double setup_ms) {
  Result r = multi_result(g, item);
  const auto t0 = Clock::now();
  try {
    g.comm->store_set(fmt::format("id/{}", g.rank), rank_identity(g).dump());
    at::Tensor ones = at::ones({4}, at::TensorOptions().dtype(at::kFloat)).to(g.device);
    g.comm->all_reduce(ones);
    synchronize(g.device);
    const bool right = at::equal(ones.cpu(), at::full({4}, static_cast<float>(g.world)));
    g.comm->store_set(fmt::format("nccl/{}", g.rank), json(g.nccl.read()).dump());
    g.identities = json::array();
    std::set<std::string> hosts, versions;
    for (int k = 0; k < g.world; ++k) {
      json id = json::parse(g.comm->store_get(fmt::format("id/{}", k)), nullptr, false);
      json nccl = json::parse(g.comm->store_get(fmt::format("nccl/{}", k)), nullptr, false);
      if (!id.is_object()) id = json{{"rank", k}};
      if (nccl.is_object() && nccl.value("version", std::string()) != "") id["nccl"] = nccl;
      hosts.insert(id.value("host", std::string()));
      const std::string v = id.value("backend_version", std::string());
      if (!v.empty()) versions.insert(v);
      g.identities.push_back(id);
    }
    const int wrong = wrong_ranks(g, right);
    r.metrics["ranks"] = g.world;
    r.metrics["hosts"] = static_cast<double>(hosts.size());
    r.metrics["setup_ms"] = setup_ms + us_since(t0) / 1000;
    r.evidence["identities"] = g.identities;
    r.evidence["backend_versions"] = versions;
    if (!g.nccl.note().empty()) r.evidence["nccl_debug"] = g.nccl.note();
    r.shape = fmt::format("{} ranks on {} host{}", g.world, hosts.size(), hosts.size() == 1 ? "" : "s");
    set_accuracy(
        r, wrong,
        fmt::format("an all-reduce of ones gives {} on every rank: {} rank(s) wrong", g.world, wrong));
  } catch (const std::exception& e) {
    set_error(r, e, g.kb, g.options.machine);
    g.broken = fmt::format("the process group failed its first collective: {}", r.reason);
  }
  r.wall_ms = us_since(t0) / 1000 + setup_ms;
  return r;
}

Result rank_row(const GroupContext& g, const MultiItem& item) {
  Result r = multi_result(g, item);
  const int k = item.a;
  if (k >= static_cast<int>(g.identities.size()) || !g.identities[k].is_object()) {
    r.status = Status::skipped;
    r.reason = g.broken.empty() ? "this rank's identity was not gathered" : "not run: " + g.broken;
    return r;
  }
  const json& id = g.identities[k];
  r.device = id.value("device", r.device);
  r.evidence["identity"] = id;
  r.shape = fmt::format("{} {}", id.value("host", std::string("?")), id.value("device", std::string("?")));
  r.metrics["local_rank"] = id.value("local_rank", 0);
  r.metrics["node_rank"] = id.value("node_rank", 0);
  return r;
}

Result run_collective_item(GroupContext& g, const MultiItem& item) {
  Result r = multi_result(g, item);
  const auto c = *multi::parse_collective(item.collective);
  const at::ScalarType dt = dtype_from_name(item.dtype);
  guarded(g, item, r, [&] {
    const auto shape = multi::collective_shape(c, item.size_bytes, element_bytes(dt), g.world);
    const int64_t m = shape.input_elements;
    const at::Tensor input = pattern(g, g.rank, m, dt);
    at::Tensor buf, out;
    std::function<void()> op;
    auto fresh = [&] {
      if (c == multi::Collective::broadcast && g.rank != 0) {
        buf = at::zeros_like(input);
      } else {
        buf = input.clone();
      }
      out = at::zeros({shape.output_elements}, at::TensorOptions().device(g.device).dtype(dt));
    };
    fresh();
    switch (c) {
      case multi::Collective::all_reduce:
        op = [&] { g.comm->all_reduce(buf); };
        break;
      case multi::Collective::broadcast:
        op = [&] { g.comm->broadcast(buf, 0); };
        break;
      case multi::Collective::all_gather:
        op = [&] { g.comm->all_gather(out, buf); };
        break;
      case multi::Collective::reduce_scatter:
        op = [&] { g.comm->reduce_scatter(out, buf); };
        break;
      case multi::Collective::send_recv:
        throw std::invalid_argument("send_recv is a link item");
    }
    // The check: one call on fresh inputs, the output compared element by element.
    op();
    synchronize(g.device);
    at::Tensor expected;
    at::Tensor got = c == multi::Collective::all_gather || c == multi::Collective::reduce_scatter ? out : buf;
    switch (c) {
      case multi::Collective::all_reduce:
        expected = pattern_sum(g, 0, m);
        break;
      case multi::Collective::broadcast:
        expected = pattern(g, 0, m, at::kLong);
        break;
      case multi::Collective::all_gather: {
        const at::Tensor idx = at::arange(shape.output_elements, long_opts(g));
        expected = (idx.remainder(m) + idx.div(m, "floor")).remainder(3).add_(1);
        break;
      }
      case multi::Collective::reduce_scatter:
        expected = pattern_sum(g, g.rank * shape.output_elements, shape.output_elements);
        break;
      default:
        break;
    }
    bool right = at::equal(got.to(at::kDouble), expected.to(at::kDouble));
    // Spot checks against core/multi/collective.hpp's formula, so the two agree.
    const at::Tensor got_cpu = got.to(at::kDouble).cpu();
    for (const int64_t i : {int64_t{0}, got_cpu.numel() / 2, got_cpu.numel() - 1}) {
      if (i < 0 || i >= got_cpu.numel()) continue;
      const double want = multi::expected_value(c, g.rank, i, g.world, m);
      right = right && got_cpu[i].item<double>() == want;
    }
    const int wrong = wrong_ranks(g, right);
    fresh();
    const Samples s = time_steps(g, op, true, 0);
    const auto mean = reduce_values(g, s.own_us, static_cast<std::size_t>(s.count), false);
    std::vector<double> group_us;
    for (const double v : mean) group_us.push_back(v / g.world);
    std::vector<double> mine(static_cast<std::size_t>(g.world), 0.0);
    mine[static_cast<std::size_t>(g.rank)] = summarize(s.own_us).median;
    const auto per_rank = reduce_values(g, mine, mine.size(), false);
    r.timing = make_timing(group_us, budget_of(g).warmup + 2, s.inner, "host_clock");
    r.work.bytes = shape.size_bytes;
    const auto bw = multi::bandwidth(c, shape.size_bytes, r.timing->median_us, g.world);
    r.metrics["algbw_gbps"] = bw.algbw_gbps;
    r.metrics["busbw_gbps"] = bw.busbw_gbps;
    r.metrics["size_bytes"] = shape.size_bytes;
    r.metrics["ranks"] = g.world;
    r.metrics["slowest_rank_us"] = *std::max_element(per_rank.begin(), per_rank.end());
    r.evidence["rank_median_us"] = per_rank;
    r.evidence["elements_per_rank"] =
        json{{"input", shape.input_elements}, {"output", shape.output_elements}};
    r.evidence["bus_factor"] = multi::bus_factor(c, g.world);
    set_accuracy(r, wrong,
                 fmt::format("every output element against 1 + (rank + i) mod 3 summed or gathered: "
                             "{} of {} rank(s) wrong",
                             wrong, g.world));
  });
  return r;
}

Result run_link_item(GroupContext& g, const MultiItem& item) {
  Result r = multi_result(g, item);
  const int src = item.a, dst = item.b;
  const bool sender = g.rank == src, receiver = g.rank == dst;
  guarded(g, item, r, [&] {
    const auto shape = multi::collective_shape(multi::Collective::send_recv, item.size_bytes, 4, g.world);
    const int64_t m = shape.input_elements;
    at::Tensor buf =
        sender ? pattern(g, src, m, at::kFloat) : at::zeros({m}, at::TensorOptions().device(g.device));
    auto op = [&] {
      if (sender) g.comm->send(buf, dst, 0);
      if (receiver) g.comm->recv(buf, src, 0);
    };
    bool right = true;
    if (sender || receiver) {
      op();
      synchronize(g.device);
    }
    if (receiver) right = at::equal(buf.to(at::kDouble), pattern(g, src, m, at::kDouble));
    const int wrong = wrong_ranks(g, right);
    const Samples s = time_steps(g, op, sender || receiver, src);
    const auto slowest = reduce_values(g, s.own_us, static_cast<std::size_t>(s.count), true);
    r.timing = make_timing(slowest, budget_of(g).warmup + 2, s.inner, "host_clock");
    r.work.bytes = shape.size_bytes;
    const auto bw =
        multi::bandwidth(multi::Collective::send_recv, shape.size_bytes, r.timing->median_us, g.world);
    r.metrics["algbw_gbps"] = bw.algbw_gbps;
    r.metrics["busbw_gbps"] = bw.busbw_gbps;
    r.metrics["size_bytes"] = shape.size_bytes;
    r.metrics["src_rank"] = src;
    r.metrics["dst_rank"] = dst;
    // What carried it, as each end's NCCL saw it.
    if (sender || receiver) {
      g.comm->store_set(fmt::format("link/{}/{}", item.info.key, g.rank), g.nccl.read().between(src, dst));
    }
    const std::string via_src = g.comm->store_get(fmt::format("link/{}/{}", item.info.key, src));
    const std::string via_dst = g.comm->store_get(fmt::format("link/{}/{}", item.info.key, dst));
    r.evidence["transport"] = g.backend == "gloo" ? std::string("gloo (TCP)")
                              : via_src.empty()   ? via_dst
                                                  : via_src;
    r.evidence["src_host"] = host_of(g, src);
    r.evidence["dst_host"] = host_of(g, dst);
    r.shape = fmt::format("rank {} ({}) -> rank {} ({}), {}", src, host_of(g, src), dst, host_of(g, dst),
                          multi::size_label(shape.size_bytes));
    set_accuracy(
        r, wrong,
        wrong ? "the receiver's buffer differs from the sender's" : "the receiver got the sender's data");
  });
  return r;
}

}  // namespace accel::engine
