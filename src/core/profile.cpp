#include "core/profile.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "core/files.hpp"
#include "core/kb.hpp"

namespace accel {

std::string_view to_string(TraceEvent::Kind k) {
  switch (k) {
    case TraceEvent::Kind::op:
      return "op";
    case TraceEvent::Kind::kernel:
      return "kernel";
    case TraceEvent::Kind::memcpy:
      return "memcpy";
    case TraceEvent::Kind::memset:
      return "memset";
    case TraceEvent::Kind::sync:
      return "sync";
    case TraceEvent::Kind::runtime:
      return "runtime";
    case TraceEvent::Kind::annotation:
      return "annotation";
    case TraceEvent::Kind::other:
      return "other";
  }
  return "other";
}

std::string copy_direction(std::string_view name) {
  // CUDA: "Memcpy HtoD (Pageable -> Device)", HIP: "hipMemcpyDtoH", "CopyHostToDevice".
  static const std::pair<const char*, const char*> kForms[] = {
      {"HtoD", "HtoD"}, {"DtoH", "DtoH"},         {"DtoD", "DtoD"},         {"HtoH", "HtoH"},
      {"PtoP", "DtoD"}, {"HostToDevice", "HtoD"}, {"DeviceToHost", "DtoH"}, {"DeviceToDevice", "DtoD"},
  };
  for (const auto& [needle, dir] : kForms) {
    if (name.find(needle) != std::string_view::npos) return dir;
  }
  return {};
}

bool is_sync_call(std::string_view name) {
  static const char* kSyncs[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                 "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",
                                 "cuStreamSynchronize",   "cuCtxSynchronize",      "cuEventSynchronize"};
  for (const char* s : kSyncs) {
    if (name == s) return true;
  }
  // Blocking copies wait for the device too (cudaMemcpy, not cudaMemcpyAsync).
  return name == "cudaMemcpy" || name == "hipMemcpy";
}

namespace {
TraceEvent::Kind kind_of_category(const std::string& cat, const std::string& name) {
  if (cat == "cpu_op" || cat == "operator") return TraceEvent::Kind::op;
  if (cat == "user_annotation") return TraceEvent::Kind::annotation;
  if (cat == "kernel") return TraceEvent::Kind::kernel;
  if (cat == "gpu_memcpy") return TraceEvent::Kind::memcpy;
  if (cat == "gpu_memset") return TraceEvent::Kind::memset;
  if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "hip_runtime" || cat == "runtime" ||
      cat == "privateuse1_runtime" || cat == "xpu_runtime") {
    return is_sync_call(name) ? TraceEvent::Kind::sync : TraceEvent::Kind::runtime;
  }
  if (cat == "cuda_sync") return TraceEvent::Kind::sync;
  return TraceEvent::Kind::other;
}

double number_or(const json& j, const char* key, double fallback) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<double>();
}
}  // namespace

std::vector<TraceEvent> parse_chrome_trace(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw ReportError(fmt::format("trace is not valid JSON: {}", e.what()));
  }
  const json* events = nullptr;
  if (j.is_object() && j.contains("traceEvents")) {
    events = &j["traceEvents"];
  } else if (j.is_array()) {
    events = &j;
  }
  if (!events || !events->is_array()) throw ReportError("trace has no traceEvents array");
  std::vector<TraceEvent> out;
  for (const auto& e : *events) {
    if (!e.is_object() || e.value("ph", "") != "X") continue;  // complete events only
    const std::string cat = e.value("cat", "");
    TraceEvent t;
    t.name = e.value("name", "");
    t.kind = kind_of_category(cat, t.name);
    if (t.kind == TraceEvent::Kind::other) continue;
    t.ts_us = number_or(e, "ts", 0);
    t.dur_us = number_or(e, "dur", 0);
    if (const auto args = e.find("args"); args != e.end() && args->is_object()) {
      t.bytes = number_or(*args, "bytes", 0);
      t.correlation = static_cast<int64_t>(number_or(*args, "correlation", -1));
      if (t.kind == TraceEvent::Kind::kernel || t.kind == TraceEvent::Kind::memcpy ||
          t.kind == TraceEvent::Kind::memset) {
        t.device = static_cast<int>(number_or(*args, "device", 0));
      }
    }
    if (t.kind == TraceEvent::Kind::memcpy) t.copy = copy_direction(t.name);
    out.push_back(std::move(t));
  }
  return out;
}

