#include "engines/onnxruntime/engine.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "engines/onnxruntime/checks/check.hpp"
#include "engines/onnxruntime/devices.hpp"
#include "engines/onnxruntime/run_check.hpp"
#include "engines/onnxruntime/session.hpp"
#include "platform/process.hpp"

namespace accel::ort {

namespace fs = std::filesystem;

namespace {

/// The runtime and its environment live until the process ends: ONNX
/// Runtime must not be unloaded, and an OrtEnv released during static
/// destruction can outlive the runtime's own globals.
struct Opened {
  std::unique_ptr<Runtime> runtime;
  Env* env = nullptr;
};
Opened& keep(std::unique_ptr<Runtime> rt) {
  static std::vector<Opened*> all;
  auto* o = new Opened{std::move(rt), nullptr};
  o->env = new Env(*o->runtime);
  all.push_back(o);
  return *o;
}

/// A two-element Add on the target: can the provider create a session and run?
void probe(const Env& env, const Target& t) {
  Graph g;
  g.inputs.push_back({"x", DType::fp32, {4}});
  g.outputs.push_back({"y", DType::fp32, {4}});
  g.add(Node{"Add", "", "probe_add", {"x", "x"}, {"y"}, {}});
  const Model m = Model::build(env, g, /*force_writer=*/true);
  SessionConfig cfg;
  cfg.provider = t.provider();
  Session s = Session::create(env, m, cfg);
  std::vector<HostTensor> in{{g.inputs[0], encode(DType::fp32, {1, 2, 3, 4})}};
  s.bind_inputs(in);
  s.run();
}

struct Item {
  const CheckDef* def;
  DType dtype;
  bool workload;
};

std::vector<Item> items_of(const EngineOptions& o) {
  std::vector<Item> items;
  if (o.checks) {
    for (const auto& def : catalog()) {
      for (DType t : def.dtypes) {
        if (selected(check_key(def, t), o.filters)) items.push_back({&def, t, false});
      }
    }
  }
  if (o.workloads) {
    for (const auto& def : workloads()) {
      for (DType t : def.dtypes) {
        if (selected(check_key(def, t), o.filters)) items.push_back({&def, t, true});
      }
    }
  }
  return items;
}

bool keep_profiles() {
  const char* v = std::getenv("ACCEL_DOCTOR_ORT_KEEP_PROFILES");
  return v && std::string(v) == "1";
}

/// Where the profiles go: a temporary folder removed after the run, or with
/// ACCEL_DOCTOR_ORT_KEEP_PROFILES=1 ./accel-doctor-ort-profiles, kept.
std::string scratch_dir() {
  std::error_code ec;
  fs::path dir;
  if (keep_profiles()) {
    dir = fs::absolute("accel-doctor-ort-profiles", ec);
    fs::create_directories(dir, ec);
    return dir.string();
  }
  dir = fs::temp_directory_path(ec);
  if (ec) dir = ".";
  dir /= fmt::format("accel-doctor-ort-{}", platform::process_id());
  fs::create_directories(dir, ec);
  return dir.string();
}

void directml_beside(const Runtime& rt, OnnxRuntimeInfo& info) {
#ifdef _WIN32
  // onnxruntime.dll delay-loads DirectML.dll by name; loaded first from the
  // runtime's own folder, that copy is the one the provider gets (the
  // in-box System32 DirectML.dll is older than the provider needs).
  const fs::path beside = fs::path(rt.path()).parent_path() / "DirectML.dll";
  std::error_code ec;
  if (fs::exists(beside, ec)) {
    auto lib = platform::detail::DynLib::open({beside.string()});
    if (lib) info.directml_library = beside.string();
  } else {
    info.not_collected["directml_library"] =
        "no DirectML.dll beside " + rt.path() + ": the DirectML provider would load the system's";
  }
#else
  (void)rt;
  (void)info;
#endif
}

}  // namespace

bool selected(const std::string& key, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (!f.empty() && key.find(f) != std::string::npos) return true;
  }
  return false;
}

std::vector<PlannedItem> plan(const EngineOptions& o) {
  std::vector<PlannedItem> out;
  for (const auto& it : items_of(o)) {
    out.push_back({check_key(*it.def, it.dtype), it.def->name, "ort-" + it.def->category,
                   std::string(to_string(it.dtype)), it.def->flops_formula});
  }
  return out;
}

