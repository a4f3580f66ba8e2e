// Internal to the set-up rules (rules_setup*.cpp): thresholds, references and
// helpers they share, and the rule functions the table in rules_setup.cpp
// lists (one concept per file). Not a public API.
#pragma once

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/rules/context.hpp"

namespace accel::rules::setup {

constexpr const char* kRefLocally = "https://pytorch.org/get-started/locally/";
constexpr const char* kRefHsaWindows = "https://github.com/ROCm/TheRock/issues/1719";
constexpr const char* kRefRocmEnv = "https://rocm.docs.amd.com/en/latest/reference/env-variables.html";
constexpr const char* kRefCudaEnv =
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars";
constexpr const char* kRefRocmPerms =
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html";

inline std::string vendor_name(std::string_view v) {
  if (v == "nvidia") return "NVIDIA";
  if (v == "amd") return "AMD";
  if (v == "intel") return "Intel";
  if (v == "apple") return "Apple";
  return std::string(v);
}

inline std::string gpu_label(const GpuHardware& g) {
  std::string name =
      g.name.empty() ? fmt::format("{} GPU {}:{}", vendor_name(g.vendor), g.vendor_id, g.device_id) : g.name;
  if (!g.gfx_target.empty()) name += " (" + g.gfx_target + ")";
  if (!g.pci_address.empty()) name += " at " + g.pci_address;
  return name;
}

inline bool is_gpu_vendor(std::string_view v) { return v == "nvidia" || v == "amd" || v == "intel"; }

inline std::vector<const DeviceInfo*> accelerators(const Environment& env) {
  std::vector<const DeviceInfo*> out;
  for (const auto& d : env.devices) {
    if (lower(d.type) != "cpu") out.push_back(&d);
  }
  return out;
}

/// "gfx1030" -> "10.3.0", "gfx90a" -> "9.0.10"; "" when not a gfx name (rules_setup_arch.cpp).
std::string gfx_version_of(std::string_view target);

// Rule functions, by file.
// rules_setup_no_accelerator.cpp: no accelerator found (CPU-only torch, hidden by visibility variables,
// device permissions)
void rule_cpu_only_torch(const Ctx& c, std::vector<Finding>& out);
void rule_no_device(const Ctx& c, std::vector<Finding>& out);
// rules_setup_arch.cpp: a GPU architecture missing from the torch build
void rule_arch_not_in_build(const Ctx& c, std::vector<Finding>& out);
// rules_setup_hsa.cpp: HSA_OVERRIDE_GFX_VERSION, one function per finding
void rule_hsa_override(const Ctx& c, std::vector<Finding>& out);
// rules_setup_igpu.cpp: an integrated GPU selected while a discrete one is there
void rule_integrated_selected(const Ctx& c, std::vector<Finding>& out);
// rules_setup.cpp
void rule_no_engine(const Ctx& c, std::vector<Finding>& out);

}  // namespace accel::rules::setup
