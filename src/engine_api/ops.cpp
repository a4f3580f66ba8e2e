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
