#include "engine_api/bench_ceilings.hpp"

#include <fmt/format.h>

#include "core/result_keys.hpp"

namespace accel::engine {

std::string gemm_ceiling_key(const std::string& device_type, const std::string& dtype) {
  const int n = device_type == "cpu" ? 512 : 4096;
  return BenchKey{device_type, "gemm", "square", dtype, fmt::format("{}x{}x{}", n, n, n)}.str();
}

std::vector<std::string> memory_ceiling_keys(const std::string& device_type) {
  std::vector<std::string> keys;
  for (const char* m : {"copy", "triad", "reduce"}) {
    keys.push_back(BenchKey{device_type, "memory", m, "fp32", "rotating"}.str());
  }
  return keys;
}

const Result* find_ceiling(const std::vector<Result>& rows, const std::string& key) {
  for (const auto& r : rows) {
    if (r.key == key && r.status == Status::ok && (r.metrics.count("tflops") || r.metrics.count("gbps"))) {
      return &r;
    }
  }
  return nullptr;
}

const Result* best_memory_ceiling(const std::vector<Result>& rows, const std::string& device_type) {
  const Result* best = nullptr;
  for (const auto& key : memory_ceiling_keys(device_type)) {
    const Result* r = find_ceiling(rows, key);
    if (r && r->metrics.count("gbps") && (!best || r->metrics.at("gbps") > best->metrics.at("gbps")))
      best = r;
  }
  return best;
}

}  // namespace accel::engine
