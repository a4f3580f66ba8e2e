#include "core/machine_context.hpp"

#include <algorithm>

namespace accel {

namespace {
void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}
}  // namespace

MachineContext machine_context_of(const Environment& env, const std::string& device) {
  MachineContext m;
  m.os = env.host.os;
  m.backend = env.torch.backend;
  m.measured_device = device;
  std::vector<std::string> archs, names, versions;
  auto name_of = [](const std::string& name, const std::optional<bool>& integrated) {
    return name + (integrated && *integrated ? " (integrated)" : "");
  };
  for (const auto& d : env.devices) {  // the measured device first
    if (d.id == device) {
      add_unique(archs, d.arch);
      add_unique(names, name_of(d.name, d.integrated));
    }
  }
  for (const auto& d : env.devices) {
    if (d.type == "cpu") continue;
    add_unique(archs, d.arch);
    add_unique(names, name_of(d.name, d.integrated));
  }
  for (const auto& g : env.gpus) {
    add_unique(archs, g.gfx_target);
    if (g.gfx_target.empty() && !g.compute_capability.empty()) {
      std::string cc = g.compute_capability;
      cc.erase(std::remove(cc.begin(), cc.end(), '.'), cc.end());
      add_unique(archs, "sm_" + cc);
    }
    if (!g.name.empty()) add_unique(names, name_of(g.name, g.integrated));
  }
  m.arch = join(archs, ", ");
  m.gpu = join(names, ", ");
  if (!env.torch.version.empty()) versions.push_back("torch " + env.torch.version);
  if (!env.torch.cuda_version.empty()) versions.push_back("CUDA " + env.torch.cuda_version);
  if (!env.torch.hip_version.empty()) versions.push_back("HIP " + env.torch.hip_version);
  if (env.torch.backend == "cpu" && !env.torch.version.empty()) versions.push_back("cpu-only build");
  if (!env.driver.nvidia_driver.empty()) versions.push_back("driver " + env.driver.nvidia_driver);
  if (!env.driver.rocm_version.empty()) versions.push_back("ROCm " + env.driver.rocm_version);
  m.versions = join(versions, ", ");
  std::vector<std::string> vars;
  for (const auto& v : env.env_vars) vars.push_back(v.name + "=" + v.value);
  m.env = join(vars, "\n");
  m.env_known = true;  // the probe lists every GPU-related variable that is set
  return m;
}

}  // namespace accel

// JSON (de)serialisers declared in core/machine_context.hpp.
namespace accel {
ACCEL_JSON_DEFINE(MachineContext, os, arch, backend, gpu, versions, env, env_known, measured_device)
}  // namespace accel
