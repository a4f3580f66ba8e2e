// The bandwidth a GPU-to-GPU link can carry in one direction, from what the
// probes read: PCIe lanes and speed, NVLink count and architecture. These
// are the bounds the measured peer copies and bus bandwidths are drawn
// against (docs/multi.md, "Bounds").
//
// PCIe, per lane and direction, after line encoding (PCI-SIG base
// specifications; 8b/10b for 2.5 and 5 GT/s, 128b/130b for 8-32 GT/s, FLIT
// mode 242/256 for 64 GT/s):
//   2.5 GT/s 0.250 GB/s   5 GT/s 0.500   8 GT/s 0.985   16 GT/s 1.969
//   32 GT/s 3.938         64 GT/s 7.563
// Protocol overhead (TLP headers) takes another 10-20% in practice: a x16
// Gen4 link carries ~26 GB/s of data at best of its 31.5.
// NVLink, per link and direction (NVIDIA product briefs): P100 (sm_60) 20
// GB/s, V100 (sm_70) 25, A100 (sm_80) 25, GA10x NVLink bridges (sm_86)
// 14.0625, H100/H200 (sm_90) 25, B200 (sm_100) 50.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace accel::multi {

/// GB/s per lane and direction for a sysfs speed ("16.0 GT/s PCIe", "8 GT/s",
/// "2.5 GT/s PCIe"); nullopt when it names none of the rates above.
std::optional<double> pcie_lane_gbps(std::string_view speed);

/// A PCIe link's bound in one direction: `width` lanes at `speed`; nullopt
/// when either is unknown.
std::optional<double> pcie_link_gbps(std::string_view speed, std::optional<int> width);

/// GB/s per NVLink and direction for a compute capability ("9.0", "8.6");
/// nullopt for one not in the table above.
std::optional<double> nvlink_link_gbps(std::string_view compute_capability);

/// A PCI address in sysfs form ("0000:19:00.0"): lower case, a 4-digit
/// domain (NVML and torch write "00000000:19:00.0"). Unchanged when it does
/// not look like one.
std::string normalize_pci_address(std::string_view address);

/// The generation number of a sysfs speed: "16.0 GT/s PCIe" -> 4; 0 when unknown.
int pcie_generation(std::string_view speed);

}  // namespace accel::multi
