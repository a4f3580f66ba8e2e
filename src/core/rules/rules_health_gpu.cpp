// Health rules: the state of the GPU (other processes, PCIe link, throttling) and slow settings. Thresholds
// and shared helpers: rules_health_detail.hpp.
#include "core/evidence_views.hpp"
#include "core/rules/rules_health_detail.hpp"

namespace accel::rules::health {

// ---------------------------------------------------------------- GPU state

void rule_gpu_processes(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& g : c.env.gpus) {
    const auto n = nvml_facts(g);
    if (!n || !n->other_compute_processes) continue;
    const int others = *n->other_compute_processes;
    if (others <= 0) continue;
    std::string evidence = fmt::format("{} other process{} with a compute context on {}", others,
                                       others == 1 ? "" : "es", g.name.empty() ? g.pci_address : g.name);
    if (n->compute_process_pids) evidence += " (pids " + list_some(*n->compute_process_pids, 6) + ")";
    if (n->utilization_gpu_percent) {
      evidence += fmt::format("; GPU utilisation {}% before the run", *n->utilization_gpu_percent);
    }
    if (n->memory_used_bytes && n->memory_total_bytes && *n->memory_total_bytes > 0) {
      evidence +=
          fmt::format(", memory {:.0f}% in use", 100 * *n->memory_used_bytes / *n->memory_total_bytes);
    }
    out.push_back(make_finding(
        "gpu_shared", Severity::warning, 55, "Other processes are using the GPU", evidence,
        "The GPU's time and memory are shared: every measurement (and your job) gets "
        "only part of the device, and "
        "the numbers vary with the other work.",
        c.platform.os == "windows" ? "Task Manager > Details, GPU column (or nvidia-smi) shows them; close "
                                     "them, or run on another GPU"
                                   : "nvidia-smi --query-compute-apps=pid,process_name,used_memory "
                                     "--format=csv lists them; stop them or "
                                     "use another GPU (CUDA_VISIBLE_DEVICES); on a shared server ask the "
                                     "scheduler for an exclusive GPU",
        "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
  }
}

void rule_pcie(const Ctx& c, std::vector<Finding>& out) {
  // Best pinned host->device rate of the run, if any.
  double pinned = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || r.status != Status::ok) continue;
    const auto k = BenchKey::parse(r.key);
    if (k && k->group == "transfer" && k->name == "h2d_pinned") {
      const auto it = r.metrics.find("gbps");
      if (it != r.metrics.end()) pinned = std::max(pinned, it->second);
    }
  }
  for (const auto& g : c.env.gpus) {
    const std::optional<PcieLink> host = host_link_of(g);  // the slot's link on boards with a switch
    if (!host || g.integrated.value_or(false)) continue;
    const PcieLink& l = *host;
    const std::string name = g.name.empty() ? g.pci_address : g.name;
    if (l.current_width && l.max_width && *l.current_width > 0 && *l.current_width < *l.max_width) {
      out.push_back(make_finding(
          "pcie_link_degraded", Severity::warning, 45,
          fmt::format("{} runs its PCIe link at x{} of x{}", name, *l.current_width, *l.max_width),
          fmt::format(
              "PCIe link {} x{} (the device supports {} x{}){}", l.current_speed, *l.current_width,
              l.max_speed, *l.max_width,
              pinned > 0 ? fmt::format("; pinned host-to-device copies reach {}", rate(pinned, "GB/s")) : ""),
          "Fewer lanes divide host<->device bandwidth (data loading, CPU offload, copies of results) by the "
          "same "
          "factor; lanes do not drop at idle, so this is the slot, a riser, or a bad seat.",
          "Move the card to a full x16 slot wired to the CPU (see the board manual: M.2 drives and a second "
          "card "
          "often halve a slot), reseat it and check risers; lspci -vv (LnkSta) or nvidia-smi -q -d PCIE "
          "confirms",
          "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
      continue;
    }
    const double cur = pcie_gts(l.current_speed), max = pcie_gts(l.max_speed);
    if (cur > 0 && max > 0 && cur < max && pinned > 0) {
      const int width = l.current_width.value_or(l.max_width.value_or(16));
      const double expected = pcie_lane_gbps(max) * width;
      if (expected > 0 && pinned < 0.5 * expected) {
        out.push_back(make_finding(
            "pcie_link_degraded", Severity::warning, 40,
            fmt::format("{} PCIe link trained at {} of {}, and copies are slow", name, l.current_speed,
                        l.max_speed),
            fmt::format("link {} x{} (max {}); pinned host-to-device copies {} vs ~{} for the maximum link",
                        l.current_speed, width, l.max_speed, rate(pinned, "GB/s"), rate(expected, "GB/s")),
            "GPUs lower the link speed at idle, but copies under load at half the link's rate mean the link "
            "stays "
            "slow: an older slot or chipset lanes, a riser, or BIOS settings.",
            "Check the slot's generation and the BIOS PCIe setting (Auto/Gen4/Gen5), use a slot wired to the "
            "CPU, and "
            "check under load with nvidia-smi -q -d PCIE or lspci -vv (LnkSta)",
            "https://docs.nvidia.com/deploy/nvidia-smi/index.html"));
      }
    }
  }
}

void rule_throttled(const Ctx& c, std::vector<Finding>& out) {
  static const std::set<std::string> kBad{"hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown",
                                          "hw_power_brake_slowdown"};
  for (const auto& g : c.env.gpus) {
    const auto n = nvml_facts(g);
    if (!n || !n->clocks_event_reasons) continue;
    std::vector<std::string> bad;
    for (const auto& r : *n->clocks_event_reasons) {
      if (kBad.count(r)) bad.push_back(r);
    }
    if (bad.empty()) continue;
    std::string evidence = fmt::format("NVML reports clock slowdown on {}: {}",
                                       g.name.empty() ? g.pci_address : g.name, list_some(bad));
    if (n->temperature_c) evidence += fmt::format("; temperature {} °C", *n->temperature_c);
    if (n->power_w) {
      evidence += fmt::format(", power {:.0f} W", *n->power_w);
      if (n->power_limit_w) evidence += fmt::format(" of {:.0f} W", *n->power_limit_w);
    }
    out.push_back(make_finding("gpu_throttled", Severity::warning, 65,
                               "The GPU is slowing its clocks down (thermal or power protection)", evidence,
                               "A throttled GPU runs at a fraction of its clocks, so everything is slower "
                               "than its datasheet and timings "
                               "drift.",
                               "Check cooling (fans, airflow, dust, case), the power cables and supply; "
                               "nvidia-smi -q -d PERFORMANCE shows "
                               "which reason is active under load",
                               "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html"));
  }
}

void rule_slow_env(const Ctx& c, std::vector<Finding>& out) {
  if (!c.options.data) return;
  for (const auto& s : c.options.data->slow_env_vars) {
    const EnvVar* v = c.env_var(s.name);
    if (!v) continue;
    if (!RE2::FullMatch(v->value, s.match)) continue;
    std::string fix = unset_var_advice(c.platform, s.name);
    if (!s.fix.empty()) fix += "; " + s.fix;
    out.push_back(make_finding("slow_setting", s.severity,
                               s.severity == Severity::critical  ? 85
                               : s.severity == Severity::warning ? 50
                                                                 : 10,
                               fmt::format("{}={} slows this run down", s.name, v->value),
                               fmt::format("{}={} is set in the environment", s.name, v->value), s.why, fix,
                               "kb/env_vars.json and kb/rules.json (accel-doctor)"));
  }
}

}  // namespace accel::rules::health