namespace {

/// What the runtime offers: version, model path, Python packages,
/// DirectML.dll, providers, EP devices (with their handles in `eps`).
void describe_runtime(const EngineOptions& o, const Runtime& rt, const Env& env, const FoundRuntime& found,
                      OnnxRuntimeInfo& info, EpDeviceList& eps) {
  info.library = rt.path();
  info.found_by = found.found_by;
  info.version = rt.version();
  info.api_version = static_cast<int>(rt.api_version());
  info.build_info = rt.build_info();
  info.model_path = rt.editor() && !o.force_writer ? "model_editor" : "protobuf";
  if (!rt.editor())
    info.not_collected["model_editor"] = "this runtime has no Model Editor API (1.22 and later)";
  // The interpreter's onnxruntime packages, also when the runtime came from
  // elsewhere: two of them installed side by side hide each other's providers.
  if (info.python.empty() && o.search.use_python) {
    const PythonPackages py =
        probe_python_packages(o.search.python.empty() ? "python3" : o.search.python, 15);
    info.python = py.executable;
    info.python_packages = py.distributions;
    if (!py.error.empty() && py.executable.empty()) info.not_collected["python_packages"] = py.error;
  }
  directml_beside(rt, info);
  info.providers = available_providers(rt);
  eps = list_ep_devices(env);
  info.ep_devices = eps.devices;
  join_windows_adapters(info.ep_devices, o.windows);
  if (!eps.why_not.empty()) info.not_collected["ep_devices"] = eps.why_not;
}

/// The first candidate that creates a session, with every refusal in
/// `refused` (the runtime's words and the kb's cause).
std::optional<Target> first_usable(const EngineOptions& o, const Env& env,
                                   const std::vector<DeviceCandidate>& cands, const EpDeviceList& eps,
                                   std::vector<std::string>& refused) {
  for (const auto& c : cands) {
    Target t{c, c.ep_device_index >= 0 ? eps.handles[static_cast<std::size_t>(c.ep_device_index)] : nullptr};
    try {
      probe(env, t);
      return t;
    } catch (const std::exception& e) {
      std::string why = short_message(e.what());
      if (o.kb) {
        if (const auto d = o.kb->classify(e.what(), o.machine))
          why += fmt::format(" ({}; fix: {})", d->cause, d->fix);
      }
      refused.push_back(fmt::format("{} ({}) could not create a session: {}", c.device, c.ep, why));
    }
  }
  return std::nullopt;
}

void run_items(const EngineOptions& o, const Env& env, const Target& target, EngineRun& run) {
  RunOptions ro;
  ro.quick = o.quick;
  ro.force_writer = o.force_writer;
  ro.cpu_twin = o.cpu_twin;
  ro.scratch_dir = scratch_dir();
  ro.keep_profiles = keep_profiles();
  ro.kb = o.kb;
  ro.machine = o.machine;
  const CheckRunner runner(env, target, ro);
  const std::string device_type = run.info.device.substr(0, run.info.device.find(':'));
  const auto items = items_of(o);
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& it = items[i];
    if (o.interrupted && o.interrupted()) {
      Result r;
      r.key = check_key(*it.def, it.dtype);
      r.kind = it.workload ? ResultKind::bench : ResultKind::check;
      r.name = it.def->name;
      r.category = "ort-" + it.def->category;
      r.dtype = std::string(to_string(it.dtype));
      r.device = run.info.device;
      r.status = Status::skipped;
      r.reason = "not run: interrupted";
      run.results.push_back(std::move(r));
      continue;
    }
    if (o.on_start) o.on_start(check_key(*it.def, it.dtype), i, items.size());
    Result r = runner.run(*it.def, it.dtype);
    r.evidence["ort_version"] = run.info.version;
    if (it.workload) {
      r.kind = ResultKind::bench;
      r.key = workload_key(*it.def, it.dtype, device_type, r.evidence.value("shape_tag", std::string()));
    }
    if (o.on_result) o.on_result(r);
    run.results.push_back(std::move(r));
  }
  std::error_code ec;
  if (!ro.keep_profiles) fs::remove_all(ro.scratch_dir, ec);
}

}  // namespace

