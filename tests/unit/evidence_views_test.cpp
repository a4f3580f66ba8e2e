// core/evidence_views.hpp: the typed views of vendor_info and of an LLM
// row's evidence read what the probes and suites write, and read a missing
// or mistyped field as empty instead of throwing.
#include <gtest/gtest.h>

#include "core/evidence_views.hpp"

namespace accel {
namespace {

GpuHardware gpu_with(const json& vendor_info) {
  GpuHardware g;
  g.vendor_info = vendor_info;
  return g;
}

TEST(EvidenceViews, NvmlFactsAsNvmlWritesThem) {
  const auto n = nvml_facts(gpu_with({{"nvml",
                                       {{"other_compute_processes", 2},
                                        {"compute_process_pids", json::array({101, 202})},
                                        {"utilization_gpu_percent", 37},
                                        {"memory_used_bytes", 4e9},
                                        {"memory_total_bytes", 8e9},
                                        {"clocks_event_reasons", json::array({"hw_slowdown", 7, "idle"})},
                                        {"temperature_c", 88},
                                        {"power_w", 690.5},
                                        {"power_limit_w", 700.0},
                                        {"max_clock_sm_mhz", 1980},
                                        {"max_clock_mem_mhz", 2619}}}}));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->other_compute_processes, 2);
  ASSERT_TRUE(n->compute_process_pids);
  EXPECT_EQ(*n->compute_process_pids, (std::vector<std::string>{"101", "202"}));
  EXPECT_EQ(n->utilization_gpu_percent, 37.0);
  EXPECT_EQ(n->memory_used_bytes, 4e9);
  EXPECT_EQ(n->memory_total_bytes, 8e9);
  ASSERT_TRUE(n->clocks_event_reasons);
  EXPECT_EQ(*n->clocks_event_reasons, (std::vector<std::string>{"hw_slowdown", "idle"}));  // strings only
  EXPECT_EQ(n->temperature_c, 88.0);
  EXPECT_EQ(n->power_w, 690.5);
  EXPECT_EQ(n->power_limit_w, 700.0);
  EXPECT_EQ(n->max_clock_sm_mhz, 1980.0);
  EXPECT_EQ(n->max_clock_mem_mhz, 2619.0);
}

TEST(EvidenceViews, NvmlFactsMissingOrMistyped) {
  EXPECT_FALSE(nvml_facts(gpu_with(json::object())));
  EXPECT_FALSE(nvml_facts(gpu_with(json::array())));
  EXPECT_FALSE(nvml_facts(gpu_with({{"nvml", 3}})));
  const auto n = nvml_facts(gpu_with({{"nvml",
                                       {{"index", 0},
                                        {"other_compute_processes", "two"},
                                        {"compute_process_pids", json::array()},
                                        {"temperature_c", "hot"},
                                        {"clocks_event_reasons", "hw_slowdown"}}}}));
  ASSERT_TRUE(n);  // an NVML object with little in it (seen by NVML only)
  EXPECT_FALSE(n->other_compute_processes);
  ASSERT_TRUE(n->compute_process_pids);  // listed, but empty
  EXPECT_TRUE(n->compute_process_pids->empty());
  EXPECT_FALSE(n->temperature_c);
  EXPECT_FALSE(n->clocks_event_reasons);
  EXPECT_FALSE(n->max_clock_sm_mhz);
  // A count too large for an int reads as absent, not as an exception.
  EXPECT_FALSE(
      nvml_facts(gpu_with({{"nvml", {{"other_compute_processes", 1e30}}}}))->other_compute_processes);
  EXPECT_EQ(nvml_facts(gpu_with({{"nvml", {{"other_compute_processes", 3.7}}}}))->other_compute_processes, 3);
}

TEST(EvidenceViews, KfdNodeAndSlotLink) {
  EXPECT_EQ(kfd_node(gpu_with({{"kfd", {{"node", 2}}}})), 2);
  EXPECT_FALSE(kfd_node(gpu_with({{"kfd", {{"node", 2.5}}}})));
  EXPECT_FALSE(kfd_node(gpu_with({{"kfd", 1}})));
  EXPECT_FALSE(kfd_node(gpu_with(json::object())));

  const auto link = pci_slot_link(gpu_with(
      {{"pci",
        {{"slot_link",
          {{"current_speed", "16.0 GT/s PCIe"}, {"max_speed", "32.0 GT/s PCIe"}, {"current_width", 16}}}}}}));
  ASSERT_TRUE(link);
  EXPECT_EQ(link->current_speed, "16.0 GT/s PCIe");
  EXPECT_EQ(link->max_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(link->current_width, 16);
  EXPECT_FALSE(pci_slot_link(gpu_with({{"pci", {{"bridge", "0000:00:01.0"}}}})));
  EXPECT_FALSE(pci_slot_link(gpu_with({{"pci", {{"slot_link", {{"current_width", "wide"}}}}}})));

  // host_link_of (core/ceilings.hpp): the slot's link, else the endpoint's.
  GpuHardware g = gpu_with({{"pci", {{"slot_link", {{"current_speed", "16.0 GT/s PCIe"}}}}}});
  g.link = PcieLink{"8.0 GT/s PCIe", "8.0 GT/s PCIe", 4, 4};
  EXPECT_EQ(pci_slot_link(g)->current_speed, "16.0 GT/s PCIe");
  g.vendor_info = json::object();
  EXPECT_FALSE(pci_slot_link(g));
}

TEST(EvidenceViews, LlmEvidenceAsTheSuiteWritesIt) {
  Result r;
  r.evidence = {{"bottleneck", "launch-bound: 1200 kernels per step"},
                {"launch_bound", true},
                {"gemm_ceiling",
                 {{"key", "bench/cuda/gemm/square/bf16/8192"}, {"tflops", 700.0}, {"source", "measured"}}},
                {"bandwidth_ceiling", {{"key", "bench/cuda/memory/copy"}, {"gbps", 4000.0}}},
                {"device_time_per_step_us", {{"gemm", 50.0}, {"attention", 20.0}, {"other", "n/a"}}}};
  const LlmEvidence e = llm_evidence(r);
  EXPECT_EQ(e.bottleneck, "launch-bound: 1200 kernels per step");
  EXPECT_TRUE(e.launch_bound);
  ASSERT_TRUE(e.gemm_ceiling);
  EXPECT_EQ(e.gemm_ceiling->key, "bench/cuda/gemm/square/bf16/8192");
  EXPECT_EQ(e.gemm_ceiling->tflops, 700.0);
  EXPECT_EQ(e.gemm_ceiling->source, "measured");
  ASSERT_TRUE(e.bandwidth_ceiling);
  EXPECT_EQ(e.bandwidth_ceiling->gbps, 4000.0);
  EXPECT_EQ(e.bandwidth_ceiling->source, "");
  ASSERT_TRUE(e.device_time_per_step_us);
  // Numbers only, in the JSON object's (name) order.
  EXPECT_EQ(*e.device_time_per_step_us,
            (std::vector<std::pair<std::string, double>>{{"attention", 20.0}, {"gemm", 50.0}}));
}

TEST(EvidenceViews, LlmEvidenceMissingOrMistyped) {
  Result r;
  LlmEvidence e = llm_evidence(r);
  EXPECT_FALSE(e.bottleneck);
  EXPECT_FALSE(e.launch_bound);
  EXPECT_FALSE(e.gemm_ceiling);
  EXPECT_FALSE(e.bandwidth_ceiling);
  EXPECT_FALSE(e.device_time_per_step_us);
  r.evidence = {
      {"bottleneck", 3}, {"launch_bound", 1}, {"gemm_ceiling", "x"}, {"device_time_per_step_us", 5}};
  e = llm_evidence(r);
  EXPECT_FALSE(e.bottleneck);
  EXPECT_FALSE(e.launch_bound);
  EXPECT_FALSE(e.gemm_ceiling);
  EXPECT_FALSE(e.device_time_per_step_us);
  r.evidence = json::array();  // not an object at all
  EXPECT_FALSE(llm_evidence(r).bottleneck);
}

TEST(EvidenceViews, RankIdentityAsTheMultiSuiteWritesIt) {
  const RankIdentity id = rank_identity(
      {{"rank", 1},
       {"local_rank", 1},
       {"host", "nodeB"},
       {"device", "cuda:1"},
       {"device_name", "NVIDIA H100"},
       {"torch", "2.6.0"},
       {"backend", "nccl"},
       {"backend_version", "2.21.5"},
       {"nccl",
        {{"version", "2.21.5+cuda12.4"},
         {"network", "Socket"},
         {"env_settings", {{"NCCL_P2P_DISABLE", "1"}}},
         {"p2p_failures", json::array({"Could not enable P2P between dev 0 and dev 1"})},
         {"transports", json::array({{{"from_rank", 1}, {"to_rank", 0}, {"detail", "NET/Socket/0"}}})}}}});
  EXPECT_EQ(id.rank, 1);
  EXPECT_EQ(id.local_rank, 1);
  EXPECT_EQ(id.host, "nodeB");
  EXPECT_EQ(id.device, "cuda:1");
  EXPECT_EQ(id.device_name, "NVIDIA H100");
  EXPECT_EQ(id.torch, "2.6.0");
  EXPECT_EQ(id.backend, "nccl");
  EXPECT_EQ(id.backend_version, "2.21.5");
  ASSERT_TRUE(id.nccl);
  EXPECT_EQ(id.nccl->version, "2.21.5+cuda12.4");
  EXPECT_EQ(id.nccl->network, "Socket");
  EXPECT_EQ(id.nccl->env_settings.at("NCCL_P2P_DISABLE"), "1");
  ASSERT_EQ(id.nccl->p2p_failures.size(), 1u);
  ASSERT_EQ(id.nccl->transports.size(), 1u);
  EXPECT_EQ(id.nccl->transports[0].from_rank, 1);
  EXPECT_EQ(id.nccl->transports[0].to_rank, 0);
  EXPECT_EQ(id.nccl->transports[0].detail, "NET/Socket/0");
}

TEST(EvidenceViews, RankIdentityMissingOrMistyped) {
  RankIdentity id = rank_identity(json::object());
  EXPECT_FALSE(id.rank);  // not an identity: the rules skip it
  EXPECT_FALSE(id.host);
  EXPECT_EQ(id.local_rank, 0);
  EXPECT_FALSE(id.nccl);
  id = rank_identity({{"rank", 0}});  // a rank whose identity could not be gathered
  EXPECT_EQ(id.rank, 0);
  EXPECT_FALSE(id.nccl);
  id = rank_identity({{"rank", "zero"}, {"host", 7}, {"nccl", {{"transports", "P2P"}}}});
  EXPECT_FALSE(id.rank);
  EXPECT_FALSE(id.host);
  EXPECT_FALSE(id.nccl);
  EXPECT_FALSE(rank_identity(json::array()).rank);
}

}  // namespace
}  // namespace accel
