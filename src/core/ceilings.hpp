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
};

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

/// Fills `roofline` of every result with a timing and work. Checks and LLM
/// rows are bounded by the measured bandwidth when there is one (issue 3:
/// "arithmetic intensity x measured bandwidth"); benchmarks by the
/// datasheet, since they measure the hardware itself.
void annotate_rooflines(std::vector<Result>& results, const std::vector<DeviceCeilings>& ceilings);

}  // namespace accel
