// Set-up rules: is an accelerator used at all, and if not, why (CPU-only
// torch, driver, device permissions, devices hidden by a variable); the
// device's architecture against the build; HSA_OVERRIDE_GFX_VERSION; an
// integrated GPU measured while a discrete one is in the machine.
//
// The rules themselves are in rules_setup_*.cpp, one concept per file.
#include "core/rules/rules_setup_detail.hpp"

namespace accel::rules {

namespace setup {

// ---------------------------------------------------------------- no engine

/// The front end ran without a torch engine (engine_api/process_engine.hpp):
/// the machine was read, nothing was measured.
void rule_no_engine(const Ctx& c, std::vector<Finding>& out) {
  const auto it = c.env.torch.not_collected.find("engine");
  if (it == c.env.torch.not_collected.end() || !c.env.torch.version.empty()) return;
  const std::string& why = it->second;
  out.push_back(make_finding(
      "no_engine", Severity::warning, 90, "Nothing was measured: accel-doctor found no torch engine",
      why.substr(0, why.find('\n')),
      "accel-doctor reads the machine itself, but it measures (operator checks, benchmarks, LLM and "
      "training workloads) and asks torch about its build and devices through its torch engine, "
      "accel-doctor-torch. Without one, whether the GPU does the work is not proven either way.",
      "Build the engine beside accel-doctor: `make doctor` (or `cmake --build build --target "
      "accel-doctor-torch`), or point at one with --engine PATH",
      ""));
}

}  // namespace setup

std::vector<RuleEntry> setup_rules() {
  using namespace setup;
  return {
      {"no_engine", "no torch engine answered (torch.not_collected.engine): nothing could be measured",
       rule_no_engine},
      {"no_accelerator.cpu_only_torch",
       "torch.backend is cpu, torch sees no device, and a GPU was found without torch", rule_cpu_only_torch},
      {"no_accelerator.*",
       "a GPU build of torch sees no device: *_VISIBLE_DEVICES hides them, device nodes denied, "
       "driver missing or cuInit failed",
       rule_no_device},
      {"arch_not_in_build",
       "a device with arch_in_build false (AMD targets an override fixes are left to hsa_override)",
       rule_arch_not_in_build},
      {"hsa_override.*",
       "ROCm: HSA_OVERRIDE_GFX_VERSION missing, wrong, unnecessary or risky for the gfx target "
       "(kb/arch.json), or one global value for GPUs needing different ones",
       rule_hsa_override},
      {"integrated_gpu_selected",
       "the measured device is integrated while a discrete GPU exists (seen by torch or "
       "only in hardware)",
       rule_integrated_selected},
  };
}

}  // namespace accel::rules
