#include "core/ceilings.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/evidence_views.hpp"
#include "core/roofline.hpp"

namespace accel {

namespace {

const char* const kCeilingDtypes[] = {"fp32", "tf32", "fp16", "bf16", "int8", "fp64"};

const GpuHardware* hardware_for(const Environment& env, const DeviceInfo& d) {
  for (const auto& g : env.gpus) {
    if (!d.pci_bus_id.empty() && g.pci_address.size() >= 7 && d.pci_bus_id.size() >= 7 &&
        g.pci_address.substr(g.pci_address.size() - 7) == d.pci_bus_id.substr(d.pci_bus_id.size() - 7)) {
      return &g;
    }
  }
  return nullptr;
}
}  // namespace

double pcie_gts(const std::string& speed) {
  try {
    const double gt = std::stod(speed);
    return std::isfinite(gt) && gt > 0 ? gt : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

double pcie_lane_gbps(double gt) {
  if (!(gt > 0) || !std::isfinite(gt)) return 0;
  if (gt <= 5.0) return gt * 0.8 / 8;
  if (gt <= 32.0) return gt * 128.0 / 130.0 / 8;
  return gt * 242.0 / 256.0 / 8;
}

Peak pcie_link_peak(const PcieLink& link, bool max_width) {
  Peak p;
  p.unit = "GB/s";
  p.basis = "unknown";
  // The maximum speed only: an idle GPU trains its link down, so the current
  // speed would draw a bound several times too low.
  const double gt = pcie_gts(link.max_speed);
  const int width = max_width ? link.max_width.value_or(link.current_width.value_or(0))
                              : link.current_width.value_or(link.max_width.value_or(0));
  const double lane = pcie_lane_gbps(gt);
  if (lane <= 0 || width <= 0) {
    p.source = "no PCIe maximum link speed and width found for this device";
    return p;
  }
  p.value = lane * width;
  p.basis = "estimated";
  p.source = fmt::format(
      "PCIe link {:g} GT/s (the maximum speed) x{} lanes ({} width) x {} / 8 bits = {:.1f} GB/s per "
      "direction",
      gt, width, max_width ? "maximum" : "current",
      gt <= 5.0    ? "8b/10b"
      : gt <= 32.0 ? "128b/130b"
                   : "242/256 (FLIT)",
      p.value);
  return p;
}

std::optional<PcieLink> host_link_of(const GpuHardware& hw) {
  if (auto slot = pci_slot_link(hw)) return slot;
  return hw.link;  // the endpoint's link
}

std::string peak_dtype_for(const Result& r) {
  const std::string dt = normalize_peak_dtype(r.dtype);
  if (dt == "fp32" && r.kind == ResultKind::check && r.category == "conv" && r.device.rfind("cuda", 0) == 0)
    return "tf32";
  return dt;
}

namespace {

/// The CPU's compute peaks, estimated from the host's cores, clock and SIMD.
void cpu_ceilings(const Environment& env, const PeakRates& rates, DeviceCeilings& c) {
  CpuProperties cpu;
  cpu.model = env.host.cpu_model;
  cpu.arch = env.host.arch;
  cpu.physical_cores = env.host.physical_cores ? env.host.physical_cores : env.host.logical_cores;
  cpu.max_clock_mhz = env.host.cpu_max_mhz;
  cpu.simd = env.host.simd;
  for (const char* dt : kCeilingDtypes) c.compute[dt] = compute_peak(rates, cpu, dt);
  c.datasheet_bandwidth.basis = "unknown";
  c.datasheet_bandwidth.unit = "GB/s";
  c.datasheet_bandwidth.source = "no datasheet figure for CPU memory bandwidth; see the measured copy";
}

/// What the peak formulas and kb/gpus.json need of a device: torch's
/// description, and the clocks NVML reports for its board.
GpuProperties gpu_properties(const Environment& env, const DeviceInfo* info) {
  GpuProperties gpu;
  if (!info) return gpu;
  gpu.name = info->name;
  gpu.vendor = info->vendor;
  gpu.arch = info->arch;
  gpu.multiprocessors = info->multiprocessors;
  if (info->total_memory_bytes) gpu.memory_bytes = static_cast<double>(*info->total_memory_bytes);
  if (const auto* hw = hardware_for(env, *info)) {
    if (const auto nvml = nvml_facts(*hw)) {
      gpu.max_clock_mhz = nvml->max_clock_sm_mhz;
      gpu.memory_clock_mhz = nvml->max_clock_mem_mhz;
    }
  }
  return gpu;
}

/// A GPU's compute peaks (datasheet rows scaled to a higher boost clock),
/// its datasheet bandwidth and the PCIe link to the host.
void gpu_ceilings(const Environment& env, const std::string& dev, const GpuPeakTable* table,
                  const PeakRates& rates, DeviceCeilings& c) {
  const DeviceInfo* info = nullptr;
  for (const auto& d : env.devices) {
    if (d.id == dev) info = &d;
  }
  const GpuProperties gpu = gpu_properties(env, info);
  for (const char* dt : kCeilingDtypes) {
    Peak p = table ? device_compute_peak(*table, gpu, dt) : compute_peak(rates, gpu, dt);
    // Boosting cards run above the clock the datasheet assumes: scale.
    if (p.known() && p.basis == "datasheet" && p.clock_mhz > 0 && gpu.max_clock_mhz &&
        *gpu.max_clock_mhz > p.clock_mhz * 1.02) {
      p = scale_peak_to_clock(p, *gpu.max_clock_mhz);
    }
    c.compute[dt] = p;
  }
  c.datasheet_bandwidth = table ? device_bandwidth_peak(*table, gpu) : memory_bandwidth_peak(gpu);
  c.host_link.unit = c.host_link_max_width.unit = "GB/s";
  c.host_link.basis = c.host_link_max_width.basis = "unknown";
  if (info && !info->integrated.value_or(false)) {
    const GpuHardware* hw = hardware_for(env, *info);
    if (hw && !hw->integrated.value_or(false)) {
      if (const auto link = host_link_of(*hw)) {
        c.host_link = pcie_link_peak(*link, false);
        c.host_link_max_width = pcie_link_peak(*link, true);
      }
    }
  }
}

/// The best streaming rate of this run (an empirical roofline, as the
/// Empirical Roofline Toolkit takes the best of its kernels): the memory
/// benchmarks (copy, triad, reduction) and the GEMV benchmarks, which
/// read a matrix rotated beyond the caches. A copy counts read + written
/// bytes but also pays for reading each written line first
/// (write-allocate), and a plain reduction leaves a CPU's prefetchers
/// idle: on the H200 host a BLAS GEMV streamed 238 GB/s against a 178
/// GB/s reduction and an 85 GB/s copy (2026-11-30), which read as a
/// figure above its peak. A GEMV needs an anchor and counts only up to
/// it: 105% of a known datasheet (or estimated) bandwidth, else 1.5x the
/// best memory benchmark. Beyond that it is a timing error (a GEMV timed
/// without its synchronisation) or a matrix the caches still hold, and
/// must stay flagged, not raise the bound that flags it.
void measured_bandwidth(const std::string& dev, const std::vector<Result>& measured, DeviceCeilings& c) {
  const Result* best_memory = nullptr;
  for (const auto& m : measured) {
    if (m.device == dev && m.kind == ResultKind::bench && m.category == "memory" && m.status == Status::ok &&
        m.metrics.count("gbps") && std::isfinite(m.metrics.at("gbps")) && m.metrics.at("gbps") > 0 &&
        (!best_memory || m.metrics.at("gbps") > best_memory->metrics.at("gbps"))) {
      best_memory = &m;
    }
  }
  if (best_memory) {
    c.measured_bandwidth =
        measured_peak(best_memory->metrics.at("gbps"), "GB/s",
                      fmt::format("best memory benchmark measured in this run ({})", best_memory->key));
  }
  const double gemv_anchor = c.datasheet_bandwidth.known() ? 1.05 * c.datasheet_bandwidth.value
                             : best_memory                 ? 1.5 * best_memory->metrics.at("gbps")
                                                           : 0;
  for (const auto& m : measured) {
    if (m.device != dev || m.kind != ResultKind::bench || m.status != Status::ok || m.category != "gemm" ||
        !m.evidence.contains("rotating_b_copies") || !m.timing || m.timing->median_us <= 0 ||
        m.work.bytes <= 0) {
      continue;
    }
    const double gbps = m.work.bytes / m.timing->median_us / 1e3;
    if (!std::isfinite(gbps) || gbps > gemv_anchor) continue;
    if (!c.measured_bandwidth || gbps > c.measured_bandwidth->value) {
      c.measured_bandwidth = measured_peak(
          gbps, "GB/s",
          fmt::format("best streaming rate measured in this run ({}: a GEMV reading its matrix from copies "
                      "rotated beyond the caches)",
                      m.key));
    }
  }
}

}  // namespace

std::vector<DeviceCeilings> build_ceilings(const Environment& env, const std::vector<Result>& results,
                                           const std::vector<Result>& measured, const GpuPeakTable* table) {
  std::vector<std::string> devices;
  for (const auto& r : results) {
    if (!r.device.empty() && std::find(devices.begin(), devices.end(), r.device) == devices.end()) {
      devices.push_back(r.device);
    }
  }
  static const PeakRates kNoRates;  // without the kb's tables, estimates say why they are unknown
  const PeakRates& rates = table ? table->rates() : kNoRates;
  std::vector<DeviceCeilings> out;
  for (const auto& dev : devices) {
    DeviceCeilings c;
    c.device = dev;
    if (dev == "cpu") {
      cpu_ceilings(env, rates, c);
    } else {
      gpu_ceilings(env, dev, table, rates, c);
    }
    measured_bandwidth(dev, measured, c);
    out.push_back(std::move(c));
  }
  return out;
}

void annotate_rooflines(std::vector<Result>& results, const std::vector<DeviceCeilings>& ceilings) {
  for (auto& r : results) {
    if (r.status != Status::ok || !r.timing || r.timing->median_us <= 0) continue;
    if (r.work.flops <= 0 && r.work.bytes <= 0) continue;
    if (r.kind == ResultKind::bench && r.category == "launch") continue;
    const DeviceCeilings* c = nullptr;
    for (const auto& dc : ceilings) {
      if (dc.device == r.device) c = &dc;
    }
    if (!c) continue;
    if (r.kind == ResultKind::bench && r.category == "transfer") {
      if (!c->host_link.known()) continue;
      Peak no_compute;
      no_compute.basis = "unknown";
      Roofline link = make_roofline(r.work, r.timing->median_us, no_compute, c->host_link);
      // Above the trained width's bound but not the maximum width's: the
      // link was narrower when probed than under the copies.
      if (link.above_peak && c->host_link_max_width.known()) {
        link = make_roofline(r.work, r.timing->median_us, no_compute, c->host_link_max_width);
      }
      // Faster than the PCIe link found: the copies take another path
      // (NVLink-C2C, a unified-memory APU), so the link is no bound.
      if (link.above_peak) {
        r.evidence["host_link_note"] = fmt::format(
            "{:.1f} GB/s is above the {:.1f} GB/s PCIe link found for this device: the copies take another "
            "path (NVLink-C2C, unified memory), so no link bound is drawn",
            link.achieved_gbps, std::max(c->host_link.value, c->host_link_max_width.value));
        continue;
      }
      r.roofline = link;
      continue;
    }
    Peak compute;
    compute.basis = "unknown";
    const std::string dt = peak_dtype_for(r);
    if (const auto it = c->compute.find(dt); it != c->compute.end()) compute = it->second;
    // Workloads and checks are drawn against the bandwidth measured in this
    // run; benchmarks against the datasheet (a memory benchmark against
    // itself says nothing), except a compute benchmark on a device without
    // a datasheet bandwidth (a CPU): its GEMV rows are memory-bound, and a
    // compute-only bound would understate them many times.
    const bool use_measured =
        c->measured_bandwidth &&
        (r.kind != ResultKind::bench || (r.category != "memory" && !c->datasheet_bandwidth.known()));
    Peak bandwidth = use_measured ? *c->measured_bandwidth : c->datasheet_bandwidth;
    // An LLM decode row is drawn against the bench row it names (the suite
    // computed its % of the ceiling from that row), so the roofline and the
    // row's own figures cite one number, shown in the report under its key.
    if (r.kind == ResultKind::llm) {
      if (const auto bc = llm_evidence(r).bandwidth_ceiling; bc && std::isfinite(bc->gbps) && bc->gbps > 0) {
        bandwidth = measured_peak(bc->gbps, "GB/s",
                                  fmt::format("best memory benchmark measured in this run ({})", bc->key));
      }
    }
    // Memory-bound work (<= 2 FLOP/byte: below the ridge point of every CPU
    // and GPU in kb/gpus.json) without a bandwidth ceiling gets no bound: the
    // compute peak alone would call a GEMV at full speed "3%" (issue 19).
    if (!bandwidth.known() && r.work.bytes > 0 && r.work.flops <= 2 * r.work.bytes) continue;
    // A memory benchmark's bound is the bandwidth: unknown (no datasheet
    // figure) leaves it without one, never bounded by the compute peak.
    if (r.kind == ResultKind::bench && r.category == "memory" && !bandwidth.known()) continue;
    r.roofline = make_roofline(r.work, r.timing->median_us, compute, bandwidth);
  }
}

}  // namespace accel
