// Typed views of the open-ended JSON of the evidence model: the parts of
// GpuHardware::vendor_info (written by the platform probes) and of
// Result::evidence (written by the engine's suites) that the rules, the
// ceilings and the reporters read. Each view is read once into a small
// struct instead of string-key lookups at every use; a field that is absent
// or of another type reads as empty. The JSON itself (docs/report-schema.md)
// is unchanged.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/evidence.hpp"
#include "core/multi/nccl_log.hpp"

namespace accel {

// ---------------------------------------------------------------- vendor_info

/// vendor_info["nvml"] of an NVIDIA GPU (platform/nvml.cpp): the state of
/// the GPU when the environment was probed.
struct NvmlFacts {
  std::optional<int> other_compute_processes;  ///< compute contexts of other processes
  /// Every compute process's pid as the JSON holds it; nullopt when not listed.
  std::optional<std::vector<std::string>> compute_process_pids;
  std::optional<double> utilization_gpu_percent;
  std::optional<double> memory_used_bytes;
  std::optional<double> memory_total_bytes;
  /// The active clock event reasons ("hw_slowdown", ...); nullopt when not listed.
  std::optional<std::vector<std::string>> clocks_event_reasons;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<double> max_clock_sm_mhz;
  std::optional<double> max_clock_mem_mhz;
};

/// The GPU's NVML facts; nullopt when NVML did not describe it.
std::optional<NvmlFacts> nvml_facts(const GpuHardware& g);

/// vendor_info["kfd"]["node"]: the AMD KFD topology node of the GPU.
std::optional<int> kfd_node(const GpuHardware& g);

/// vendor_info["pci"]["slot_link"]: the link of the slot above a board with
/// its own PCIe switch (platform/pci.cpp); nullopt when none was recorded
/// or it does not read as a PcieLink.
std::optional<PcieLink> pci_slot_link(const GpuHardware& g);

// ---------------------------------------------------------------- LLM rows

/// The bench row an LLM row's roofline is of (evidence.gemm_ceiling,
/// evidence.bandwidth_ceiling: engines/torch/llm/llm_suite.cpp).
struct LlmCeiling {
  std::string key;     ///< the bench row's key
  std::string source;  ///< where the figure comes from
  double tflops = 0;   ///< the GEMM ceiling (gemm_ceiling)
  double gbps = 0;     ///< the bandwidth ceiling (bandwidth_ceiling)
};

/// What an LLM row's evidence says about its speed.
struct LlmEvidence {
  std::optional<std::string> bottleneck;  ///< what bounds a decode step, in words
  bool launch_bound = false;              ///< the suite found the decode step launch-bound
  std::optional<LlmCeiling> gemm_ceiling;
  std::optional<LlmCeiling> bandwidth_ceiling;
  /// Device time per decode step by kernel class, in µs, in the JSON's order;
  /// nullopt when not recorded.
  std::optional<std::vector<std::pair<std::string, double>>> device_time_per_step_us;
};

LlmEvidence llm_evidence(const Result& r);

// ---------------------------------------------------------------- multi rows

/// One rank of a multi run: evidence.identity of a rank row, or an entry of
/// a group row's evidence.identities (engines/torch/multi/steps.cpp).
struct RankIdentity {
  std::optional<int> rank;  ///< absent: not an identity
  std::optional<std::string> host;
  int local_rank = 0;
  std::string device;  ///< "cuda:0", "cpu"
  std::string device_name;
  std::string torch;                          ///< torch's version
  std::string backend;                        ///< "nccl", "gloo"
  std::string backend_version;                ///< the backend library's version
  std::optional<multi::NcclLogSummary> nccl;  ///< what NCCL/RCCL said it chose (its debug output)
};

RankIdentity rank_identity(const json& id);

}  // namespace accel
