#include "core/report/console.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/stats.hpp"
#include "core/units.hpp"

namespace accel {

namespace {

const char* ansi_for(Status s) {
  switch (s) {
    case Status::ok:
      return "\033[32m";
    case Status::unavailable:
    case Status::skipped:
      return "\033[33m";
    default:
      return "\033[31m";
  }
}

std::string bold(const std::string& s, const ConsoleStyle& style) {
  return style.color ? "\033[1m" + s + "\033[0m" : s;
}

std::string dim(const std::string& s, const ConsoleStyle& style) {
  return style.color ? "\033[2m" + s + "\033[0m" : s;
}

/// Cuts `s` to `width` display columns (UTF-8 aware: counts code points).
std::string fit(const std::string& s, std::size_t width) {
  std::size_t cols = 0, i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    if (cols + 1 > width) {
      return width > 0 ? s.substr(0, i > 0 ? i - 1 : 0) + "…" : "";
    }
    i += len;
    ++cols;
  }
  return s;
}

std::size_t display_width(const std::string& s) {
  std::size_t cols = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++cols;
  }
  return cols;
}

std::string pad(const std::string& s, std::size_t width) {
  const std::string f = fit(s, width);
  const std::size_t w = display_width(f);
  return f + std::string(w < width ? width - w : 0, ' ');
}

std::string rpad(const std::string& s, std::size_t width) {
  const std::string f = fit(s, width);
  const std::size_t w = display_width(f);
  return std::string(w < width ? width - w : 0, ' ') + f;
}

std::string or_missing(const std::string& value, const NotCollected& nc, const std::string& field) {
  if (!value.empty()) return value;
  const auto it = nc.find(field);
  if (it != nc.end()) return "could not collect (" + it->second + ")";
  return "could not collect";
}

template <typename T>
std::string opt_or_missing(const std::optional<T>& v, const NotCollected& nc, const std::string& field,
                           const std::function<std::string(const T&)>& fmt_fn) {
  if (v) return fmt_fn(*v);
  return or_missing("", nc, field);
}

std::string timing_cell(const std::optional<Timing>& t) {
  if (!t) return "-";
  const double rel = t->median_us > 0 ? 100.0 * t->iqr_us / t->median_us : 0;
  return fmt::format("{} ±{:.0f}%{}", format_us(t->median_us), rel, t->noisy ? "!" : "");
}

/// Short form of where the work ran (profiler evidence).
std::string where_cell(const Result& r) {
  if (!r.profile) return "-";
  const std::string& w = r.profile->where;
  if (w == "device_kernels") return "kernels";
  if (w == "cpu_fallback") return "FALLBACK";
  if (w == "no_device_work") return "no-work";
  if (w == "profiler_blind") return "blind";
  if (w == "host") return "host";
  return "?";
}

std::string note_for(const Result& r) {
  if (r.profile && r.profile->where == "cpu_fallback") return r.profile->detail;
  if (r.error) {
    if (!r.error->cause.empty()) return r.error->cause;
    return r.error->message;
  }
  if (!r.reason.empty()) return r.reason;
  if (!r.warnings.empty()) return fmt::format("{} warning{}: {}", r.warnings.size(), r.warnings.size() > 1 ? "s" : "", r.warnings.front());
  if (r.profile && !r.profile->implementation.empty()) {
    std::string s;
    for (const auto& [role, impl] : r.profile->implementation) {
      if (role == "aten") continue;
      s += (s.empty() ? "" : ", ") + role + ": " + impl;
    }
    return s;
  }
  return "";
}

void line(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("  {:<22} {}\n", label, value);
}

}  // namespace

std::string colorize_status(Status status, const std::string& text, const ConsoleStyle& style) {
  if (!style.color) return text;
  return std::string(ansi_for(status)) + text + "\033[0m";
}

