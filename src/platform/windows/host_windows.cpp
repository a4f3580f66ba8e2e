// probe_host where no implementation exists yet (Windows, macOS): every field
// is reported as not collected, so the build and the report still work.
#if !defined(__linux__)

#include "platform/detail.hpp"

namespace accel::platform {

HostInfo probe_host(const ProbeRoots&) {
  HostInfo h;
  for (const char* f :
       {"os", "kernel", "hostname", "arch", "cpu_model", "logical_cores", "physical_cores", "cpu_max_mhz",
        "simd", "memory_total_bytes", "memory_available_bytes", "cpu_governor"}) {
    h.not_collected[f] = "not implemented on this OS";
  }
  return h;
}

std::optional<std::uint64_t> self_anonymous_rss_bytes() { return std::nullopt; }

}  // namespace accel::platform

#endif  // !__linux__
