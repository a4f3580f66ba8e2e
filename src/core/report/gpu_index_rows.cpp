#include "core/report/gpu_index_rows.hpp"

#include <fmt/format.h>

#include "core/adapter_join.hpp"

namespace accel {

std::vector<EnvRow> gpu_index_rows(const Environment& env, const std::vector<Result>& results) {
  const auto adapters = join_adapter_indices(env, results);
  bool any_framework = false;
  for (const auto& a : adapters) any_framework = any_framework || !a.torch.empty() || a.vulkan_index;
  if (!env.windows && (adapters.size() < 2 || !any_framework)) return {};
  std::vector<EnvRow> rows;
  for (const auto& a : adapters) {
    std::string label = a.name.empty() ? "(unnamed)" : a.name;
    std::string value = indices_text(a);
    if (a.software) {
      value += "; software";
    } else if (a.integrated) {
      value += *a.integrated ? "; integrated" : "; discrete";
    }
    value += !a.luid.empty() ? "; LUID " + a.luid : !a.pci_address.empty() ? "; PCI " + a.pci_address : "";
    if (!a.joined_by.empty()) {
      std::string how;
      for (const auto& j : a.joined_by) how += (how.empty() ? "" : ", ") + j;
      value += " (" + how + ")";
    }
    rows.push_back({"GPU indices", label, value});
  }
  if (rows.empty() && env.windows) rows.push_back({"GPU indices", "adapters", "none listed by DXGI"});
  return rows;
}

}  // namespace accel