std::string render_checks_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  // Keep the catalog order of categories as they first appear.
  std::vector<std::string> categories;
  for (const auto& r : results) {
    if (std::find(categories.begin(), categories.end(), r.category) == categories.end()) {
      categories.push_back(r.category);
    }
  }
  const int name_w = 26, dtype_w = 5, status_w = 11, where_w = 8, dev_w = 17, cpu_w = 17, sp_w = 8;
  const int fixed = name_w + dtype_w + status_w + where_w + dev_w + cpu_w + sp_w + 7;
  const int note_w = std::max(10, style.width - fixed);
  out += bold(fmt::format("{} {} {} {} {} {} {} {}", pad("check", name_w), pad("dtype", dtype_w),
                          pad("status", status_w), pad("ran", where_w), rpad("device median±IQR", dev_w),
                          rpad("CPU median±IQR", cpu_w), rpad("speed-up", sp_w), "note"),
              style) +
         "\n";
  for (const auto& cat : categories) {
    out += bold(fmt::format("[{}]", cat), style) + "\n";
    for (const auto& r : results) {
      if (r.category != cat) continue;
      const std::string status = pad(std::string(to_string(r.status)), status_w);
      out += fmt::format("{} {} {} {} {} {} {} {}\n", pad(r.name, name_w), pad(r.dtype, dtype_w),
                         colorize_status(r.status, status, style), pad(where_cell(r), where_w),
                         rpad(timing_cell(r.timing), dev_w),
                         rpad(timing_cell(r.cpu_timing), cpu_w),
                         rpad(r.speedup ? format_ratio(*r.speedup) : "-", sp_w),
                         dim(fit(note_for(r), static_cast<std::size_t>(note_w)), style));
    }
  }
  return out;
}

std::string render_bench_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  std::vector<std::string> groups;
  for (const auto& r : results) {
    const std::string g = r.category;
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  const int name_w = 22, dtype_w = 5, shape_w = 16, dev_w = 7, time_w = 17, fig_w = 16, pct_w = 9;
  const int fixed = name_w + dtype_w + shape_w + dev_w + time_w + fig_w + pct_w + 8;
  const int note_w = std::max(10, style.width - fixed);
  out += bold(fmt::format("{} {} {} {} {} {} {} {}", pad("benchmark", name_w), pad("dtype", dtype_w),
                          pad("shape", shape_w), pad("device", dev_w), rpad("median±IQR", time_w),
                          rpad("figure", fig_w), rpad("of bound", pct_w), "note"),
              style) +
         "\n";
  for (const auto& g : groups) {
    out += bold(fmt::format("[{}]", g), style) + "\n";
    for (const auto& r : results) {
      if (r.category != g) continue;
      std::string figure = "-";
      if (auto it = r.metrics.find("tflops"); it != r.metrics.end()) {
        figure = format_sig3(it->second) + " TFLOP/s";
      } else if (auto it2 = r.metrics.find("gbps"); it2 != r.metrics.end()) {
        figure = format_sig3(it2->second) + " GB/s";
      } else if (auto it3 = r.metrics.find("us_per_op"); it3 != r.metrics.end()) {
        figure = format_us(it3->second) + "/op";
      }
      std::string pct = "-";
      if (r.roofline && r.roofline->percent_of_bound > 0) {
        pct = fmt::format("{:.0f}%{}", r.roofline->percent_of_bound, r.roofline->above_peak ? "!" : "");
      }
      std::string note = r.status == Status::ok ? "" : std::string(to_string(r.status)) + ": " + r.reason;
      if (note.empty() && r.roofline && r.roofline->above_peak) note = "above the peak: likely a timing error";
      if (note.empty() && r.timing && r.timing->noisy) note = "noisy (IQR > 10% of median)";
      out += fmt::format("{} {} {} {} {} {} {} {}\n", pad(r.name, name_w), pad(r.dtype, dtype_w),
                         pad(r.shape, shape_w), pad(r.device, dev_w), rpad(timing_cell(r.timing), time_w),
                         rpad(figure, fig_w), rpad(pct, pct_w),
                         r.status == Status::ok ? dim(fit(note, static_cast<std::size_t>(note_w)), style)
                                                : colorize_status(r.status, fit(note, static_cast<std::size_t>(note_w)), style));
    }
  }
  return out;
}

