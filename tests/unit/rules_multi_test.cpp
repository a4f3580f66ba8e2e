// core/rules/rules_multi.cpp: each rule fires on the evidence it names
// (topologies probed from tests/fixtures/sysfs/, multi rows built here in
// the shape the engine writes them) and stays silent on healthy ones.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/report/multi_tables.hpp"
#include "platform/probes.hpp"
#include "platform_test_util.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

Topology topology_of(const std::string& machine) {
  const auto roots = platform::test::recorded(machine);
  return platform::probe_topology(roots, platform::probe_gpus(roots));
}

bool any_multi(const std::vector<Finding>& fs) { return has(fs, "multi."); }

Result row(const std::string& key, const std::string& category, const std::string& name) {
  return multi_row(key, category, name, "cuda:0");
}

json identity(int rank, const std::string& host, const std::string& nccl_version, const json& transports) {
  json id{{"rank", rank},
          {"host", host},
          {"local_rank", rank},
          {"device", "cuda:0"},
          {"backend", "nccl"},
          {"torch", "2.11.0"},
          {"backend_version", nccl_version}};
  id["nccl"] = json{{"version", nccl_version}, {"transports", transports}};
  return id;
}

Result group_row(const json& identities) {
  Result g = row("multi/nccl/group/n2", "group", "group");
  g.evidence["backend"] = "nccl";
  g.evidence["identities"] = identities;
  g.shape = "2 ranks on 1 host";
  return g;
}

json p2p_transports() {
  return json::array({json{{"from_rank", 0}, {"to_rank", 1}, {"kind", "P2P"}, {"detail", "P2P/CUMEM/read"}},
                      json{{"from_rank", 1}, {"to_rank", 0}, {"kind", "P2P"}, {"detail", "P2P/CUMEM/read"}}});
}

Report healthy_multi_report() {
  Report r = load_report("h200-healthy.json");
  r.context.environment.topology = topology_of("dual-gpu-healthy");
  r.results.push_back(group_row(json::array({identity(0, "h100-box", "2.21.5", p2p_transports()),
                                             identity(1, "h100-box", "2.21.5", p2p_transports())})));
  return r;
}

TEST(RulesMulti, SilentOnOneGpuAndOnHealthyMultiGpu) {
  for (const char* name : {"h200-healthy.json", "h200-vulkan-healthy.json", "cpu-reference-blas.json"}) {
    const auto fs = run_rules(load_report(name));
    EXPECT_FALSE(any_multi(fs)) << name << ": " << ids(fs);
  }
  const auto fs = run_rules(healthy_multi_report());
  EXPECT_FALSE(any_multi(fs)) << ids(fs);
}

TEST(RulesMulti, SilentOnRecordedPerRankReportsMerged) {
  // Two ranks' own reports (recorded under torchrun's variables), merged as
  // report --from does: every key once, both ranks' rows.
  Report merged = load_report("multi-gloo-rank0.json");
  for (const auto& r : load_report("multi-gloo-rank1.json").results) {
    const bool seen = std::any_of(merged.results.begin(), merged.results.end(),
                                  [&](const Result& m) { return m.key == r.key; });
    if (!seen) merged.results.push_back(r);
  }
  int ranks = 0;
  for (const auto& r : merged.results) ranks += r.category == "rank";
  EXPECT_EQ(ranks, 2);
  const auto fs = run_rules(merged);
  for (const auto& f : fs) {
    if (f.id.rfind("multi.", 0) == 0) ADD_FAILURE() << f.id << ": " << f.title;
  }
  const std::string text = render_multi_tables(merged.results, ConsoleStyle{160, false});
  EXPECT_NE(text.find("<- slowest link"), std::string::npos) << text;
  EXPECT_NE(multi_verdict_line(merged, {}).find("2 ranks on 1 host (gloo)"), std::string::npos);
}

