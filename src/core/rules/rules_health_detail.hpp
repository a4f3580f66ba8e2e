// Internal to the health rules (rules_health*.cpp): thresholds, references and
// helpers they share, and the rule functions the table in rules_health.cpp
// lists (one concept per file). Not a public API.
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/ceilings.hpp"
#include "core/roofline.hpp"
#include "core/rules/context.hpp"

namespace accel::rules::health {

/// Share of timed results that must be noisy before the whole run is doubted.
constexpr double kNoisyShare = 0.25;
constexpr std::size_t kNoisyMin = 5;

constexpr const char* kRefExplain = "docs/knowledge-base.md (accel-doctor explain)";
constexpr const char* kRefBenchmark = "https://pytorch.org/docs/stable/benchmark_utils.html";

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

/// Groups unrecognised messages that differ only in numbers and dtype names.
inline std::string normalise_message(const std::string& message) {
  static const std::regex kNumbers("[0-9]+");
  static const std::regex kDtypes(
      "\\b(Half|BFloat16|Float|Double|ComplexHalf|ComplexFloat|Long|Int|Short|Char|Byte|Bool|float16|"
      "bfloat16|"
      "float32|float64|half|CPUBFloat16Type|CPUHalfType|CUDABFloat16Type|CUDAHalfType)\\b");
  std::string s = std::regex_replace(first_line(message), kDtypes, "<dtype>");
  s = std::regex_replace(s, kNumbers, "#");
  return s.substr(0, 120);
}

// Rule functions, by file.
// rules_health_failures.cpp: failing checks grouped by cause, wrong results, work that left the device, CPU
// fallbacks
void rule_errors(const Ctx& c, std::vector<Finding>& out);
void rule_wrong_results(const Ctx& c, std::vector<Finding>& out);
void rule_off_device(const Ctx& c, std::vector<Finding>& out);
void rule_cpu_fallback(const Ctx& c, std::vector<Finding>& out);
// rules_health_trust.cpp: measurements that cannot be trusted (noise, figures above peak)
void rule_noisy(const Ctx& c, std::vector<Finding>& out);
void rule_above_peak(const Ctx& c, std::vector<Finding>& out);
// rules_health_host.cpp: the host (CPU limits, threads, governor)
void rule_host_cpu_limited(const Ctx& c, std::vector<Finding>& out);
void rule_threads(const Ctx& c, std::vector<Finding>& out);
void rule_governor(const Ctx& c, std::vector<Finding>& out);
// rules_health_gpu.cpp: the state of the GPU (other processes, PCIe link, throttling) and slow settings
void rule_gpu_processes(const Ctx& c, std::vector<Finding>& out);
void rule_pcie(const Ctx& c, std::vector<Finding>& out);
void rule_throttled(const Ctx& c, std::vector<Finding>& out);
void rule_slow_env(const Ctx& c, std::vector<Finding>& out);

}  // namespace accel::rules::health
