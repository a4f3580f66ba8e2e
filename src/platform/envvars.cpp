// The environment variables that change GPU behaviour, with their effect from
// kb/env_vars.json (exact names and NAME_* prefixes).
#include <algorithm>
#include <set>

#include "platform/detail.hpp"

namespace accel::platform {

std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb, const std::vector<std::string>& environment) {
  std::vector<EnvVar> out;
  try {
    std::set<std::string> seen;
    for (const auto& entry : environment) {
      const auto eq = entry.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      std::string name = entry.substr(0, eq);
      // The first definition is the one getenv() returns.
      if (!seen.insert(name).second) continue;
      std::string effect = kb.env_var_effect(name);
      if (effect.empty()) continue;
      out.push_back({std::move(name), entry.substr(eq + 1), std::move(effect)});
    }
    std::sort(out.begin(), out.end(), [](const EnvVar& a, const EnvVar& b) { return a.name < b.name; });
  } catch (...) {
    // Never throws: a failure leaves the list as far as it got.
  }
  return out;
}

std::vector<EnvVar> probe_env_vars(const KnowledgeBase& kb) {
  return probe_env_vars(kb, detail::process_environment());
}

std::vector<std::string> environment_entries() { return detail::process_environment(); }

}  // namespace accel::platform
