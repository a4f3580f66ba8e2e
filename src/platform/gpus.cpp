// probe_gpus: the sysfs PCI scan, merged with the KFD topology and NVML.
#include <algorithm>

#include "platform/detail.hpp"

namespace accel::platform {

std::vector<GpuHardware> probe_gpus(const ProbeRoots& roots, NotCollected* not_collected) {
  using namespace detail;
  std::vector<GpuHardware> gpus;
  NotCollected errors;
  try {
    std::vector<KfdNode> nodes;
#if defined(__linux__)
    std::string err;
    gpus = scan_pci_display_devices(roots, &err);
    if (!err.empty()) errors["pci"] = err;
    std::string kfd_err;
    nodes = read_kfd_nodes(roots.sys, &kfd_err);
    const bool any_amd =
        std::any_of(gpus.begin(), gpus.end(), [](const GpuHardware& g) { return g.vendor == "amd"; });
    if (!kfd_err.empty() && any_amd) errors["kfd"] = kfd_err;
    merge_kfd(gpus, nodes);
#else
    errors["pci"] = "the PCI scan is not implemented on this OS (Linux sysfs only)";
#endif
    for (auto& g : gpus) classify_integrated(g, nodes);
    if (roots.use_vendor_libraries) {
      merge_nvml(gpus, errors);
    } else {
      for (auto& g : gpus) {
        if (g.vendor == "nvidia")
          g.not_collected["nvml"] = "vendor libraries disabled (use_vendor_libraries = false)";
      }
    }
    std::sort(gpus.begin(), gpus.end(),
              [](const GpuHardware& a, const GpuHardware& b) { return a.pci_address < b.pci_address; });
  } catch (const std::exception& e) {
    errors["gpus"] = std::string("probe failed: ") + e.what();
  }
  if (not_collected) not_collected->insert(errors.begin(), errors.end());
  return gpus;
}

}  // namespace accel::platform