TEST(RulesMulti, AcsIommuShmAndNarrowLink) {
  ACCEL_SKIP_ON_WINDOWS("the topology is probed from a recorded sysfs tree (Linux probes)");
  Report r = load_report("h200-healthy.json");
  r.context.environment.topology = topology_of("dual-gpu-acs-x4");
  const auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.p2p_blocked")) << ids(fs);
  const Finding f = with_id(fs, "multi.p2p_blocked").front();
  EXPECT_EQ(to_string(f.severity), "warning");
  EXPECT_NE(f.evidence.find("0000:02:08.0"), std::string::npos) << f.evidence;
  EXPECT_NE(f.evidence.find("translates"), std::string::npos) << f.evidence;
  EXPECT_NE(f.fix.find("iommu=pt"), std::string::npos);
  EXPECT_NE(f.fix.find("setpci"), std::string::npos);
  ASSERT_TRUE(has(fs, "multi.shm_small")) << ids(fs);
  EXPECT_NE(with_id(fs, "multi.shm_small").front().fix.find("--shm-size"), std::string::npos);
  ASSERT_TRUE(has(fs, "multi.narrow_link")) << ids(fs);
  EXPECT_NE(with_id(fs, "multi.narrow_link").front().evidence.find("0000:05:00.0 runs on x4"),
            std::string::npos);
}

TEST(RulesMulti, P2pBlockedIsCriticalWhenACollectiveHung) {
  ACCEL_SKIP_ON_WINDOWS("the topology is probed from a recorded sysfs tree (Linux probes)");
  Report r = load_report("h200-healthy.json");
  r.context.environment.topology = topology_of("dual-gpu-acs-x4");
  Result c = row("multi/nccl/all_reduce/fp32/1MiB/n2", "collective", "all_reduce");
  c.status = Status::hung;
  c.reason = "no result within 180 s; the worker was killed";
  r.results.push_back(c);
  const auto fs = run_rules(r);
  EXPECT_EQ(to_string(with_id(fs, "multi.p2p_blocked").front().severity), "critical");
  EXPECT_TRUE(has(fs, "multi.group_failed"));
}

TEST(RulesMulti, NcclSettings) {
  Report r = healthy_multi_report();
  r.context.environment.env_vars.push_back({"NCCL_P2P_DISABLE", "1", ""});
  auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.nccl_setting")) << ids(fs);
  EXPECT_NE(with_id(fs, "multi.nccl_setting").front().title.find("NCCL_P2P_DISABLE=1"), std::string::npos);
  // What NCCL itself said it read counts too (a rank on another node).
  Report q = healthy_multi_report();
  q.results.back().evidence["identities"][1]["nccl"]["env_settings"] = json{{"NCCL_SHM_DISABLE", "1"}};
  fs = run_rules(q);
  EXPECT_TRUE(has(fs, "multi.nccl_setting")) << ids(fs);
  // Zero is the default: silent.
  Report z = healthy_multi_report();
  z.context.environment.env_vars.push_back({"NCCL_P2P_DISABLE", "0", ""});
  EXPECT_FALSE(has(run_rules(z), "multi.nccl_setting"));
}

TEST(RulesMulti, SocketFallbackSameHostAndBetweenHosts) {
  const json sockets =
      json::array({json{{"from_rank", 0}, {"to_rank", 1}, {"kind", "NET"}, {"detail", "NET/Socket/0"}}});
  Report same = healthy_multi_report();
  same.results.back().evidence["identities"] =
      json::array({identity(0, "box", "2.21.5", sockets), identity(1, "box", "2.21.5", json::array())});
  auto fs = run_rules(same);
  ASSERT_TRUE(has(fs, "multi.socket_fallback")) << ids(fs);
  EXPECT_EQ(to_string(with_id(fs, "multi.socket_fallback").front().severity), "warning");
  Report cross = healthy_multi_report();
  cross.results.back().evidence["identities"] =
      json::array({identity(0, "nodeA", "2.21.5", sockets), identity(1, "nodeB", "2.21.5", json::array())});
  fs = run_rules(cross);
  EXPECT_FALSE(has(fs, "multi.socket_fallback")) << ids(fs);
  ASSERT_TRUE(has(fs, "multi.socket_network")) << ids(fs);
  EXPECT_EQ(to_string(with_id(fs, "multi.socket_network").front().severity), "info");
}

TEST(RulesMulti, VersionMismatchFromMergedRankRows) {
  // Two per-rank reports merged (report --from): each has its own rank row.
  Report r = load_report("h200-healthy.json");
  for (const auto& [rank, version] : {std::pair<int, const char*>{0, "2.21.5"}, {1, "2.18.3"}}) {
    Result k = row("multi/nccl/rank/r" + std::to_string(rank), "rank", "rank");
    k.evidence["identity"] = identity(rank, rank ? "nodeB" : "nodeA", version, json::array());
    r.results.push_back(k);
  }
  const auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.nccl_version_mismatch")) << ids(fs);
  const Finding f = with_id(fs, "multi.nccl_version_mismatch").front();
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_NE(f.evidence.find("2.18.3 on rank 1 (nodeB)"), std::string::npos) << f.evidence;
  EXPECT_FALSE(has(fs, "multi.torch_version_mismatch"));
}

