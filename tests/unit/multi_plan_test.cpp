// engine_api/multi.hpp: the items a multi run expands to, and how a request
// becomes options on this machine (local ranks, or one rank under a
// launcher); core/report/multi_tables.hpp and the multi verdict over rows
// shaped as the engine writes them.
#include <gtest/gtest.h>

#include "core/report/multi_tables.hpp"
#include "core/rules/rules.hpp"
#include "engine_api/multi.hpp"
#include "rules_test_util.hpp"

namespace accel::engine {
namespace {

Environment with_gpus(int n) {
  Environment env;
  for (int i = 0; i < n; ++i) {
    DeviceInfo d;
    d.id = "cuda:" + std::to_string(i);
    d.type = "cuda";
    env.devices.push_back(d);
  }
  return env;
}

std::vector<std::string> keys_of(const MultiOptions& o) {
  std::vector<std::string> out;
  for (const auto& i : list_multi_items(o)) out.push_back(i.key);
  return out;
}

TEST(MultiPlan, LocalCpuRanks) {
  MultiOptions o;  // two CPU ranks, gloo
  o.quick = true;
  const auto items = plan_multi(o);
  const auto keys = keys_of(o);
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys[0], "multi/gloo/group/n2");
  EXPECT_EQ(keys[1], "multi/gloo/rank/r0");
  EXPECT_EQ(keys[2], "multi/gloo/rank/r1");
  // 4 collectives x 2 quick sizes, then 2 links x 2 sizes.
  EXPECT_EQ(keys.size(), 3u + 8u + 4u);
  EXPECT_EQ(keys[3], "multi/gloo/all_reduce/fp32/64KiB/n2");
  EXPECT_EQ(keys.back(), "multi/gloo/send_recv/fp32/4MiB/r1-r0");
  for (const auto& m : items) {
    EXPECT_EQ(m.info.kind, kMultiKind);
    EXPECT_EQ(m.collective_step(), m.type != MultiItem::Type::rank);
  }
}

TEST(MultiPlan, PeerItemsAndNccl) {
  MultiOptions o;
  o.devices = {"cuda:0", "cuda:1"};
  o.peer_devices = o.devices;
  o.quick = true;
  o.collectives = {"all_reduce"};
  const auto keys = keys_of(o);
  EXPECT_EQ(resolve_backend(o), "nccl");
  EXPECT_EQ(keys[0], "multi/cuda/peer_access/d0-d1");
  EXPECT_EQ(keys[1], "multi/cuda/p2p_copy/d0-d1/peer/64MiB");
  EXPECT_EQ(keys[4], "multi/cuda/p2p_copy/d1-d0/no_peer/64MiB");
  EXPECT_EQ(keys[5], "multi/nccl/group/n2");
  // --collectives without send_recv: no links.
  for (const auto& k : keys) EXPECT_EQ(k.find("send_recv"), std::string::npos) << k;
  o.collectives = {"alltoall"};
  EXPECT_THROW(plan_multi(o), std::invalid_argument);
  o.collectives = {};
  o.dtypes = {"fp8"};
  EXPECT_THROW(plan_multi(o), std::invalid_argument);
}

TEST(MultiPlan, UnderALauncherOneRankRow) {
  MultiOptions o;
  o.devices = {"cpu"};
  o.launch.launcher = multi::Launcher::torchrun;
  o.launch.rank = 2;
  o.launch.world_size = 4;
  const auto keys = keys_of(o);
  EXPECT_EQ(keys[0], "multi/gloo/group/n4");
  EXPECT_EQ(keys[1], "multi/gloo/rank/r2");
  EXPECT_EQ(keys[2].rfind("multi/gloo/all_reduce/", 0), 0u);
  EXPECT_EQ(multi_world_size(o), 4);
  EXPECT_EQ(multi_rank(o), 2);
}

TEST(MultiResolve, LocalChoices) {
  std::string note;
  MultiRequest q;
  auto o = resolve_multi_request(q, with_gpus(0), {}, note);
  EXPECT_EQ(o.devices, (std::vector<std::string>{"cpu", "cpu"}));
  EXPECT_NE(note.find("no GPU"), std::string::npos);
  o = resolve_multi_request(q, with_gpus(4), {}, note);
  EXPECT_EQ(o.devices.size(), 4u);
  EXPECT_EQ(o.peer_devices.size(), 4u);
  q.ranks = 2;
  o = resolve_multi_request(q, with_gpus(4), {}, note);
  EXPECT_EQ(o.devices, (std::vector<std::string>{"cuda:0", "cuda:1"}));
  q.ranks = 5;
  EXPECT_THROW(resolve_multi_request(q, with_gpus(4), {}, note), std::invalid_argument);
  q = {};
  o = resolve_multi_request(q, with_gpus(1), {}, note);
  EXPECT_EQ(o.devices.size(), 1u);
  EXPECT_TRUE(list_multi_items(o).empty());  // one GPU: nothing to measure
  EXPECT_NE(note.find("one GPU"), std::string::npos);
  q.device = "cpu";
  q.ranks = 3;
  o = resolve_multi_request(q, with_gpus(2), {}, note);
  EXPECT_EQ(o.devices, (std::vector<std::string>(3, "cpu")));
  q.backend = "nccl";
  EXPECT_THROW(resolve_multi_request(q, with_gpus(2), {}, note), std::invalid_argument);
  q = {};
  q.device = "cuda";
  EXPECT_THROW(resolve_multi_request(q, with_gpus(0), {}, note), std::invalid_argument);
  q.device = "cuda:1";
  EXPECT_THROW(resolve_multi_request(q, with_gpus(2), {}, note), std::invalid_argument);
}

TEST(MultiResolve, UnderALauncher) {
  multi::LaunchInfo l;
  l.launcher = multi::Launcher::slurm;
  l.rank = 5;
  l.world_size = 8;
  l.local_rank = 1;
  l.master_addr = "gpu07";
  l.master_port = 29956;
  std::string note;
  MultiRequest q;
  auto o = resolve_multi_request(q, with_gpus(4), l, note);
  EXPECT_EQ(o.devices, std::vector<std::string>{"cuda:1"});
  EXPECT_TRUE(o.peer_devices.empty());  // local rank 0 measures the pairs
  EXPECT_NE(note.find("rank 5 of 8"), std::string::npos);
  o = resolve_multi_request(q, with_gpus(1), l, note);  // srun --gpus-per-task=1
  EXPECT_EQ(o.devices, std::vector<std::string>{"cuda:0"});
  l.local_rank = 0;
  o = resolve_multi_request(q, with_gpus(4), l, note);
  EXPECT_EQ(o.peer_devices.size(), 4u);
  l.local_rank = 3;
  EXPECT_THROW(resolve_multi_request(q, with_gpus(2), l, note), std::invalid_argument);
  q.ranks = 2;
  EXPECT_THROW(resolve_multi_request(q, with_gpus(4), l, note), std::invalid_argument);
}

TEST(MultiReport, TablesSlowestLinkAndVerdict) {
  Report rep;
  Result g = multi_row("multi/gloo/group/n2", "group", "group");
  g.evidence["backend"] = "gloo";
  g.shape = "2 ranks on 2 hosts";
  rep.results.push_back(g);
  for (int r = 0; r < 2; ++r) {
    Result k = multi_row("multi/gloo/rank/r" + std::to_string(r), "rank", "rank");
    k.evidence["identity"] =
        json{{"rank", r}, {"host", r ? "nodeB" : "nodeA"}, {"device", "cpu"}, {"torch", "1.13.0"}};
    rep.results.push_back(k);
  }
  Result c = multi_row("multi/gloo/all_reduce/fp32/4MiB/n2", "collective", "all_reduce");
  c.metrics = {{"size_bytes", 4.0 * 1024 * 1024}, {"busbw_gbps", 1.5}, {"algbw_gbps", 1.5}, {"ranks", 2}};
  c.timing = make_timing({2800, 2900, 3000}, 2, 1, "host_clock");
  rep.results.push_back(c);
  for (const auto& [s, d, bw] : {std::tuple<int, int, double>{0, 1, 2.0}, {1, 0, 0.7}}) {
    Result l = multi_row("multi/gloo/send_recv/fp32/4MiB/r" + std::to_string(s) + "-r" + std::to_string(d),
                         "link", "send_recv");
    l.metrics = {{"size_bytes", 4.0 * 1024 * 1024}, {"busbw_gbps", bw}, {"src_rank", s}, {"dst_rank", d}};
    l.evidence["src_host"] = s ? "nodeB" : "nodeA";
    l.evidence["dst_host"] = d ? "nodeB" : "nodeA";
    rep.results.push_back(l);
  }
  const Result* slow = slowest_link(rep.results);
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->key, "multi/gloo/send_recv/fp32/4MiB/r1-r0");
  const std::string text = render_multi_tables(rep.results, ConsoleStyle{160, false});
  EXPECT_NE(text.find("nodeA"), std::string::npos);
  EXPECT_NE(text.find("nodeB"), std::string::npos);
  EXPECT_NE(text.find("<- slowest link"), std::string::npos);
  EXPECT_NE(text.find("busbw"), std::string::npos);
  const std::string v = multi_verdict_line(rep, {});
  EXPECT_NE(v.find("2 ranks on 2 hosts (gloo)"), std::string::npos) << v;
  EXPECT_NE(v.find("slowest link r1 -> r0"), std::string::npos) << v;
  EXPECT_NE(v.find("no problems found"), std::string::npos) << v;
  EXPECT_EQ(render_multi_tables({}, ConsoleStyle{}), "");
  EXPECT_EQ(render_topology(Environment{}, ConsoleStyle{}), "");
}

}  // namespace
}  // namespace accel::engine