std::size_t merge_chrome_traces(std::ostream& out, const std::vector<std::string>& names,
                                const std::function<std::string(std::size_t)>& read_part) {
  const auto dump = [](const json& e) { return e.dump(-1, ' ', false, json::error_handler_t::replace); };
  out << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[";
  bool first_event = true;
  std::size_t merged = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    json j;
    try {
      j = json::parse(read_part(i));
    } catch (const json::exception&) {
      continue;
    }
    if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array()) continue;
    double first = -1;
    for (const auto& e : j["traceEvents"]) {
      if (e.is_object() && e.contains("ts") && e["ts"].is_number()) {
        const double ts = e["ts"].get<double>();
        if (first < 0 || ts < first) first = ts;
      }
      out << (first_event ? "" : ",") << dump(e);
      first_event = false;
    }
    const json marker = {{"name", names[i]}, {"ph", "i"}, {"s", "g"}, {"ts", first < 0 ? 0 : first},
                         {"pid", 0},         {"tid", 0}};
    out << (first_event ? "" : ",") << dump(marker);
    first_event = false;
    ++merged;
  }
  out << "]}";
  return merged;
}

std::string merge_chrome_traces(const std::vector<std::pair<std::string, std::string>>& named_parts) {
  std::vector<std::string> names;
  for (const auto& p : named_parts) names.push_back(p.first);
  std::ostringstream out;
  merge_chrome_traces(out, names, [&](std::size_t i) { return named_parts[i].second; });
  return out.str();
}

// ---------------------------------------------------------------- implementations

struct ImplementationTable::Impl {
  struct Pattern {
    std::string role;
    std::string implementation;
    bool match_ops = false;  // match ATen op names instead of kernel names
    std::unique_ptr<RE2> re;
  };
  std::vector<Pattern> patterns;
};

ImplementationTable::ImplementationTable() : impl_(std::make_unique<Impl>()) {}
ImplementationTable::~ImplementationTable() = default;
ImplementationTable::ImplementationTable(ImplementationTable&&) noexcept = default;
ImplementationTable& ImplementationTable::operator=(ImplementationTable&&) noexcept = default;

