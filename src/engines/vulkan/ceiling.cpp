// Pure parts of the Vulkan ceiling (ceiling.hpp): no Vulkan call here.
#include "engines/vulkan/ceiling.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/peaks.hpp"
#include "core/report/digest.hpp"
#include "core/result_keys.hpp"
#include "core/strings.hpp"
#include "core/units.hpp"

namespace accel::vulkan {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

}  // namespace

std::string device_type_name(int t) {
  switch (t) {
    case 1:
      return "integrated_gpu";
    case 2:
      return "discrete_gpu";
    case 3:
      return "virtual_gpu";
    case 4:
      return "cpu";
    default:
      return "other";
  }
}

bool is_software_device(const std::string& type, const std::string& name, const std::string& driver_name) {
  if (type == "cpu") return true;
  for (const char* s : {"llvmpipe", "lavapipe", "swiftshader", "microsoft basic render", "warp"}) {
    if (contains_ci(name, s) || contains_ci(driver_name, s)) return true;
  }
  return false;
}

std::string api_version_string(std::uint32_t v) {
  return fmt::format("{}.{}.{}", (v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu);
}

std::string hex_bytes(const unsigned char* bytes, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", bytes[i]);
  return s;
}

std::string key(const std::string& group, const std::string& name, const std::string& dtype,
                const std::string& shape) {
  return BenchKey{"vulkan", group, name, dtype, shape}.str();
}

std::uint64_t memory_buffer_bytes(const DeviceInfo& d, bool quick, std::optional<std::uint64_t> llc_bytes) {
  if (d.software) return (quick ? 4 : 16) * kMiB;
  std::uint64_t want = 8 * llc_bytes.value_or(128 * kMiB);
  want = std::max<std::uint64_t>(want, 256 * kMiB);
  if (d.device_local_bytes > 0) want = std::min(want, d.device_local_bytes / 4);
  if (d.max_storage_buffer_range > 0) want = std::min(want, d.max_storage_buffer_range);
  want = want / kMiB * kMiB;
  return std::max(want, kMiB);
}

std::string datasheet_name(const std::string& vulkan_name) {
  std::string n = vulkan_name;
  while (!n.empty() && n.back() == ' ') n.pop_back();
  if (!n.empty() && n.back() == ')') {
    if (const auto open = n.rfind(" ("); open != std::string::npos && open > 0) n.erase(open);
  }
  return n;
}

CacheSizing cache_sizing(const DeviceInfo& d, const GpuPeakTable* table) {
  CacheSizing s;
  if (d.software) {
    s.sizing = "a software device: small fixed buffers (a cache figure, never compared)";
    return s;
  }
  const std::string fallback = "8x 128 MiB, the default";
  if (!table) {
    s.sizing = fallback + " (no kb/gpus.json)";
    return s;
  }
  DeviceHints hints;
  if (d.device_local_bytes > 0) hints.memory_bytes = static_cast<double>(d.device_local_bytes);
  const auto row = table->lookup(datasheet_name(d.name), {}, hints);
  if (!row) {
    s.sizing = fallback + fmt::format(" (kb/gpus.json has no row for '{}')", d.name);
  } else if (!row->llc) {
    s.sizing = fallback + fmt::format(" (kb/gpus.json: {} has no last-level cache size)", row->name);
  } else {
    s.llc_bytes = row->llc->bytes;
    s.sizing = fmt::format("8x the {} (kb/gpus.json: {}; {}, {})", row->llc->describe(), row->name,
                           row->llc->source_title, row->llc->source_url);
  }
  return s;
}

std::optional<std::uint32_t> next_iterations(std::uint32_t iterations, double measured_ms, double target_ms,
                                             std::uint32_t cap) {
  if (measured_ms >= target_ms || iterations >= cap) return std::nullopt;
  double factor = measured_ms > 0 ? target_ms / measured_ms * 1.2 : 64;
  factor = std::clamp(factor, 2.0, 64.0);
  const double next = std::min(static_cast<double>(cap), std::ceil(iterations * factor));
  return static_cast<std::uint32_t>(next);
}

double fma_lane_expected(const FmaParams& p, std::uint32_t lane, std::uint32_t iterations) {
  const double b = p.b, c = p.c;
  const double f = c / (1 - b);
  const double n = 4.0 * iterations;
  const double bn = std::pow(b, n);
  const double x0 = static_cast<double>(p.seed) + static_cast<double>(lane & 1023u) * 0.0009765625;
  double sum = 0;
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 4; ++j) sum += bn * (x0 + 0.1 * j + 0.4 * k - f) + f;
  }
  return sum;
}

std::int32_t dot4_i8_packed(std::int32_t a, std::int32_t b) {
  std::int32_t sum = 0;
  for (int k = 0; k < 4; ++k) {
    const auto ak = static_cast<std::int8_t>(static_cast<std::uint32_t>(a) >> (8 * k) & 0xffu);
    const auto bk = static_cast<std::int8_t>(static_cast<std::uint32_t>(b) >> (8 * k) & 0xffu);
    sum += static_cast<std::int32_t>(ak) * static_cast<std::int32_t>(bk);
  }
  return sum;
}