std::string render_llm_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  auto metric = [](const Result& r, const char* k) -> std::optional<double> {
    const auto it = r.metrics.find(k);
    if (it == r.metrics.end()) return std::nullopt;
    return it->second;
  };
  const int test_w = 18, preset_w = 14, dtype_w = 5, dev_w = 7, rate_w = 14, lat_w = 18, roof_w = 10, sp_w = 9;
  const int fixed = test_w + preset_w + dtype_w + dev_w + rate_w + lat_w + roof_w + sp_w + 9;
  const int note_w = std::max(10, style.width - fixed);
  out += bold(fmt::format("{} {} {} {} {} {} {} {} {}", pad("test", test_w), pad("model", preset_w), pad("dtype", dtype_w),
                          pad("device", dev_w), rpad("tokens/s", rate_w), rpad("latency", lat_w),
                          rpad("roofline", roof_w), rpad("vs CPU", sp_w), "note"),
              style) +
         "\n";
  for (const auto& r : results) {
    std::string rate = "-", lat = "-", roof = "-";
    if (auto v = metric(r, "tokens_per_s")) rate = format_sig3(*v);
    if (auto v = metric(r, "ttft_ms")) lat = "TTFT " + format_us(*v * 1000);
    if (auto v = metric(r, "token_latency_p50_ms")) {
      lat = fmt::format("p50 {} p90 {}", format_us(*v * 1000), format_us(metric(r, "token_latency_p90_ms").value_or(0) * 1000));
    }
    if (auto v = metric(r, "decode_roofline_pct")) roof = fmt::format("{:.0f}% BW", *v);
    if (auto v = metric(r, "prefill_roofline_pct")) roof = fmt::format("{:.0f}% GEMM", *v);
    std::string note;
    if (r.status != Status::ok) {
      note = std::string(to_string(r.status)) + ": " + r.reason;
    } else if (r.accuracy) {
      note = r.accuracy->detail;
    } else if (r.evidence.contains("bottleneck")) {
      note = r.evidence["bottleneck"].get<std::string>();
    }
    out += fmt::format("{} {} {} {} {} {} {} {} {}\n", pad(r.name, test_w), pad(r.category, preset_w), pad(r.dtype, dtype_w),
                       pad(r.device, dev_w), rpad(rate, rate_w), rpad(lat, lat_w), rpad(roof, roof_w),
                       rpad(r.speedup ? format_ratio(*r.speedup) : "-", sp_w),
                       r.status == Status::ok ? dim(fit(note, static_cast<std::size_t>(note_w)), style)
                                              : colorize_status(r.status, fit(note, static_cast<std::size_t>(note_w)), style));
  }
  return out;
}

std::string checks_summary_line(const std::vector<Result>& results, const std::string& device) {
  std::map<Status, int> counts;
  int warnings = 0;
  std::vector<double> speedups;
  for (const auto& r : results) {
    counts[r.status]++;
    warnings += static_cast<int>(r.warnings.size());
    if (r.speedup && r.status == Status::ok) speedups.push_back(*r.speedup);
  }
  std::string s = fmt::format("Summary: {}/{} ok on {}", counts[Status::ok], results.size(), device);
  auto add = [&](Status st, const char* one, const char* many) {
    const int n = counts[st];
    if (n) s += fmt::format(" | {} {}", n, n == 1 ? one : many);
  };
  add(Status::error, "error", "errors");
  add(Status::mismatch, "mismatch", "mismatches");
  add(Status::off_device, "off device", "off device");
  add(Status::crashed, "crashed", "crashed");
  add(Status::hung, "hung", "hung");
  add(Status::unavailable, "unavailable", "unavailable");
  add(Status::skipped, "skipped", "skipped");
  if (warnings) s += fmt::format(" | {} warning{}", warnings, warnings == 1 ? "" : "s");
  if (!speedups.empty()) {
    s += fmt::format(" | median speed-up {} vs CPU", format_ratio(summarize(speedups).median));
  }
  return s;
}

