// Parsers for the host probe: os-release, /proc/cpuinfo, /proc/meminfo.
// Pure functions over text (portable, tested on recorded files).
#include <set>
#include <utility>

#include "platform/detail.hpp"

namespace accel::platform::detail {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  // os-release(5): KEY=value, value optionally in single or double quotes,
  // backslash escapes inside double quotes; '#' lines are comments.
  std::map<std::string, std::string> out;
  for (const std::string_view raw : lines_of(text)) {
    const std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = trim(line.substr(0, eq));
    std::string value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      const char q = value.front();
      value = value.substr(1, value.size() - 2);
      if (q == '"') {
        std::string unescaped;
        for (std::size_t i = 0; i < value.size(); ++i) {
          if (value[i] == '\\' && i + 1 < value.size()) ++i;
          unescaped += value[i];
        }
        value = unescaped;
      }
    }
    out[key] = value;
  }
  return out;
}

CpuInfoSummary parse_cpuinfo(std::string_view text) {
  // /proc/cpuinfo: blocks separated by blank lines, "key<TAB>: value".
  // x86 has "model name", "physical id", "core id", "flags"; arm64 has
  // "Features", "CPU implementer", "CPU part" and usually no model name.
  CpuInfoSummary s;
  std::set<std::pair<std::string, std::string>> cores;
  bool have_core_ids = false;
  std::string physical_id, core_id;
  std::string arm_hardware, arm_part, arm_implementer;
  bool flags_taken = false;
  auto end_block = [&] {
    if (!core_id.empty()) {
      cores.insert({physical_id, core_id});
      have_core_ids = true;
    }
    physical_id.clear();
    core_id.clear();
  };
  for (const std::string_view raw : lines_of(text)) {
    if (trim(raw).empty()) {
      end_block();
      continue;
    }
    const auto colon = raw.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key = trim(raw.substr(0, colon));
    const std::string value = trim(raw.substr(colon + 1));
    if (key == "processor") {
      ++s.logical;
    } else if (key == "model name" || key == "Processor" || key == "cpu model") {
      // arm32 kernels print "Processor : ARMv7 ..." (capital P) as the model.
      if (s.model.empty()) s.model = value;
    } else if (key == "Hardware") {
      arm_hardware = value;
    } else if (key == "CPU part") {
      if (arm_part.empty()) arm_part = value;
    } else if (key == "CPU implementer") {
      if (arm_implementer.empty()) arm_implementer = value;
    } else if (key == "physical id") {
      physical_id = value;
    } else if (key == "core id") {
      core_id = value;
    } else if ((key == "flags" || key == "Features") && !flags_taken) {
      s.flags = split_ws(value);
      flags_taken = true;
    }
  }
  end_block();
  if (s.model.empty() && !arm_hardware.empty()) s.model = arm_hardware;
  if (s.model.empty() && !arm_part.empty()) {
    s.model = "ARM CPU (implementer " + arm_implementer + ", part " + arm_part + ")";
  }
  if (have_core_ids) s.physical = static_cast<int>(cores.size());
  return s;
}

std::vector<std::string> simd_flags_of_interest(const std::vector<std::string>& flags) {
  // x86 names as the kernel prints them (arch/x86/include/asm/cpufeatures.h),
  // then arm64 hwcaps (Documentation/arch/arm64/elf_hwcaps.rst).
  static const char* const kOrder[] = {
      "sse4_2",   "avx",         "avx2",        "fma",         "f16c",     "avx_vnni", "avx512f",  "avx512bw",
      "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
      "asimd",    "asimdhp",     "asimddp",     "sve",         "sve2",     "bf16",     "i8mm",     "sme",
  };
  const std::set<std::string> have(flags.begin(), flags.end());
  std::vector<std::string> out;
  for (const char* f : kOrder) {
    if (have.count(f)) out.emplace_back(f);
  }
  return out;
}

std::optional<std::uint64_t> meminfo_bytes(std::string_view text, std::string_view key) {
  for (const std::string_view line : lines_of(text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || line.substr(0, colon) != key) continue;
    const auto words = split_ws(line.substr(colon + 1));
    if (words.empty()) return std::nullopt;
    const auto n = parse_uint(words[0], 10);
    if (!n) return std::nullopt;
    // meminfo says "kB" and means KiB (fs/proc/meminfo.c shifts pages by 10).
    const bool kib = words.size() > 1 && words[1] == "kB";
    return kib ? *n * 1024 : *n;
  }
  return std::nullopt;
}

std::optional<int> cpu_list_count(std::string_view list) {
  const std::string t = trim(list);
  if (t.empty()) return std::nullopt;
  int count = 0;
  std::size_t start = 0;
  while (start <= t.size()) {
    std::size_t comma = t.find(',', start);
    if (comma == std::string::npos) comma = t.size();
    const std::string part = trim(std::string_view(t).substr(start, comma - start));
    if (part.empty()) return std::nullopt;
    const auto dash = part.find('-');
    const auto lo = parse_uint(part.substr(0, dash), 10);
    const auto hi = dash == std::string::npos ? lo : parse_uint(part.substr(dash + 1), 10);
    if (!lo || !hi || *hi < *lo || *hi - *lo > 1u << 20) return std::nullopt;
    count += static_cast<int>(*hi - *lo + 1);
    start = comma + 1;
  }
  return count;
}

std::string status_field(std::string_view text, std::string_view key) {
  for (const auto line : lines_of(text)) {
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
      return trim(line.substr(key.size() + 1));
    }
  }
  return "";
}

std::optional<double> cgroup2_cpu_quota(std::string_view cpu_max) {
  const auto f = split_ws(cpu_max);
  if (f.size() != 2 || f[0] == "max") return std::nullopt;
  const auto quota = parse_uint(f[0], 10), period = parse_uint(f[1], 10);
  if (!quota || !period || *period == 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<double> cgroup1_cpu_quota(std::string_view quota_us, std::string_view period_us) {
  const std::string q = trim(quota_us);
  if (q.empty() || q[0] == '-') return std::nullopt;
  const auto quota = parse_uint(q, 10), period = parse_uint(period_us, 10);
  if (!quota || !period || *period == 0) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<std::uint64_t> cgroup_memory_limit(std::string_view text) {
  const std::string t = trim(text);
  if (t.empty() || t == "max") return std::nullopt;
  const auto v = parse_uint(t, 10);
  if (!v || *v >= (1ull << 62)) return std::nullopt;  // v1 writes ~2^63 for "no limit"
  return v;
}

std::optional<std::string> cgroup_path(std::string_view proc_self_cgroup, std::string_view v1_controller) {
  for (const auto line : lines_of(proc_self_cgroup)) {
    const auto a = line.find(':');
    const auto b = a == std::string_view::npos ? a : line.find(':', a + 1);
    if (b == std::string_view::npos) continue;
    const std::string_view controllers = line.substr(a + 1, b - a - 1);
    const std::string path(trim(line.substr(b + 1)));
    if (v1_controller.empty()) {
      if (line.substr(0, a) == "0" && controllers.empty()) return path;
      continue;
    }
    std::size_t s = 0;
    while (s <= controllers.size()) {
      auto e = controllers.find(',', s);
      if (e == std::string_view::npos) e = controllers.size();
      if (controllers.substr(s, e - s) == v1_controller) return path;
      s = e + 1;
    }
  }
  return std::nullopt;
}

}  // namespace accel::platform::detail
