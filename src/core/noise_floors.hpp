// How far two processes' figures of the same thing differ, per device class
// and kind of result, learned from measurement (issue 16): the floors under
// `compare`'s noise threshold. The data that set each floor, and how, is in
// docs/noise-floors.md; the table itself is in noise_floors.cpp.
//
// Classes: the device class ("cpu"; "gpu" for every accelerator), the kind
// of result ("check", "bench", "llm", "train") and the size class of the
// figure: "tiny" (a per-call median under 100 us: launch-bound), "small"
// (under 10 ms), "large", or "metric" (no timing: tokens/s, samples/s).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct NoiseFloor {
  std::string_view device_class;  ///< "cpu", "gpu"
  ResultKind kind = ResultKind::none;
  std::string_view size;  ///< "tiny", "small", "large", "metric"
  /// Relative change two single runs of the same thing can show: exp(1.25 *
  /// the largest |ln(B/A)| measured) - 1, rounded up to 5%.
  double single = 0;
  /// The same for the medians of 3 runs on each side (`--repeat 3`).
  double repeated = 0;
  /// The measurement behind it, or "provisional: ..." where none was made.
  std::string_view source;
};

/// Every floor, most specific first.
const std::vector<NoiseFloor>& noise_floor_table();

/// "cpu" for a CPU device (or none), else "gpu".
std::string device_class_of(const std::string& device);
/// "tiny", "small", "large" by the timing median, "metric" without one.
std::string size_class_of(const Result& r);
/// The floor of `r`'s class: the exact row, else the row of its device class
/// and kind with the nearest size, else the device class's largest floor.
const NoiseFloor& noise_floor_for(const Result& r);

/// Runs a figure must come from on each side for the `repeated` floor.
constexpr std::size_t kRepeatedFloorRuns = 3;

}  // namespace accel
