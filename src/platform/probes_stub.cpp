// TEMPORARY: placeholders until the platform probes land (same session).
#include "platform/probes.hpp"

namespace accel::platform {
HostInfo probe_host(const ProbeRoots&) { HostInfo h; h.not_collected["all"] = "probe not written yet"; return h; }
BlasInfo probe_blas() { BlasInfo b; b.not_collected["all"] = "probe not written yet"; return b; }
std::vector<GpuHardware> probe_gpus(const ProbeRoots&) { return {}; }
DriverInfo probe_drivers(const ProbeRoots&) { return {}; }
std::vector<EnvVar> probe_env_vars(const KnowledgeBase&, const std::vector<std::string>&) { return {}; }
std::vector<EnvVar> probe_env_vars(const KnowledgeBase&) { return {}; }
std::string gfx_name_from_target_version(unsigned long) { return {}; }
std::vector<std::string> offload_targets_in_file(const std::string&) { return {}; }
std::string loaded_library_path(const std::string&) { return {}; }
}  // namespace accel::platform