ImplementationTable ImplementationTable::load(const std::string& kb_dir) {
  const auto path = std::filesystem::path(kb_dir) / "kernels.json";
  const auto text = read_file(path);
  if (!text) throw KbError(fmt::format("cannot read kb file {}", path.string()));
  json j;
  try {
    j = json::parse(*text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw KbError(fmt::format("kb file {} is not valid JSON: {}", path.string(), e.what()));
  }
  ImplementationTable t;
  try {
    for (const auto& p : j.at("implementations")) {
      Impl::Pattern pat;
      pat.role = p.at("role").get<std::string>();
      pat.implementation = p.at("implementation").get<std::string>();
      pat.match_ops = p.value("match", "kernel") == "op";
      pat.re = std::make_unique<RE2>(p.at("pattern").get<std::string>(), RE2::Quiet);
      if (!pat.re->ok()) {
        throw KbError(fmt::format("kb file {}: bad pattern for {}: {}", path.string(), pat.implementation,
                                  pat.re->error()));
      }
      t.impl_->patterns.push_back(std::move(pat));
    }
  } catch (const json::exception& e) {  // a missing or mistyped field: the documented KbError
    throw KbError(fmt::format("kb file {}: {}", path.string(), e.what()));
  }
  return t;
}

std::map<std::string, std::string> ImplementationTable::identify(
    const std::vector<TraceEvent>& events) const {
  std::map<std::string, std::string> found;
  for (const auto& p : impl_->patterns) {
    if (found.count(p.role)) continue;
    for (const auto& e : events) {
      const bool eligible = p.match_ops ? e.kind == TraceEvent::Kind::op : e.kind == TraceEvent::Kind::kernel;
      // A kernel belongs to the role of the first kernel pattern it matches:
      // cuDNN's attention kernel (cudnn_generated_fort_native_sdpa_*) also
      // matches the convolution pattern `cudnn_`, but is not a convolution.
      if (eligible && !p.match_ops && role_of_kernel(e.name) != p.role) continue;
      if (eligible && RE2::PartialMatch(e.name, *p.re)) {
        found[p.role] = p.implementation;
        break;
      }
    }
  }
  return found;
}

std::string ImplementationTable::role_of_kernel(const std::string& kernel) const {
  for (const auto& p : impl_->patterns) {
    if (!p.match_ops && RE2::PartialMatch(kernel, *p.re)) return p.role;
  }
  return {};
}

std::size_t ImplementationTable::size() const { return impl_->patterns.size(); }

DeviceTimeBreakdown attribute_device_time(
    const std::vector<TraceEvent>& events,
    const std::function<std::string(const std::string&)>& class_of_annotation,
    const ImplementationTable* implementations) {
  DeviceTimeBreakdown b;
  std::map<int64_t, const TraceEvent*> launches;  // correlation -> host runtime call
  std::vector<const TraceEvent*> annotations;
  std::vector<std::pair<double, double>> intervals;
  std::map<std::string, DeviceTimeBreakdown::Kernel> per_kernel;
  for (const auto& e : events) {
    if ((e.kind == TraceEvent::Kind::runtime || e.kind == TraceEvent::Kind::sync) && e.correlation >= 0) {
      launches[e.correlation] = &e;
    } else if (e.kind == TraceEvent::Kind::annotation) {
      annotations.push_back(&e);
    }
  }
  // The innermost annotation containing host time `ts`.
  auto annotation_at = [&](double ts) -> std::string {
    const TraceEvent* best = nullptr;
    for (const auto* a : annotations) {
      if (ts >= a->ts_us && ts <= a->ts_us + a->dur_us && (!best || a->dur_us < best->dur_us)) best = a;
    }
    return best ? best->name : std::string();
  };
  for (const auto& e : events) {
    const bool kernel = e.kind == TraceEvent::Kind::kernel;
    const bool copy = e.kind == TraceEvent::Kind::memcpy || e.kind == TraceEvent::Kind::memset;
    if (!kernel && !copy) continue;
    intervals.emplace_back(e.ts_us, e.ts_us + e.dur_us);
    std::string cls;
    if (copy) {
      cls = "copies";
      b.copy_us += e.dur_us;
    } else {
      ++b.kernels;
      b.kernel_us += e.dur_us;
      if (const auto it = launches.find(e.correlation); it != launches.end()) {
        const std::string ann = annotation_at(it->second->ts_us);
        if (!ann.empty()) cls = class_of_annotation(ann);
      }
      if (cls.empty()) {
        cls = implementations && implementations->role_of_kernel(e.name) == "gemm" ? "GEMM" : "elementwise";
      }
      auto& k = per_kernel[e.name + '\n' + cls];  // one row per name and class
      k.name = e.name;
      k.cls = cls;
      ++k.count;
      k.total_us += e.dur_us;
    }
    b.by_class_us[cls] += e.dur_us;
  }
  for (auto& [name, k] : per_kernel) b.by_kernel.push_back(std::move(k));
  std::sort(b.by_kernel.begin(), b.by_kernel.end(),
            [](const auto& x, const auto& y) { return x.total_us > y.total_us; });
  if (!intervals.empty()) {
    std::sort(intervals.begin(), intervals.end());
    b.span_us = 0;
    double start = intervals.front().first, end = intervals.front().second;
    const double first = start;
    double last = end;
    for (const auto& [s, e] : intervals) {
      last = std::max(last, e);
      if (s > end) {
        b.busy_us += end - start;
        start = s;
        end = e;
      } else {
        end = std::max(end, e);
      }
    }
    b.busy_us += end - start;
    b.span_us = last - first;
    b.idle_fraction = b.span_us > 0 ? std::max(0.0, 1.0 - b.busy_us / b.span_us) : 0;
  }
  return b;
}

// ---------------------------------------------------------------- classification

ProfileEvidence classify_events(const std::vector<TraceEvent>& events, const ClassifyOptions& options,
                                const ImplementationTable* implementations) {
  ProfileEvidence p;
  std::vector<std::pair<double, std::string>> kernels;
  for (const auto& e : events) {
    switch (e.kind) {
      case TraceEvent::Kind::kernel:
        ++p.kernel_count;
        p.kernel_time_us += e.dur_us;
        kernels.emplace_back(e.dur_us, e.name);
        break;
      case TraceEvent::Kind::memcpy:
        p.memcpy_time_us += e.dur_us;
        if (e.copy == "HtoD") {
          ++p.h2d_count;
          p.h2d_bytes += e.bytes;
        } else if (e.copy == "DtoH") {
          ++p.d2h_count;
          p.d2h_bytes += e.bytes;
        } else if (e.copy == "DtoD") {
          ++p.d2d_count;
        }
        break;
      case TraceEvent::Kind::memset:
        ++p.memset_count;
        break;
      case TraceEvent::Kind::sync:
        ++p.sync_count;
        break;
      case TraceEvent::Kind::op:
        if (p.ops.size() < 8 && std::find(p.ops.begin(), p.ops.end(), e.name) == p.ops.end()) {
          p.ops.push_back(e.name);
        }
        break;
      default:
        break;
    }
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [dur, name] : kernels) {
    if (p.kernels.size() >= 5) break;
    if (std::find(p.kernels.begin(), p.kernels.end(), name) == p.kernels.end()) p.kernels.push_back(name);
  }
  if (implementations) p.implementation = implementations->identify(events);

  const int host_copies = p.h2d_count + p.d2h_count;
  if (options.target_is_host) {
    p.where = Where::host;
    p.detail = "the target is the CPU";
  } else if (!options.profiler_sees_device) {
    p.where = Where::profiler_blind;
    p.detail =
        "the profiler showed no device activity for a known device op (a matrix product) on this "
        "build, so it cannot tell where this check ran";
  } else if (p.kernel_count > 0) {
    p.where = Where::device_kernels;
    p.detail = fmt::format("{} device kernel{} ran ({:.1f} µs on the device)", p.kernel_count,
                           p.kernel_count == 1 ? "" : "s", p.kernel_time_us);
  } else if (options.transfer_check && (host_copies > 0 || p.d2d_count > 0)) {
    p.where = Where::device_kernels;
    p.detail = "the copy engine moved the data (a transfer by design)";
  } else if (host_copies > 0) {
    p.where = Where::cpu_fallback;
    p.fallback_cost_us = p.memcpy_time_us;
    p.detail = fmt::format(
        "no device kernel ran; {} host→device ({:.0f} B) and {} device→host ({:.0f} B) copies: the op ran "
        "on the CPU and the fallback cost {:.1f} µs of copies",
        p.h2d_count, p.h2d_bytes, p.d2h_count, p.d2h_bytes, p.memcpy_time_us);
  } else if (p.memset_count > 0 || p.d2d_count > 0) {
    p.where = Where::device_kernels;
    p.detail = "only device memsets/copies ran";
  } else {
    p.where = Where::no_device_work;
    p.detail = "no kernels and no copies: a view or metadata-only op";
  }
  return p;
}

}  // namespace accel
