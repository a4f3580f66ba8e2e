// The ceilings each measured figure is compared against, and the roofline
// annotation of results. Pure: built from the environment (device names,
// SM counts, clocks from NVML), the datasheet table, and bandwidth measured
// in the same run.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/peaks.hpp"

namespace accel {

struct DeviceCeilings {
  std::string device;                   ///< "cuda:0", "cpu"
  std::map<std::string, Peak> compute;  ///< dtype -> peak (fp32, tf32, fp16, bf16, int8, fp64)
  Peak datasheet_bandwidth;             ///< datasheet or estimate (unknown on most CPUs)
  /// The best streaming rate of this run: memory benchmarks (copy, triad,
  /// reduction) and GEMV benchmarks reading rotated copies of their matrix
  /// (those only up to 105% of a known datasheet bandwidth, else 1.5x the
  /// best memory benchmark; never without one of these anchors).
  std::optional<Peak> measured_bandwidth;
  /// Host<->device link per direction (GB/s, estimated from the PCIe link
  /// found without torch); unknown for the CPU, integrated GPUs and devices
  /// whose link was not found.
  Peak host_link;
  /// The same link at its maximum width (a bound to fall back to when a copy
  /// beats the width the link had when probed).
  Peak host_link_max_width;
};

/// The rate of a PCIe link speed as sysfs writes it ("16.0 GT/s PCIe" -> 16);
/// 0 when it cannot be read ("Unknown", empty).
double pcie_gts(const std::string& speed);

/// Usable GB/s per lane and direction at a PCIe link rate in GT/s: 8b/10b
/// line coding up to 5 GT/s (PCIe 1.x/2.x), 128b/130b from 8 GT/s (PCIe
/// 3.0-5.0), 242/256 for PCIe 6.0's FLIT mode (PCI-SIG, PCI Express Base
/// Specification revisions 2.0-6.0). 0 for a rate <= 0.
double pcie_lane_gbps(double gt_per_s);

/// The bandwidth bound of a PCIe link per direction: the maximum speed (an
/// idle GPU lowers its current speed, so the current one is never used)
/// times the current width (or the maximum width with `max_width`),
/// labelled `estimated` with the formula. Unknown when the maximum speed
/// cannot be read ("Unknown" in sysfs) or no width is known. Packet headers
/// leave ~85-90% of it usable for large copies. The host link of a GPU is
/// `vendor_info.pci.slot_link` when the board has its own PCIe switch (AMD
/// Navi, Intel Arc), else the GPU's own link.
Peak pcie_link_peak(const PcieLink& link, bool max_width = false);

/// The link between the host and a GPU: `vendor_info.pci.slot_link` when the
/// board has its own PCIe switch (AMD Navi, Intel Arc: the GPU endpoint's
/// link is internal to the board, Arc's reads 2.5 GT/s x1), else the GPU's
/// own link; nullopt when neither was found.
std::optional<PcieLink> host_link_of(const GpuHardware& hw);

/// Ceilings for every device that appears in `results`. `measured` holds
/// results that may contain bench memory and GEMV rows for a device (the
/// highest GB/s is its measured bandwidth). Datasheet peaks are scaled to the clock NVML
/// reports when the row names the clock it assumes (boosting cards).
std::vector<DeviceCeilings> build_ceilings(const Environment& env, const std::vector<Result>& results,
                                           const std::vector<Result>& measured, const GpuPeakTable* table);

/// The peak dtype a result is compared against: "fp32" conv checks on CUDA
/// count as TF32 (cuDNN allows TF32 convolutions by default), "tf32" bench
/// rows as TF32; integer data types have no compute peak ("").
std::string peak_dtype_for(const Result& r);

/// Fills `roofline` of every result with a timing and work. Host<->device
/// transfer benchmarks are drawn against `host_link` (a rate above 105% of it
/// means the link is not the PCIe link found, e.g. NVLink-C2C: no roofline);
/// launch benchmarks have no roofline. Checks and LLM
/// rows are bounded by the measured bandwidth when there is one (issue 3:
/// "arithmetic intensity x measured bandwidth"); benchmarks by the
/// datasheet, since they measure the hardware itself.
void annotate_rooflines(std::vector<Result>& results, const std::vector<DeviceCeilings>& ceilings);

}  // namespace accel
