#include "engine/checks/check.hpp"

namespace accel::engine {

void add_norm_checks(std::vector<CheckDef>& out) { (void)out; }

}  // namespace accel::engine
