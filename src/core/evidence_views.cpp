#include "core/evidence_views.hpp"

namespace accel {

namespace {

/// j[key] when j is an object holding it, else null.
const json& member(const json& j, const char* key) {
  static const json null_json;
  if (!j.is_object()) return null_json;
  const auto it = j.find(key);
  return it == j.end() ? null_json : *it;
}

std::optional<double> number(const json& j, const char* key) {
  const json& v = member(j, key);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

std::optional<std::string> string(const json& j, const char* key) {
  const json& v = member(j, key);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

/// An integer field read as the rules always have (a float truncates); one
/// that does not fit an int reads as absent.
std::optional<int> integer(const json& j, const char* key) {
  const json& v = member(j, key);
  if (!v.is_number()) return std::nullopt;
  try {
    return v.get<int>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::optional<LlmCeiling> ceiling(const json& evidence, const char* key) {
  const json& c = member(evidence, key);
  if (!c.is_object()) return std::nullopt;
  LlmCeiling out;
  out.key = string(c, "key").value_or("");
  out.source = string(c, "source").value_or("");
  out.tflops = number(c, "tflops").value_or(0.0);
  out.gbps = number(c, "gbps").value_or(0.0);
  return out;
}

}  // namespace

std::optional<NvmlFacts> nvml_facts(const GpuHardware& g) {
  const json& n = member(g.vendor_info, "nvml");
  if (!n.is_object()) return std::nullopt;
  NvmlFacts f;
  f.other_compute_processes = integer(n, "other_compute_processes");
  if (const json& pids = member(n, "compute_process_pids"); pids.is_array()) {
    f.compute_process_pids.emplace();
    for (const auto& p : pids) f.compute_process_pids->push_back(p.dump());
  }
  f.utilization_gpu_percent = number(n, "utilization_gpu_percent");
  f.memory_used_bytes = number(n, "memory_used_bytes");
  f.memory_total_bytes = number(n, "memory_total_bytes");
  if (const json& reasons = member(n, "clocks_event_reasons"); reasons.is_array()) {
    f.clocks_event_reasons.emplace();
    for (const auto& r : reasons) {
      if (r.is_string()) f.clocks_event_reasons->push_back(r.get<std::string>());
    }
  }
  f.temperature_c = number(n, "temperature_c");
  f.power_w = number(n, "power_w");
  f.power_limit_w = number(n, "power_limit_w");
  f.max_clock_sm_mhz = number(n, "max_clock_sm_mhz");
  f.max_clock_mem_mhz = number(n, "max_clock_mem_mhz");
  return f;
}

std::optional<int> kfd_node(const GpuHardware& g) {
  const json& node = member(member(g.vendor_info, "kfd"), "node");
  if (!node.is_number_integer()) return std::nullopt;
  return node.get<int>();
}

std::optional<PcieLink> pci_slot_link(const GpuHardware& g) {
  const json& pci = member(g.vendor_info, "pci");
  if (!pci.is_object() || !pci.contains("slot_link")) return std::nullopt;
  try {
    return pci["slot_link"].get<PcieLink>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

LlmEvidence llm_evidence(const Result& r) {
  LlmEvidence e;
  e.bottleneck = string(r.evidence, "bottleneck");
  const json& launch = member(r.evidence, "launch_bound");
  e.launch_bound = launch.is_boolean() && launch.get<bool>();
  e.gemm_ceiling = ceiling(r.evidence, "gemm_ceiling");
  e.bandwidth_ceiling = ceiling(r.evidence, "bandwidth_ceiling");
  if (const json& by_class = member(r.evidence, "device_time_per_step_us"); by_class.is_object()) {
    e.device_time_per_step_us.emplace();
    for (const auto& [k, v] : by_class.items()) {
      if (v.is_number()) e.device_time_per_step_us->emplace_back(k, v.get<double>());
    }
  }
  return e;
}

RankIdentity rank_identity(const json& id) {
  RankIdentity r;
  r.rank = integer(id, "rank");
  r.host = string(id, "host");
  r.local_rank = integer(id, "local_rank").value_or(0);
  r.device = string(id, "device").value_or("");
  r.device_name = string(id, "device_name").value_or("");
  r.torch = string(id, "torch").value_or("");
  r.backend = string(id, "backend").value_or("");
  r.backend_version = string(id, "backend_version").value_or("");
  if (const json& nccl = member(id, "nccl"); nccl.is_object()) {
    try {
      r.nccl = nccl.get<multi::NcclLogSummary>();
    } catch (const std::exception&) {
      r.nccl.reset();
    }
  }
  return r;
}

}  // namespace accel
