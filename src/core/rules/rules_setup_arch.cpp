// Set-up rules: a GPU architecture missing from the torch build. Thresholds and shared helpers:
// rules_setup_detail.hpp.
#include "core/rules/rules_setup_detail.hpp"

namespace accel::rules::setup {

// ---------------------------------------------------------------- architecture

/// "gfx1030" -> "10.3.0", "gfx90a" -> "9.0.10"; "" when not a gfx name.
std::string gfx_version_of(std::string_view target) {
  if (!starts_with(target, "gfx")) return "";
  const std::string d(target.substr(3));
  if (d.size() < 3) return "";
  auto digit = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
  };
  const std::string major = d.substr(0, d.size() - 2);
  const int minor = digit(d[d.size() - 2]), step = digit(d[d.size() - 1]);
  if (minor < 0 || step < 0 || major.empty()) return "";
  return fmt::format("{}.{}.{}", major, minor, step);
}

void rule_arch_not_in_build(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& d : c.env.devices) {
    if (!d.arch_in_build.has_value() || *d.arch_in_build) continue;
    std::string fix, why;
    if (starts_with(d.arch, "gfx")) {
      // Targets an override can fix are the HSA override rule's business.
      if (c.options.kb) {
        const auto a = c.options.kb->gfx_arch(d.arch);
        if (a && (a->support == "override" || a->support == "override_risky")) continue;
        if (a && !a->note.empty()) fix = a->note;
      }
      if (fix.empty()) {
        fix = fmt::format(
            "Use a torch build that includes {0} (check torch.cuda.get_arch_list()), or build torch with "
            "PYTORCH_ROCM_ARCH={0}",
            d.arch);
      }
      why =
          "torch has no GPU code for this target: operators fail with hipErrorNoBinaryForGpu / \"invalid "
          "device function\", or the device is skipped.";
    } else {
      std::string wheel;
      if (c.options.kb) {
        if (const auto a = c.options.kb->sm_arch(d.arch)) {
          wheel = a->wheel;
          if (!a->min_cuda.empty()) wheel += fmt::format(" (the architecture needs CUDA >= {})", a->min_cuda);
        }
      }
      fix = wheel.empty() ? "Install a torch build whose arch list includes " + d.arch + ": " +
                                torch_install_advice(c, "nvidia")
                          : "Install " + wheel;
      why =
          "torch has no kernels (and no PTX to compile) for this GPU: operators fail with \"no kernel image "
          "is available for execution on the device\".";
    }
    std::string arch_list = list_some(c.env.torch.arch_list, 12);
    out.push_back(
        make_finding("arch_not_in_build", Severity::critical, 94,
                     fmt::format("{} ({}, {}) is not in this torch build's architecture list",
                                 d.name.empty() ? d.id : d.name, d.arch, d.id),
                     fmt::format("device arch {}; torch {} was built for: {}", d.arch, c.env.torch.version,
                                 arch_list.empty() ? "(list not known)" : arch_list),
                     why, fix, kRefLocally));
  }
}

}  // namespace accel::rules::setup