TEST(RulesMulti, GroupFailed) {
  Report r = healthy_multi_report();
  r.results.back().status = Status::error;
  r.results.back().reason = "the TCP store at node0:29500 (rank 0 hosts it): Connection refused";
  r.results.back().error = ErrorInfo{r.results.back().reason, "", "", "", ""};
  const auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.group_failed")) << ids(fs);
  EXPECT_EQ(to_string(with_id(fs, "multi.group_failed").front().severity), "critical");
}

TEST(RulesMulti, SlowLink) {
  Report r = healthy_multi_report();
  const double gb[] = {20, 21, 19.5, 2.1};
  for (int i = 0; i < 4; ++i) {
    Result l =
        row(fmt::format("multi/nccl/send_recv/fp32/64MiB/r{}-r{}", i, (i + 1) % 4), "link", "send_recv");
    l.metrics["size_bytes"] = 64.0 * 1024 * 1024;
    l.metrics["busbw_gbps"] = gb[i];
    l.shape = fmt::format("rank {} -> rank {}", i, (i + 1) % 4);
    r.results.push_back(l);
  }
  auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.slow_link")) << ids(fs);
  EXPECT_NE(with_id(fs, "multi.slow_link").front().evidence.find("rank 3 -> rank 0"), std::string::npos);
  r.results.back().metrics["busbw_gbps"] = 18;  // all alike: silent
  EXPECT_FALSE(has(run_rules(r), "multi.slow_link"));
}

TEST(RulesMulti, LowBusbwAgainstTheLinkBound) {
  ACCEL_SKIP_ON_WINDOWS(
      "the link bound comes from a topology probed from a recorded sysfs tree (Linux probes)");
  Report r = healthy_multi_report();
  Result c = row("multi/nccl/all_reduce/fp32/1GiB/n2", "collective", "all_reduce");
  c.evidence["backend"] = "nccl";
  c.metrics["size_bytes"] = 1024.0 * 1024 * 1024;
  c.metrics["busbw_gbps"] = 9.0;  // the healthy pair's bound is ~63 GB/s (x16 Gen5)
  r.results.push_back(c);
  auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "multi.low_busbw")) << ids(fs);
  r.results.back().metrics["busbw_gbps"] = 45.0;
  EXPECT_FALSE(has(run_rules(r), "multi.low_busbw"));
}

TEST(RulesMulti, PeerCopySlowAndPeerAccessRefused) {
  ACCEL_SKIP_ON_WINDOWS(
      "the link bound comes from a topology probed from a recorded sysfs tree (Linux probes)");
  Report r = healthy_multi_report();
  Result p = row("multi/cuda/p2p_copy/d0-d1/peer/256MiB", "peer", "p2p_copy_peer");
  p.metrics["gbps"] = 12;
  Roofline rf;
  rf.bandwidth_gbps = 63;
  rf.percent_of_bound = 19;
  p.roofline = rf;
  p.shape = "cuda:0 -> cuda:1, 256MiB";
  r.results.push_back(p);
  Result a = row("multi/cuda/peer_access/d0-d1", "peer", "peer_access");
  a.metrics["peer_access_ab"] = 0;
  a.metrics["peer_access_ba"] = 0;
  a.shape = "cuda:0 <-> cuda:1";
  a.warnings.push_back("cudaDeviceCanAccessPeer: cuda:0 -> cuda:1 no, cuda:1 -> cuda:0 no");
  r.results.push_back(a);
  const auto fs = run_rules(r);
  EXPECT_TRUE(has(fs, "multi.peer_copy_slow")) << ids(fs);
  ASSERT_TRUE(has(fs, "multi.p2p_blocked")) << ids(fs);
  EXPECT_NE(with_id(fs, "multi.p2p_blocked").front().title.find("not available"), std::string::npos);
}

TEST(RulesMulti, ListedWithTheirTriggers) {
  int n = 0;
  for (const auto& rule : list_rules()) n += rule.id.rfind("multi.", 0) == 0;
  EXPECT_GE(n, 10);
}

}  // namespace
}  // namespace accel
