#include "engine_api/ops.hpp"

namespace accel::engine {

bool filters_match(const std::vector<std::string>& filters, const CheckInfo& check) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (f.empty()) continue;
    if (f == check.category || f == check.name || f == check.dtype || f == check.key) return true;
    if (check.key.find(f) != std::string::npos) return true;
  }
  return false;
}

}  // namespace accel::engine

// JSON (de)serialisers declared in engine_api/ops.hpp.
namespace accel::engine {
ACCEL_JSON_DEFINE(CheckInfo, key, name, category, dtype, shape, flops, flops_formula, bytes_formula, verify)
ACCEL_JSON_DEFINE(OpsOptions, device, quick, filters, isolate, check_timeout_s, include_test_checks, machine,
                  profile, trace_path, worker_retire_anon_bytes, worker_retire_min_items)
}  // namespace accel::engine
