// probe_host on Linux: /etc/os-release, /proc/sys/kernel, uname(2),
// /proc/cpuinfo, /proc/meminfo, /sys/devices/system/cpu/*/cpufreq.
#if defined(__linux__)

#include <sys/utsname.h>
#include <cmath>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform {

using namespace detail;

namespace {

void probe_os(const ProbeRoots& roots, HostInfo& h) {
  std::string err;
  const auto text = read_text(join(roots.etc, "os-release"), &err);
  if (!text) {
    h.not_collected["os"] = err;
    return;
  }
  const auto kv = parse_os_release(*text);
  if (auto it = kv.find("PRETTY_NAME"); it != kv.end() && !it->second.empty()) {
    h.os = it->second;
  } else if (auto name = kv.find("NAME"); name != kv.end()) {
    const auto ver = kv.find("VERSION");
    h.os = name->second + (ver == kv.end() ? "" : " " + ver->second);
  } else {
    h.not_collected["os"] = join(roots.etc, "os-release") + " has neither PRETTY_NAME nor NAME";
  }
}

void probe_kernel(const ProbeRoots& roots, HostInfo& h) {
  // The recorded-tree form first (injectable), then uname(2) for the live system.
  const auto ostype = read_line(join(roots.proc, "sys/kernel/ostype"));
  const auto release = read_line(join(roots.proc, "sys/kernel/osrelease"));
  const auto hostname = read_line(join(roots.proc, "sys/kernel/hostname"));
  struct utsname u {};
  const bool have_uname = uname(&u) == 0;
  if (ostype && release) {
    h.kernel = *ostype + " " + *release;
  } else if (have_uname) {
    h.kernel = std::string(u.sysname) + " " + u.release;
  } else {
    h.not_collected["kernel"] = "neither /proc/sys/kernel/osrelease nor uname(2) answered";
  }
  if (hostname) {
    h.hostname = *hostname;
  } else if (have_uname) {
    h.hostname = u.nodename;
  } else {
    h.not_collected["hostname"] = "uname(2) failed";
  }
  if (have_uname) {
    h.arch = u.machine;
  } else {
    h.not_collected["arch"] = "uname(2) failed";
  }
}

void probe_cpu(const ProbeRoots& roots, HostInfo& h) {
  std::string err;
  const auto text = read_text(join(roots.proc, "cpuinfo"), &err);
  if (!text) {
    for (const char* f : {"cpu_model", "logical_cores", "physical_cores", "simd"}) h.not_collected[f] = err;
    return;
  }
  const CpuInfoSummary c = parse_cpuinfo(*text);
  if (!c.model.empty()) {
    h.cpu_model = c.model;
  } else {
    h.not_collected["cpu_model"] = "no model name in " + join(roots.proc, "cpuinfo");
  }
  if (c.logical > 0) {
    h.logical_cores = c.logical;
  } else {
    h.not_collected["logical_cores"] = "no processor entries in " + join(roots.proc, "cpuinfo");
  }
  if (c.physical) {
    h.physical_cores = *c.physical;
  } else {
    h.not_collected["physical_cores"] = "no core id entries in " + join(roots.proc, "cpuinfo");
  }
  h.simd = simd_flags_of_interest(c.flags);
  if (c.flags.empty()) {
    h.not_collected["simd"] = "no flags/Features line in " + join(roots.proc, "cpuinfo");
  } else if (h.simd.empty()) {
    h.not_collected["simd"] = "none of the SIMD extensions accel-doctor looks for";
  }
}

void probe_memory(const ProbeRoots& roots, HostInfo& h) {
  std::string err;
  const auto text = read_text(join(roots.proc, "meminfo"), &err);
  if (!text) {
    h.not_collected["memory_total_bytes"] = err;
    h.not_collected["memory_available_bytes"] = err;
    return;
  }
  h.memory_total_bytes = meminfo_bytes(*text, "MemTotal");
  if (!h.memory_total_bytes) h.not_collected["memory_total_bytes"] = "no MemTotal in meminfo";
  h.memory_available_bytes = meminfo_bytes(*text, "MemAvailable");
  if (!h.memory_available_bytes) h.not_collected["memory_available_bytes"] = "no MemAvailable in meminfo";
}

/// The highest "cpu MHz" of /proc/cpuinfo (x86; absent on most ARM kernels).
std::optional<double> cpuinfo_max_mhz(const ProbeRoots& roots) {
  const auto text = read_text(join(roots.proc, "cpuinfo"), nullptr);
  if (!text) return std::nullopt;
  std::optional<double> best;
  std::size_t at = 0;
  while ((at = text->find("cpu MHz", at)) != std::string::npos) {
    const auto colon = text->find(':', at);
    const auto eol = text->find('\n', at);
    at += 7;
    if (colon == std::string::npos || (eol != std::string::npos && colon > eol)) continue;
    try {
      const double v =
          std::stod(text->substr(colon + 1, eol == std::string::npos ? std::string::npos : eol - colon - 1));
      if (v > 0 && std::isfinite(v)) best = std::max(best.value_or(0), v);
    } catch (const std::exception&) {
    }
  }
  return best;
}

void probe_frequency(const ProbeRoots& roots, HostInfo& h) {
  // cpuinfo_max_freq is in kHz (Documentation/admin-guide/pm/cpufreq.rst).
  // Take the highest over all CPUs: hybrid parts have different maxima.
  const std::string cpu_dir = join(roots.sys, "devices/system/cpu");
  std::optional<std::uint64_t> max_khz;
  std::string governor;
  for (const auto& name : list_dir(cpu_dir)) {
    if (!starts_with(name, "cpu") || name.size() < 4 || !std::isdigit(static_cast<unsigned char>(name[3])))
      continue;
    const std::string freq = join(join(cpu_dir, name), "cpufreq");
    if (const auto line = read_line(join(freq, "cpuinfo_max_freq"))) {
      if (const auto khz = parse_uint(*line, 10)) max_khz = std::max(max_khz.value_or(0), *khz);
    }
    if (governor.empty()) {
      if (const auto g = read_line(join(freq, "scaling_governor"))) governor = *g;
    }
  }
  const std::string why_none = fmt::format(
      "no cpufreq in {}/cpu*/cpufreq (virtual machine, container without it, or no cpufreq driver)", cpu_dir);
  if (max_khz) {
    h.cpu_max_mhz = static_cast<double>(*max_khz) / 1000.0;
    h.cpu_clock_source = "cpufreq cpuinfo_max_freq";
  } else if (const auto mhz = cpuinfo_max_mhz(roots)) {
    h.cpu_max_mhz = *mhz;
    h.cpu_clock_source =
        "/proc/cpuinfo cpu MHz (no cpufreq here: a current clock, the maximum may be higher)";
  } else {
    h.not_collected["cpu_max_mhz"] = why_none + " and no \"cpu MHz\" in " + join(roots.proc, "cpuinfo");
  }
  if (!governor.empty()) {
    h.cpu_governor = governor;
  } else {
    h.not_collected["cpu_governor"] = why_none;
  }
}

/// This process's usable CPUs and memory: the affinity mask and the cgroup
/// CPU quota and memory limit (v2, else v1), the smallest along the cgroup
/// path (a parent's limit binds its children).
void probe_limits(const ProbeRoots& roots, HostInfo& h) {
  std::string err;
  if (const auto status = read_text(join(roots.proc, "self/status"), &err)) {
    h.affinity_list = status_field(*status, "Cpus_allowed_list");
    h.affinity_cpus = cpu_list_count(h.affinity_list);
    if (!h.affinity_cpus)
      h.not_collected["affinity_cpus"] = "no Cpus_allowed_list in " + join(roots.proc, "self/status");
  } else {
    h.not_collected["affinity_cpus"] = err;
  }
  const auto cgroup = read_text(join(roots.proc, "self/cgroup"), &err);
  if (!cgroup) {
    h.not_collected["cpu_quota_cpus"] = h.not_collected["memory_limit_bytes"] = err;
    return;
  }
  const std::string fs = join(roots.sys, "fs/cgroup");
  // The tightest limit along the path binds.
  auto keep_min = [](auto& slot, auto value) { slot = slot ? std::min(*slot, value) : value; };
  // Every folder from the process's cgroup up to the root.
  auto folders = [](const std::string& base, std::string path) {
    std::vector<std::string> out;
    while (true) {
      out.push_back(path.empty() || path == "/" ? base : join(base, path.substr(path[0] == '/' ? 1 : 0)));
      if (path.empty() || path == "/") break;
      const auto slash = path.rfind('/');
      path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
    return out;
  };
  bool found_cgroup = false;
  if (const auto v2 = cgroup_path(*cgroup)) {
    for (const auto& dir : folders(fs, *v2)) {
      if (const auto line = read_line(join(dir, "cpu.max"))) {
        found_cgroup = true;
        if (const auto q = cgroup2_cpu_quota(*line)) keep_min(h.cpu_quota_cpus, *q);
      }
      if (const auto line = read_line(join(dir, "memory.max"))) {
        found_cgroup = true;
        if (const auto m = cgroup_memory_limit(*line)) keep_min(h.memory_limit_bytes, *m);
      }
    }
  }
  // v1 mounts the cpu controller as cpu,cpuacct or as cpu alone.
  const std::string v1_cpu = exists(join(fs, "cpu,cpuacct")) ? join(fs, "cpu,cpuacct") : join(fs, "cpu");
  if (const auto v1 = cgroup_path(*cgroup, "cpu"); v1 && !found_cgroup) {
    for (const auto& dir : folders(v1_cpu, *v1)) {
      const auto quota = read_line(join(dir, "cpu.cfs_quota_us"));
      const auto period = read_line(join(dir, "cpu.cfs_period_us"));
      if (quota && period) {
        found_cgroup = true;
        if (const auto q = cgroup1_cpu_quota(*quota, *period)) keep_min(h.cpu_quota_cpus, *q);
      }
    }
  }
  if (const auto v1m = cgroup_path(*cgroup, "memory"); v1m && !h.memory_limit_bytes) {
    for (const auto& dir : folders(join(fs, "memory"), *v1m)) {
      if (const auto line = read_line(join(dir, "memory.limit_in_bytes"))) {
        found_cgroup = true;
        if (const auto m = cgroup_memory_limit(*line)) keep_min(h.memory_limit_bytes, *m);
      }
    }
  }
  if (!found_cgroup) {
    h.not_collected["cpu_quota_cpus"] = h.not_collected["memory_limit_bytes"] =
        "no cgroup cpu.max/memory.max (or v1 equivalents) readable under " + fs;
  }
}

}  // namespace

HostInfo probe_host(const ProbeRoots& roots) {
  HostInfo h;
  try {
    probe_os(roots, h);
    probe_kernel(roots, h);
    probe_cpu(roots, h);
    probe_memory(roots, h);
    probe_frequency(roots, h);
    probe_limits(roots, h);
  } catch (const std::exception& e) {
    h.not_collected["host"] = std::string("probe failed: ") + e.what();
  }
  return h;
}

std::optional<std::uint64_t> self_anonymous_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("RssAnon:", 0) != 0) continue;
    std::istringstream fields(line.substr(8));
    std::uint64_t kib = 0;
    if (fields >> kib) return kib * 1024;  // "kB" here means KiB, as in meminfo
  }
  return std::nullopt;
}

}  // namespace accel::platform

#endif  // __linux__