std::string render_check_problems(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  for (const auto& r : results) {
    const bool fallback = r.profile && r.profile->where == "cpu_fallback";
    const bool problem = (r.status != Status::ok && r.status != Status::skipped) || fallback;
    if (!problem && r.warnings.empty()) continue;
    out += fmt::format("{} {} [{}] on {}: {}\n", colorize_status(r.status, "●", style), bold(r.key, style),
                       to_string(r.status), r.device, r.reason.empty() && r.error ? r.error->message : r.reason);
    if (r.error) {
      if (!r.reason.empty() && r.reason != r.error->message) out += fmt::format("    message: {}\n", r.error->message);
      if (!r.error->cause.empty()) out += fmt::format("    cause:   {}\n", r.error->cause);
      if (!r.error->fix.empty()) out += fmt::format("    fix:     {}\n", r.error->fix);
      if (!r.error->reference.empty()) out += fmt::format("    see:     {}\n", r.error->reference);
      if (r.evidence.contains("stderr_tail")) {
        out += "    stderr (last lines):\n";
        std::string tail = r.evidence["stderr_tail"].get<std::string>();
        std::size_t start = 0;
        while (start < tail.size()) {
          auto nl = tail.find('\n', start);
          if (nl == std::string::npos) nl = tail.size();
          out += "      " + fit(tail.substr(start, nl - start), static_cast<std::size_t>(std::max(20, style.width - 6))) + "\n";
          start = nl + 1;
        }
      }
    }
    if (fallback) out += fmt::format("    ran on the CPU: {}\n", r.profile->detail);
    for (const auto& w : r.warnings) out += fmt::format("    warning: {}\n", w);
  }
  return out;
}

