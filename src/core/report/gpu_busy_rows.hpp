// GPU utilisation while the workloads ran (Result::gpu_busy, sampled by the
// front end: engine_api/busy_sampled_engine.hpp) as rows, shared by the
// console, Markdown and HTML reporters so the three show the same figures.
// Operator checks are left out (each lasts a few samples at most; their
// figures stay in the JSON).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct ConsoleStyle;

struct GpuBusyRow {
  std::string key;
  std::string gpu;              ///< "NVIDIA H200 (pci:0000:19:00.0)": the busiest GPU sampled
  std::string busy;             ///< "median 87% (max 99%)", or "-"
  std::string engines;          ///< "gpu 87/99%, memory 40/55%" (median/max per engine)
  std::string samples;          ///< "42 x 100 ms" (samples x period), or "-"
  std::string note;             ///< why not measured, "too short to judge", or ""
  std::vector<double> percent;  ///< the busiest GPU's per-sample figures (HTML sparkline)
  bool low = false;             ///< median under the gpu_busy.low rule's threshold with enough samples
};

/// Rows of the results with a gpu_busy, in report order; `kind` (bench,
/// llm, train) selects one kind, `none` every kind but check.
std::vector<GpuBusyRow> gpu_busy_rows(const std::vector<Result>& results, ResultKind kind = ResultKind::none);

/// The terminal block ("GPU busy while measuring (...):" and a line per
/// row) for `kind`'s rows; "" when there are none.
std::string render_gpu_busy(const std::vector<Result>& results, ResultKind kind, const ConsoleStyle& style);

/// The HTML report's section (`<section id="gpu-busy">`: a table with a
/// sparkline of the per-sample figures); "" when no result has a gpu_busy.
std::string render_gpu_busy_html(const std::vector<Result>& results);

/// Below this median a device workload kept the GPU mostly idle (rules_gpu_busy.cpp's threshold).
inline constexpr double kGpuBusyLowPercent = 20;

}  // namespace accel
