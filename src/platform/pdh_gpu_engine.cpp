// Pure parts of the GPU busy sources (platform/gpu_busy.hpp): PDH GPU Engine
// instance names taken apart and one PDH sample aggregated per adapter, and
// amdgpu's gpu_busy_percent text. Portable: tested on recorded values on
// Linux and under Wine, and fuzzed (tests/fuzz, harness pdh_instance).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "core/strings.hpp"
#include "platform/detail.hpp"
#include "platform/gpu_busy.hpp"
#include "platform/windows_facts.hpp"

namespace accel::platform::detail {

namespace {

bool eat(std::string_view& s, std::string_view prefix) {
  if (!starts_with_ci(s, prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

/// Decimal digits up to the next '_' (or the end), at most `max`.
std::optional<std::uint64_t> eat_decimal(std::string_view& s, std::uint64_t max) {
  std::size_t n = 0;
  std::uint64_t v = 0;
  while (n < s.size() && s[n] >= '0' && s[n] <= '9') {
    v = v * 10 + static_cast<std::uint64_t>(s[n] - '0');
    if (v > max) return std::nullopt;
    ++n;
  }
  if (n == 0 || n > 10) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

/// "0x" and 1-8 hex digits.
std::optional<std::uint32_t> eat_hex32(std::string_view& s) {
  if (!eat(s, "0x")) return std::nullopt;
  std::size_t n = 0;
  std::uint32_t v = 0;
  while (n < s.size() && std::isxdigit(static_cast<unsigned char>(s[n]))) {
    if (n == 8) return std::nullopt;
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[n])));
    v = v * 16 + static_cast<std::uint32_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    ++n;
  }
  if (n == 0) return std::nullopt;
  s.remove_prefix(n);
  return v;
}

}  // namespace

std::optional<PdhGpuEngineInstance> parse_pdh_gpu_engine_instance(std::string_view s) {
  // pid_<dec>_luid_0x<hex>_0x<hex>_phys_<dec>_eng_<dec>_engtype_<rest>
  PdhGpuEngineInstance p;
  if (!eat(s, "pid_")) return std::nullopt;
  const auto pid = eat_decimal(s, 0xFFFFFFFFull);
  if (!pid || !eat(s, "_luid_")) return std::nullopt;
  p.pid = static_cast<std::uint32_t>(*pid);
  const auto high = eat_hex32(s);
  if (!high || !eat(s, "_")) return std::nullopt;
  const auto low = eat_hex32(s);
  if (!low || !eat(s, "_phys_")) return std::nullopt;
  const auto phys = eat_decimal(s, 1024);
  if (!phys || !eat(s, "_eng_")) return std::nullopt;
  const auto eng = eat_decimal(s, 1 << 16);
  if (!eng || !eat(s, "_engtype_")) return std::nullopt;
  // The rest is the engine type; PDH instance names are short, so a long one is not one.
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (const char c : s) {
    if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
  }
  p.luid = format_luid(static_cast<std::int32_t>(*high), *low);
  p.phys = static_cast<int>(*phys);
  p.eng = static_cast<int>(*eng);
  p.engtype = std::string(s);
  return p;
}

std::vector<GpuBusyReading> aggregate_pdh_gpu_engines(
    const std::vector<std::pair<std::string, double>>& items) {
  struct Engine {
    std::string engtype;
    double sum = 0;
  };
  struct Adapter {
    std::string luid;
    std::map<std::pair<int, int>, Engine> engines;  // (phys, eng)
  };
  std::vector<Adapter> adapters;
  for (const auto& [name, value] : items) {
    if (!std::isfinite(value) || value < 0) continue;
    const auto inst = parse_pdh_gpu_engine_instance(name);
    if (!inst) continue;
    auto it = std::find_if(adapters.begin(), adapters.end(),
                           [&inst](const Adapter& a) { return a.luid == inst->luid; });
    if (it == adapters.end()) {
      adapters.push_back({inst->luid, {}});
      it = adapters.end() - 1;
    }
    Engine& e = it->engines[{inst->phys, inst->eng}];
    if (e.engtype.empty()) e.engtype = inst->engtype;
    e.sum += value;
  }
  std::vector<GpuBusyReading> out;
  for (const auto& a : adapters) {
    GpuBusyReading r;
    r.id = "luid:" + a.luid;
    r.source = "PDH \\GPU Engine(*)\\Utilization Percentage";
    for (const auto& [where, e] : a.engines) {
      const double v = std::min(e.sum, 100.0);
      double& by_type = r.engines_percent[e.engtype];
      by_type = std::max(by_type, v);
      r.busy_percent = std::max(r.busy_percent, v);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<double> parse_gpu_busy_percent(std::string_view text) {
  const auto v = parse_uint(text, 10);
  if (!v || *v > 100) return std::nullopt;
  return static_cast<double>(*v);
}

}  // namespace accel::platform::detail