std::string render_environment(const Environment& env, const ConsoleStyle& style) {
  std::string out;
  const auto& h = env.host;
  out += bold("Host", style) + "\n";
  line(out, "OS", or_missing(h.os, h.not_collected, "os"));
  line(out, "kernel", or_missing(h.kernel, h.not_collected, "kernel"));
  line(out, "CPU", or_missing(h.cpu_model, h.not_collected, "cpu_model"));
  line(out, "cores", opt_or_missing<int>(h.logical_cores, h.not_collected, "logical_cores", [&](const int& n) {
         return fmt::format("{} logical{}", n, h.physical_cores ? fmt::format(", {} physical", *h.physical_cores) : "");
       }));
  line(out, "SIMD", h.simd.empty() ? or_missing("", h.not_collected, "simd") : fmt::format("{}", fmt::join(h.simd, " ")));
  line(out, "memory", opt_or_missing<std::uint64_t>(h.memory_total_bytes, h.not_collected, "memory_total_bytes",
                                                     [&](const std::uint64_t& b) {
                                                       std::string s = format_bytes(static_cast<double>(b)) + " total";
                                                       if (h.memory_available_bytes)
                                                         s += ", " + format_bytes(static_cast<double>(*h.memory_available_bytes)) + " available";
                                                       return s;
                                                     }));
  if (!h.cpu_governor.empty()) line(out, "CPU governor", h.cpu_governor);

  const auto& t = env.torch;
  out += bold("Torch", style) + "\n";
  line(out, "version", t.version + (t.source.empty() ? "" : "  (" + t.source + ")"));
  line(out, "backend", t.backend);
  if (!t.cuda_version.empty()) line(out, "CUDA runtime", t.cuda_version);
  if (!t.cudnn_version.empty()) line(out, "cuDNN", t.cudnn_version);
  if (!t.hip_version.empty()) line(out, "HIP runtime", t.hip_version);
  if (!t.miopen_version.empty()) line(out, "MIOpen", t.miopen_version);
  line(out, "arch list", t.arch_list.empty() ? or_missing("", t.not_collected, "arch_list")
                                              : fmt::format("{}", fmt::join(t.arch_list, " ")));
  auto build = [&](const char* key) {
    const auto it = t.build.find(key);
    return it == t.build.end() ? std::string("?") : it->second;
  };
  line(out, "BLAS / LAPACK (build)", fmt::format("{} / {}", build("BLAS_INFO"), build("LAPACK_INFO")));
  if (!t.openmp.empty()) line(out, "OpenMP", t.openmp);
  if (!t.cpu_capability.empty()) line(out, "CPU capability", t.cpu_capability);
  line(out, "C++11 ABI", t.cxx11_abi ? (*t.cxx11_abi ? "yes" : "no") : or_missing("", t.not_collected, "cxx11_abi"));
  line(out, "threads", fmt::format("intra-op {}, inter-op {}", t.intra_op_threads.value_or(-1), t.inter_op_threads.value_or(-1)));
  std::vector<std::string> feats;
  for (const auto& [k, v] : t.features) feats.push_back(k + (v ? "+" : "-"));
  line(out, "features", fmt::format("{}", fmt::join(feats, " ")));

  const auto& b = env.blas;
  out += bold("CPU BLAS loaded in this process", style) + "\n";
  line(out, "library", or_missing(b.name, b.not_collected, "name") + (b.version.empty() ? "" : " " + b.version));
  if (!b.library.empty()) line(out, "path", b.library);
  if (!b.evidence.empty()) line(out, "recognised by", b.evidence);

  const auto& d = env.driver;
  out += bold("Drivers", style) + "\n";
  line(out, "NVIDIA driver", or_missing(d.nvidia_driver, d.not_collected, "nvidia_driver"));
  line(out, "CUDA driver API", d.cuda_driver_api.empty() ? or_missing(d.cuda_init_error, d.not_collected, "cuda_driver_api")
                                                         : d.cuda_driver_api);
  line(out, "ROCm", or_missing(d.rocm_version, d.not_collected, "rocm_version"));
  if (!d.amdgpu_driver.empty()) line(out, "amdgpu", d.amdgpu_driver);
  for (const auto& n : d.device_nodes) line(out, "device node", n);

  out += bold(fmt::format("Accelerators torch sees ({})", env.devices.size()), style) + "\n";
  if (env.devices.empty()) out += "  none\n";
  for (const auto& dev : env.devices) {
    std::string s = fmt::format("{}  {}  {}", dev.id, dev.name, dev.arch);
    if (dev.total_memory_bytes) s += "  " + format_bytes(static_cast<double>(*dev.total_memory_bytes));
    if (dev.multiprocessors) s += fmt::format("  {} {}", *dev.multiprocessors, dev.vendor == "amd" ? "CUs" : "SMs");
    if (dev.integrated) s += *dev.integrated ? "  integrated" : "  discrete";
    if (dev.arch_in_build) {
      s += *dev.arch_in_build ? "  arch in build" : "  ARCH NOT IN BUILD";
    } else {
      s += "  arch in build: " + or_missing("", dev.not_collected, "arch_in_build");
    }
    out += "  " + s + "\n";
  }
  out += bold(fmt::format("GPUs found without torch ({})", env.gpus.size()), style) + "\n";
  if (env.gpus.empty()) out += "  none\n";
  for (const auto& g : env.gpus) {
    std::string s = fmt::format("{}  {} {}  {}", g.pci_address, g.vendor, g.device_id, g.name.empty() ? "(unnamed)" : g.name);
    if (!g.gfx_target.empty()) s += "  " + g.gfx_target;
    if (!g.compute_capability.empty()) s += "  cc " + g.compute_capability;
    if (g.integrated) s += *g.integrated ? "  integrated" : "  discrete";
    s += "  driver " + (g.driver.empty() ? std::string("none") : g.driver);
    if (g.vram_bytes) s += "  " + format_bytes(static_cast<double>(*g.vram_bytes));
    if (g.link) {
      s += fmt::format("  PCIe {} x{} (max {} x{})", g.link->current_speed, g.link->current_width.value_or(0),
                       g.link->max_speed, g.link->max_width.value_or(0));
    }
    out += "  " + s + "\n";
    for (const auto& [k, v] : g.not_collected) out += dim(fmt::format("      {}: could not collect ({})", k, v), style) + "\n";
  }
  out += bold("Environment variables that change GPU behaviour", style) + "\n";
  if (env.env_vars.empty()) out += "  none set\n";
  for (const auto& v : env.env_vars) {
    out += fmt::format("  {}={}\n", v.name, v.value);
    if (!v.effect.empty()) out += dim("      " + v.effect, style) + "\n";
  }
  if (env.selection) {
    out += bold("Device selection", style) + "\n";
    line(out, "measuring", env.selection->chosen);
    line(out, "why", env.selection->reason);
  }
  return out;
}

}  // namespace accel
