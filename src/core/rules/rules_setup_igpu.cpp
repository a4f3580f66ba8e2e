// Set-up rules: an integrated GPU selected while a discrete one is there. Thresholds and shared helpers:
// rules_setup_detail.hpp.
#include "core/rules/rules_setup_detail.hpp"

namespace accel::rules::setup {

// ---------------------------------------------------------------- integrated GPU

void rule_integrated_selected(const Ctx& c, std::vector<Finding>& out) {
  if (c.target_is_cpu() || !c.target_device) return;
  const DeviceInfo& d = *c.target_device;
  bool integrated = d.integrated.value_or(false);
  const GpuHardware* hw = nullptr;
  for (const auto& g : c.env.gpus) {
    if (!d.pci_bus_id.empty() && lower(g.pci_address) == lower(d.pci_bus_id)) hw = &g;
  }
  if (hw && hw->integrated) integrated = *hw->integrated;
  if (!integrated && c.options.kb && starts_with(d.arch, "gfx")) {
    if (const auto a = c.options.kb->gfx_arch(d.arch); a && a->integrated && !d.integrated.has_value()) {
      integrated = true;
    }
  }
  if (!integrated) return;
  // A discrete GPU torch sees, or one present in hardware.
  const DeviceInfo* other = nullptr;
  for (const auto& o : c.env.devices) {
    if (&o != &d && lower(o.type) != "cpu" && o.integrated.has_value() && !*o.integrated) other = &o;
  }
  const GpuHardware* other_hw = nullptr;
  for (const auto& g : c.env.gpus) {
    if (g.integrated.has_value() && !*g.integrated && is_gpu_vendor(g.vendor)) other_hw = &g;
  }
  if (!other && !other_hw) return;
  std::string evidence = fmt::format("measured device {} is integrated{}", c.device_label(d.id),
                                     c.env.selection ? " (selected: " + c.env.selection->reason + ")" : "");
  std::string fix;
  if (other) {
    evidence += fmt::format("; torch also sees the discrete {}", c.device_label(other->id));
    fix = fmt::format(
        "Use the discrete GPU: torch.device(\"{0}\") in your code (accel-doctor --device {0}){1}", other->id,
        c.platform.backend == "directml"
            ? fmt::format("; with DirectML: torch_directml.device({})", other->index)
            : "");
    // On Windows every library's index of that adapter, from the one join.
    if (const std::string all = windows_index_advice(c, other->id); !all.empty()) fix = all;
  } else {
    std::vector<std::string> vars;
    for (const char* n :
         {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
      if (const EnvVar* v = c.env_var(n)) vars.push_back(fmt::format("{}={}", v->name, v->value));
    }
    evidence +=
        fmt::format("; the discrete {} is in the machine but torch does not see it{}", gpu_label(*other_hw),
                    vars.empty() ? "" : " (" + list_some(vars) + " limits what torch sees)");
    fix = vars.empty()
              ? "Make the discrete GPU visible to torch (driver, and for AMD a target it supports); "
                "then select it with torch.device(\"cuda:N\")"
              : "Change " + vars.front().substr(0, vars.front().find('=')) +
                    " to list the discrete GPU (rocm-smi / nvidia-smi show the indices), or unset it";
  }
  out.push_back(make_finding("integrated_gpu_selected", Severity::warning, 80,
                             "The integrated GPU does the work while a discrete GPU is idle", evidence,
                             "An integrated GPU shares the CPU's memory bandwidth and power: it is often no "
                             "faster than the CPU, while "
                             "the discrete GPU sits idle.",
                             fix, kRefLocally));
}

}  // namespace accel::rules::setup