EngineRun run_engine(const EngineOptions& o) {
  EngineRun run;
  OnnxRuntimeInfo& info = run.info;
  const auto request = parse_device_request(o.device);
  if (!request) {
    run.setup_error = fmt::format(
        "--device {}: the ONNX Runtime engine takes auto, cpu, gpu, dml, dml:N (DirectML device_id), cuda, "
        "cuda:N "
        "or webgpu",
        o.device);
    return run;
  }
  FoundRuntime found = find_runtime(o.search);
  info.not_found = found.not_found;
  info.python = found.python.executable;
  info.python_packages = found.python.distributions;
  if (!found.runtime) {
    run.setup_error = !found.explicit_error.empty()
                          ? found.explicit_error
                          : fmt::format(
                                "no ONNX Runtime found ({}); name one with --onnxruntime PATH "
                                "(libonnxruntime.so.1, onnxruntime.dll) or install the onnxruntime Python "
                                "package",
                                fmt::join(found.not_found, "; "));
    run.not_measured = run.setup_error;
    return run;
  }
  run.runtime_found = true;
  Opened& opened = keep(std::move(found.runtime));
  EpDeviceList eps;
  describe_runtime(o, *opened.runtime, *opened.env, found, info, eps);

  std::string why;
  const auto candidates = device_candidates(*request, info.providers, info.ep_devices, o.windows, &why);
  if (candidates.empty()) {
    run.setup_error = fmt::format("--device {}: {}", o.device, why);
    run.not_measured = why;
    return run;
  }
  std::vector<std::string> refused;
  const std::optional<Target> chosen = first_usable(o, *opened.env, candidates, eps, refused);
  info.warnings = refused;
  if (!chosen) {
    run.setup_error = fmt::format("--device {}: {}", o.device, fmt::join(refused, "; "));
    run.not_measured = fmt::format("no GPU provider could create a session ({})", fmt::join(refused, "; "));
    return run;
  }
  info.device = chosen->candidate.device;
  info.device_reason = chosen->candidate.reason;
  if (request->kind == DeviceRequest::Kind::automatic && !refused.empty())
    info.device_reason += " (see the warnings)";
  for (const auto& w : chosen->candidate.warnings) info.warnings.push_back(w);
  run.gpu = chosen->candidate.is_gpu;
  if (o.gpu_only && !run.gpu) {
    run.not_measured = fmt::format("ONNX Runtime {} ({}) has no usable GPU provider (providers: {}){}",
                                   info.version, info.library, fmt::join(info.providers, ", "),
                                   refused.empty() ? "" : fmt::format("; {}", fmt::join(refused, "; ")));
    return run;
  }
  run_items(o, *opened.env, *chosen, run);
  return run;
}

std::string render_summary(const EngineRun& run) {
  const OnnxRuntimeInfo& i = run.info;
  std::ostringstream s;
  s << "ONNX Runtime " << i.version << " (OrtApi " << i.api_version << ") from " << i.library << " ["
    << i.found_by << "]\n";
  s << "  models built with: "
    << (i.model_path == "model_editor" ? "the Model Editor API" : "accel-doctor's ONNX writer") << "\n";
  s << "  providers: " << fmt::format("{}", fmt::join(i.providers, ", ")) << "\n";
  if (!i.python_packages.empty())
    s << "  Python packages (" << i.python << "): " << fmt::format("{}", fmt::join(i.python_packages, ", "))
      << "\n";
  if (!i.ep_devices.empty()) {
    s << "  EP devices:\n";
    for (const auto& d : i.ep_devices) {
      s << fmt::format("    {:<24} {:<4} {} {}{}{}{}\n", d.ep_name, d.type,
                       d.vendor.empty() ? d.vendor_id : d.vendor, d.name.empty() ? d.device_id : d.name,
                       d.dxgi_adapter_number ? fmt::format(", DXGI adapter {}", *d.dxgi_adapter_number) : "",
                       d.luid.empty() ? "" : ", LUID " + d.luid,
                       d.discrete ? (*d.discrete ? ", discrete" : ", integrated") : "");
    }
  } else if (const auto it = i.not_collected.find("ep_devices"); it != i.not_collected.end()) {
    s << "  EP devices: " << it->second << "\n";
  }
  if (!i.device.empty()) s << "  measuring on " << i.device << ": " << i.device_reason << "\n";
  for (const auto& w : i.warnings) s << "  warning: " << w << "\n";
  return s.str();
}

}  // namespace accel::ort