std::int32_t dot_lane_expected(const DotParams& p, std::uint32_t lane, std::uint32_t iterations) {
  const std::uint64_t steps = 4ull * iterations;
  auto step = [&](std::uint32_t x) {
    return static_cast<std::uint32_t>(dot4_i8_packed(static_cast<std::int32_t>(x), p.b)) +
           static_cast<std::uint32_t>(p.c);
  };
  std::uint32_t sum = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> seen;
  for (int k = 0; k < kDotChains; ++k) {
    // Unsigned arithmetic: the shader's int32 adds and multiplies wrap.
    std::uint32_t x =
        static_cast<std::uint32_t>(p.seed) + lane * 0x9E3779B1u + static_cast<std::uint32_t>(k) * 0x01010101u;
    seen.clear();
    for (std::uint64_t s = 0; s < steps; ++s) {
      if (auto [it, fresh] = seen.emplace(x, s); !fresh) {
        // x repeats the value of step it->second: the rest is that cycle again.
        const std::uint64_t left = (steps - s) % (s - it->second);
        for (std::uint64_t j = 0; j < left; ++j) x = step(x);
        break;
      }
      x = step(x);
    }
    sum += x;
  }
  return static_cast<std::int32_t>(sum);
}

std::uint32_t fill_word(std::uint32_t x, std::uint32_t seed) {
  x ^= seed;
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

std::uint32_t read_checksum_expected(std::uint64_t words, std::uint32_t seed) {
  std::uint32_t sum = 0;
  const std::uint64_t elements = words / 4;
  for (std::uint64_t e = 0; e < elements; ++e) {
    const auto i = static_cast<std::uint32_t>(e * 4);
    const std::uint32_t s =
        fill_word(i, seed) + fill_word(i + 1, seed) + fill_word(i + 2, seed) + fill_word(i + 3, seed);
    sum += s * static_cast<std::uint32_t>(e + 1);
  }
  return sum;
}

std::string timing_cross_check(double device_ms, double host_ms) {
  if (device_ms <= 0 || host_ms <= 0) return "no timing to cross-check";
  if (device_ms > host_ms * 1.05 + 0.05) {
    return fmt::format(
        "device timestamps ({:.3f} ms) exceed the host clock around the submit ({:.3f} ms): "
        "timestampPeriod or the timestamps are wrong",
        device_ms, host_ms);
  }
  if (host_ms >= 5 && device_ms < 0.5 * host_ms) {
    return fmt::format(
        "device timestamps ({:.3f} ms) under half the host clock around the submit ({:.3f} ms)", device_ms,
        host_ms);
  }
  return {};
}

namespace {

json identity(const DeviceInfo& d) {
  return json{{"index", d.index},
              {"name", d.name},
              {"type", d.type},
              {"software", d.software},
              {"vendor_id", d.vendor_id},
              {"device_id", d.device_id},
              {"api_version", d.api_version},
              {"driver_name", d.driver_name},
              {"driver_info", d.driver_info},
              {"pci_address", d.pci_address},
              {"device_uuid", d.device_uuid},
              {"device_luid", d.device_luid},
              {"timestamp_period_ns", d.timestamp_period_ns}};
}

Result base_row(const DeviceInfo& d, const std::string& group, const std::string& name,
                const std::string& dtype, const std::string& shape) {
  Result r;
  r.key = key(group, name, dtype, shape);
  r.kind = ResultKind::bench;
  r.name = name;
  r.category = "vulkan/" + group;
  r.dtype = dtype;
  r.shape = shape;
  r.device = fmt::format("vulkan:{}", d.index);
  r.evidence["vulkan_device"] = identity(d);
  if (d.software) {
    r.warnings.push_back(fmt::format("{} is a software (CPU) Vulkan device: not a GPU ceiling", d.name));
  }
  return r;
}

}  // namespace

Result make_row(const DeviceInfo& d, const std::string& group, const std::string& name,
                const std::string& dtype, const std::string& shape, std::vector<double> samples_us,
                const Work& work) {
  Result r = base_row(d, group, name, dtype, shape);
  r.status = Status::ok;
  r.work = work;
  r.timing = make_timing(std::move(samples_us), 1, 1, "vulkan_timestamps");
  const double s = r.timing->median_us * 1e-6;
  if (s > 0 && work.flops > 0) r.metrics["tflops"] = work.flops / s / 1e12;
  if (s > 0 && work.bytes > 0) r.metrics["gbps"] = work.bytes / s / 1e9;
  return r;
}

Result make_missing_row(const DeviceInfo& d, const std::string& group, const std::string& name,
                        const std::string& dtype, const std::string& shape, Status status,
                        std::string reason) {
  Result r = base_row(d, group, name, dtype, shape);
  r.status = status;
  r.reason = std::move(reason);
  return r;
}

// ---------------------------------------------------------------- joining

void attach_datasheet(std::vector<Result>& vulkan_rows, const GpuPeakTable& table) {
  for (auto& v : vulkan_rows) {
    if (v.status != Status::ok) continue;
    const json& id = v.evidence.value("vulkan_device", json::object());
    if (id.value("software", false)) continue;
    const auto row = table.lookup(datasheet_name(id.value("name", std::string())));
    if (!row) continue;
    const std::string source = fmt::format("datasheet: {} ({})", row->source_title, row->name);
    const bool fp32_fma = v.key.rfind("bench/vulkan/compute/fma/fp32/", 0) == 0;
    const bool memory = v.key.rfind("bench/vulkan/memory/", 0) == 0;
    Roofline rf;
    if (fp32_fma && row->peaks.count("fp32") && v.metrics.count("tflops")) {
      rf.peak_tflops = row->peaks.at("fp32");  // the vector rate, not fp32_matrix
      rf.peak_source = source;
      rf.bound_tflops = rf.peak_tflops;
      rf.achieved_tflops = v.metrics.at("tflops");
      rf.percent_of_bound = 100 * rf.achieved_tflops / rf.peak_tflops;
    } else if (memory && row->bandwidth_gbps && v.metrics.count("gbps")) {
      rf.bandwidth_gbps = *row->bandwidth_gbps;
      rf.bandwidth_source = source;
      rf.achieved_gbps = v.metrics.at("gbps");
      rf.percent_of_bound = 100 * rf.achieved_gbps / rf.bandwidth_gbps;
    } else {
      continue;
    }
    rf.above_peak = rf.percent_of_bound > 105;
    v.roofline = rf;
  }
}

// ---------------------------------------------------------------- table

std::string render(const Run& run) {
  std::string out;
  if (!run.built) return "Vulkan ceiling: " + run.error + "\n";
  if (run.devices.empty()) return "Vulkan ceiling: " + run.error + "\n";
  for (const auto& d : run.devices) {
    out += fmt::format("Vulkan device {}: {} ({}{}), Vulkan {}, driver {}{}\n", d.index, d.name, d.type,
                       d.software ? ", SOFTWARE: a CPU implementation, not a GPU ceiling" : "", d.api_version,
                       d.driver_name.empty() ? "?" : d.driver_name,
                       d.driver_info.empty() ? "" : " " + d.driver_info);
    out += fmt::format("  PCI {}  UUID {}{}\n", d.pci_address.empty() ? "unknown" : d.pci_address,
                       d.device_uuid.empty() ? "unknown" : d.device_uuid,
                       d.device_luid.empty() ? "" : "  LUID " + d.device_luid);
    out += fmt::format("  {:<28} {:>22} {:>14} {:>10} {:>10}  {}\n", "figure", "median ± IQR", "rate",
                       "datasheet", "framework", "note");
    const std::string prefix = fmt::format("vulkan:{}", d.index);
    for (const auto& r : run.results) {
      if (r.device != prefix) continue;
      const std::string label = r.key.substr(std::string("bench/vulkan/").size());
      std::string timing = "-", rate = "-", sheet = "-", fw = "-", note;
      if (r.timing) {
        timing = fmt::format("{} ± {}", format_us(r.timing->median_us), format_us(r.timing->iqr_us));
      }
      if (auto it = r.metrics.find("tflops"); it != r.metrics.end()) rate = format_tflops(it->second);
      if (auto it = r.metrics.find("tops"); it != r.metrics.end())
        rate = fmt::format("{:.3g} TOPS", it->second);
      if (auto it = r.metrics.find("gbps"); it != r.metrics.end()) rate = format_gbps(it->second);
      if (r.roofline && r.roofline->percent_of_bound > 0)
        sheet = fmt::format("{:.0f}%", r.roofline->percent_of_bound);
      if (auto it = r.metrics.find("framework_ratio"); it != r.metrics.end()) {
        fw = fmt::format("{:.2f}x", it->second);
      }
      if (r.status != Status::ok) {
        note = fmt::format("{}: {}", to_string(r.status), r.reason);
      } else if (r.timing && r.timing->noisy) {
        note = "noisy (IQR > 10% of median)";
      }
      for (const auto& w : r.warnings) {
        if (w.find("software") != std::string::npos) continue;  // said once in the header
        note += (note.empty() ? "" : "; ") + w;
      }
      out += fmt::format("  {:<28} {:>22} {:>14} {:>10} {:>10}  {}\n", label, timing, rate, sheet, fw, note);
    }
    for (const auto& n : d.notes) out += "  note: " + n + "\n";
  }
  out +=
      "  datasheet: % of kb/gpus.json's fp32 (vector) and memory bandwidth; framework: the framework's "
      "figure on "
      "the same operation / this ceiling\n";
  return out;
}

}  // namespace accel::vulkan
