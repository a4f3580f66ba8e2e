// ONNX Runtime rules: what the `ort` engine's rows (keys ort/... and
// bench/ort-...) and environment.onnxruntime say. A report without them
// (no ONNX Runtime run) leaves every rule silent.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr const char* kRefDml =
    "https://onnxruntime.ai/docs/execution-providers/DirectML-ExecutionProvider.html";
constexpr const char* kRefDmlVersions =
    "https://learn.microsoft.com/en-us/windows/ai/directml/dml-version-history";
constexpr const char* kRefInstall = "https://onnxruntime.ai/docs/install/";
constexpr const char* kRefFloat16 =
    "https://onnxruntime.ai/docs/performance/model-optimizations/float16.html";
constexpr const char* kRefOperatorKernels =
    "https://github.com/microsoft/onnxruntime/blob/main/docs/OperatorKernels.md";

/// The newest DirectML.dll Windows ships in-box: 1.8.0 (Windows 11 22H2;
/// 1.6.0 in 21H2, 1.1.0 in Windows 10 2004), while every later DirectML is
/// redistributable-only (Microsoft's DirectML version history,
/// kRefDmlVersions). ONNX Runtime's DirectML provider is built against a
/// redistributable DirectML (1.12.1 in the 1.14 docs, 1.15.x since 1.19) and
/// ships it beside onnxruntime.dll: a System32 copy older than 1.9 cannot
/// be the one it needs.
constexpr int kDirectMlOldestUsable = 109;  // 1.9, version_number() form

bool is_ort_row(const Result& r) { return starts_with(r.key, "ort/") || starts_with(r.key, "bench/ort-"); }

std::vector<const Result*> ort_rows(const Ctx& c) {
  std::vector<const Result*> out;
  for (const auto& r : c.report.results) {
    if (is_ort_row(r)) out.push_back(&r);
  }
  return out;
}

const OnnxRuntimeInfo* info(const Ctx& c) { return c.env.onnxruntime ? &*c.env.onnxruntime : nullptr; }

std::string provider_of(const Result& r) { return r.evidence.value("provider", std::string()); }

const OrtEpDevice* measured_device(const OnnxRuntimeInfo& i) {
  for (const auto& d : i.ep_devices) {
    if (d.type == "gpu" && d.dxgi_adapter_number && i.device == fmt::format("dml:{}", *d.dxgi_adapter_number))
      return &d;
  }
  return nullptr;
}

std::string without_dtype(const std::string& key, const std::string& dtype) {
  // ort/<cat>/<name>/<dtype> and bench/ort-<dev>/workload/<name>/<dtype>/<tag>
  std::string k = key;
  const std::string needle = "/" + dtype;
  if (const auto pos = k.find(needle + "/"); pos != std::string::npos) return k.erase(pos, needle.size());
  if (k.size() >= needle.size() && k.compare(k.size() - needle.size(), needle.size(), needle) == 0)
    return k.substr(0, k.size() - needle.size());
  return k;
}

// ---------------------------------------------------------------- rules

void rule_ort_cpu_fallback(const Ctx& c, std::vector<Finding>& out) {
  std::vector<std::string> keys;
  std::set<std::string> ops;
  int cpu_nodes = 0, memcpy_nodes = 0;
  double cost = 0, total = 0;
  std::string provider;
  for (const Result* r : ort_rows(c)) {
    if (!r->profile || r->profile->where != Where::cpu_fallback) continue;
    const json& pl = r->evidence.contains("placement") ? r->evidence["placement"] : json::object();
    cpu_nodes += pl.value("cpu_nodes", 0);
    memcpy_nodes += pl.value("memcpy_nodes", 0);
    for (const auto& op : pl.value("cpu_ops", json::array())) {
      if (op.is_string()) ops.insert(op.get<std::string>());
    }
    cost += r->profile->fallback_cost_us;
    if (r->timing) total += r->timing->median_us;
    keys.push_back(fmt::format("{} ({} on the CPU, {})", r->key,
                               fmt::join(pl.value("cpu_ops", json::array()), ", "),
                               rate(r->profile->fallback_cost_us, "µs")));
    provider = provider_of(*r);
  }
  if (keys.empty()) return;
  std::string evidence = fmt::format(
      "{} ONNX Runtime {} ran nodes on the CPU instead of {}: {} CPU node{} ({}) and {} Memcpy node{}, {} "
      "per call "
      "on the CPU and copying",
      keys.size(), keys.size() == 1 ? "check" : "checks", provider, cpu_nodes, cpu_nodes == 1 ? "" : "s",
      fmt::join(ops, ", "), memcpy_nodes, memcpy_nodes == 1 ? "" : "s", rate(cost, "µs"));
  if (total > 0) evidence += fmt::format(" ({} of their time)", pct(100 * std::min(1.0, cost / total)));
  evidence += ": " + list_some(keys, 5);
  const bool dml = provider == "DmlExecutionProvider";
  out.push_back(make_finding(
      "ort_cpu_fallback", Severity::warning, 55 + std::min<double>(15, keys.size() * 2),
      fmt::format("{} ONNX Runtime {} fall{} back to the CPU on {}", keys.size(),
                  keys.size() == 1 ? "check" : "checks", keys.size() == 1 ? "s" : "", provider),
      evidence,
      "ONNX Runtime assigns a node the provider asked for only when that provider has a kernel for its op, "
      "opset and dtype; the rest silently run on the CPU provider, with Memcpy nodes copying the tensors to "
      "the "
      "host and back on every run. The GPU waits, and the model is as slow as its slowest CPU node plus the "
      "copies.",
      dml ? "Update onnxruntime-directml (each release adds DirectML kernels); export the model with opset "
            "17 or "
            "lower (the DirectML provider's documented range) and in a dtype it takes; replace or move the "
            "listed ops out of the hot path; to see it fail instead of falling back, create the session with "
            "the config entry session.disable_cpu_ep_fallback=1"
          : "Update onnxruntime for this provider; re-export the model with an opset and dtype the provider "
            "supports (its kernel list), or replace the listed ops; session.disable_cpu_ep_fallback=1 makes "
            "the "
            "session fail instead of falling back",
      dml ? kRefDml : kRefOperatorKernels));
}

struct OffProvider {
  std::vector<std::string> dtype_keys, opset_keys;
  std::string provider;
};

OffProvider off_provider_rows(const Ctx& c) {
  // fp16 rows that fell back or are unavailable while their fp32 twin ran on
  // the provider: the provider lacks the dtype. Rows whose opset is above 17
  // that fell back while opset-17 rows ran: the opset.
  std::map<std::string, const Result*> fp32;
  for (const Result* r : ort_rows(c)) {
    if (r->dtype == "fp32") fp32[without_dtype(r->key, "fp32")] = r;
  }
  auto on_device = [](const Result* r) {
    return r->status == Status::ok && r->profile && r->profile->where == Where::device_kernels;
  };
  auto not_on_device = [](const Result* r) {
    return r->status == Status::unavailable || (r->profile && r->profile->where == Where::cpu_fallback);
  };
  OffProvider o;
  auto& dtype_keys = o.dtype_keys;
  auto& opset_keys = o.opset_keys;
  auto& provider = o.provider;
  bool any_on_device = false;
  for (const Result* r : ort_rows(c)) any_on_device = any_on_device || on_device(r);
  for (const Result* r : ort_rows(c)) {
    if (provider_of(*r).empty() || provider_of(*r) == "CPUExecutionProvider") continue;
    if (!not_on_device(r)) continue;
    provider = provider_of(*r);
    if (r->dtype == "fp16") {
      const auto it = fp32.find(without_dtype(r->key, "fp16"));
      if (it != fp32.end() && on_device(it->second)) {
        dtype_keys.push_back(r->key);
        continue;
      }
    }
    if (r->evidence.value("opset", 0) > 17 && any_on_device)
      opset_keys.push_back(fmt::format("{} (opset {})", r->key, r->evidence.value("opset", 0)));
  }
  return o;
}

void rule_ort_dtype_unsupported(const Ctx& c, std::vector<Finding>& out) {
  const OffProvider o = off_provider_rows(c);
  const auto& dtype_keys = o.dtype_keys;
  const auto& provider = o.provider;
  if (!dtype_keys.empty()) {
    out.push_back(make_finding(
        "ort_dtype_unsupported", Severity::warning, 45,
        fmt::format("{} has no fp16 kernel for {} op{} that it runs in fp32", provider, dtype_keys.size(),
                    dtype_keys.size() == 1 ? "" : "s"),
        "fp16 rows on the CPU or unavailable, their fp32 rows on the provider: " + list_some(dtype_keys, 6),
        "A model converted to fp16 runs these ops on the CPU provider (or not at all), with copies around "
        "them, "
        "so the conversion can make the whole model slower.",
        "Keep these ops in fp32 when converting (onnxconverter-common's float16 conversion takes an op block "
        "list: keep_io_types=True, op_block_list=[...]), or update the runtime",
        kRefFloat16));
  }
}

void rule_ort_opset_unsupported(const Ctx& c, std::vector<Finding>& out) {
  const OffProvider o = off_provider_rows(c);
  const auto& opset_keys = o.opset_keys;
  const auto& provider = o.provider;
  if (!opset_keys.empty()) {
    out.push_back(make_finding(
        "ort_opset_unsupported", Severity::warning, 40,
        fmt::format("{} does not run {} op{} at their newer opset", provider, opset_keys.size(),
                    opset_keys.size() == 1 ? "" : "s"),
        "on the CPU or unavailable while opset-17 rows ran on the provider: " + list_some(opset_keys, 6),
        "Execution providers implement ops up to some opset (the DirectML provider documents opset 17); a "
        "model "
        "exported with a newer opset uses op versions the provider has no kernel for.",
        "Export the model with opset_version=17 (torch.onnx.export), or update the runtime", kRefDml));
  }
}

void rule_ort_igpu_measured(const Ctx& c, std::vector<Finding>& out) {
  const OnnxRuntimeInfo* i = info(c);
  if (!i) return;
  const OrtEpDevice* d = measured_device(*i);
  if (!d || d->discrete != false) return;
  const OrtEpDevice* discrete = nullptr;
  for (const auto& e : i->ep_devices) {
    if (e.ep_name == d->ep_name && e.type == "gpu" && e.discrete == true) discrete = &e;
  }
  if (!discrete) return;
  out.push_back(make_finding(
      "ort_igpu_measured", Severity::warning, 70,
      fmt::format("ONNX Runtime ran on the integrated GPU {} ({}); the discrete {} is DXGI adapter {}",
                  d->name, i->device, discrete->name, discrete->dxgi_adapter_number.value_or(-1)),
      fmt::format("measured on {} (LUID {}, Discrete=0); {} has LUID {}, Discrete=1", i->device, d->luid,
                  discrete->name, discrete->luid),
      "The DirectML provider's device_id is the DXGI adapter index; on a laptop adapter 0 often drives the "
      "display from the integrated GPU, so device_id 0 or the default runs the model there.",
      fmt::format(
          "Pass the discrete GPU's adapter index: providers=[('DmlExecutionProvider', {{'device_id': {}}})] "
          "(Python), or select its EP device (SessionOptionsAppendExecutionProvider_V2, ONNX Runtime "
          "1.22+); accel-doctor ort --device dml:{}",
          discrete->dxgi_adapter_number.value_or(0), discrete->dxgi_adapter_number.value_or(0)),
      kRefDml));
}

void rule_ort_two_packages(const Ctx& c, std::vector<Finding>& out) {
  const OnnxRuntimeInfo* i = info(c);
  if (!i) return;
  std::string plain;
  std::vector<std::string> gpu;
  for (const auto& p : i->python_packages) {
    const std::string name = lower(p.substr(0, p.find(' ')));
    if (name == "onnxruntime") plain = p;
    if (starts_with(name, "onnxruntime-") || starts_with(name, "onnxruntime_")) {
      if (name.find("tools") == std::string::npos && name.find("extensions") == std::string::npos &&
          name.find("genai") == std::string::npos)
        gpu.push_back(p);
    }
  }
  if (plain.empty() || gpu.empty()) return;
  const bool dml_wanted =
      std::any_of(gpu.begin(), gpu.end(), [](const std::string& p) { return contains_ci(p, "directml"); });
  const bool dml_missing =
      std::find(i->providers.begin(), i->providers.end(), "DmlExecutionProvider") == i->providers.end();
  const bool from_python = starts_with(i->found_by, "Python package");
  const bool hidden = dml_wanted && dml_missing && from_python;
  out.push_back(make_finding(
      "ort_two_packages", hidden ? Severity::critical : Severity::warning, hidden ? 85 : 60,
      hidden
          ? fmt::format("The DirectML provider is missing: both {} and {} are installed", plain, gpu.front())
          : fmt::format("{} is installed next to {}: they share one `onnxruntime` module", plain,
                        fmt::join(gpu, ", ")),
      fmt::format("{} has {}; the runtime loaded ({}) offers: {}", i->python,
                  fmt::join(i->python_packages, ", "), i->library, fmt::join(i->providers, ", ")),
      "Every onnxruntime wheel installs the same `onnxruntime` package folder; with two installed, the files "
      "of "
      "the one installed last overwrite the other's, so the CPU-only `onnxruntime` (often pulled in by "
      "another "
      "package's requirement) hides the DirectML or CUDA provider, and uninstalling one breaks the other.",
      fmt::format(
          "pip uninstall -y onnxruntime {}, then pip install {} alone (and reinstall it last when another "
          "package pulls onnxruntime back in)",
          gpu.front().substr(0, gpu.front().find(' ')), gpu.front().substr(0, gpu.front().find(' '))),
      kRefInstall));
}

void rule_ort_directml_dll_old(const Ctx& c, std::vector<Finding>& out) {
  const OnnxRuntimeInfo* i = info(c);
  if (!i || !c.env.windows || !i->directml_library.empty()) return;
  if (std::find(i->providers.begin(), i->providers.end(), "DmlExecutionProvider") == i->providers.end())
    return;
  // A copy the Windows probes listed is judged by windows.directml_too_old_for_onnxruntime
  // (rules_windows.cpp: per ONNX Runtime release, kb/arch.json directml_versions); this rule
  // covers the runtime the engine loaded from elsewhere (--onnxruntime PATH).
  for (const auto& f : c.env.windows->onnxruntime) {
    if (f.path == i->library) return;
  }
  const WindowsFile* system = nullptr;
  for (const auto& f : c.env.windows->directml) {
    if (f.where == "System32") system = &f;
  }
  if (!system || system->version.empty()) return;
  const auto v = version_number(system->version);
  if (!v || *v >= kDirectMlOldestUsable) return;
  out.push_back(make_finding(
      "ort_directml_dll_old", Severity::critical, 80,
      fmt::format("ONNX Runtime's DirectML provider would load the in-box DirectML.dll {} (System32)",
                  system->version),
      fmt::format("no DirectML.dll beside {}; {} is version {}", i->library, system->path, system->version),
      "Windows' in-box DirectML.dll is at most 1.8 (Windows 11 22H2) and often 1.1 (Windows 10); ONNX "
      "Runtime's "
      "DirectML provider is built against a newer redistributable DirectML that it ships beside "
      "onnxruntime.dll. "
      "When that copy is missing (an app that copied only onnxruntime.dll), the old system one is loaded and "
      "the "
      "provider fails to create its device or lacks operators.",
      "Put the DirectML.dll that came with your onnxruntime-directml / Microsoft.ML.OnnxRuntime.DirectML "
      "package "
      "next to onnxruntime.dll (a .NET app: build for x64, not AnyCPU, so it is copied), or install the "
      "Microsoft.AI.DirectML redistributable",
      kRefDmlVersions));
}

void rule_ort_no_gpu_provider(const Ctx& c, std::vector<Finding>& out) {
  const OnnxRuntimeInfo* i = info(c);
  if (!i || i->version.empty()) return;
  // A GPU provider that is listed but could not create a session.
  std::vector<std::string> refused;
  for (const auto& w : i->warnings) {
    if (w.find("could not create a session") != std::string::npos) refused.push_back(w);
  }
  const bool gpu_hw =
      !c.env.gpus.empty() ||
      (c.env.windows && std::any_of(c.env.windows->adapters.begin(), c.env.windows->adapters.end(),
                                    [](const WindowsAdapter& a) { return !a.software; }));
  const bool measured_gpu = !i->device.empty() && i->device != "cpu";
  if (measured_gpu || !gpu_hw) return;
  const bool windows = c.platform.os == "windows";
  const std::string gpus = [&] {
    std::vector<std::string> names;
    for (const auto& g : c.env.gpus) {
      if (!g.name.empty()) names.push_back(g.name);
    }
    if (c.env.windows) {
      for (const auto& a : c.env.windows->adapters) {
        if (!a.software && !a.name.empty()) names.push_back(a.name);
      }
    }
    return list_some(names, 3);
  }();
  out.push_back(make_finding(
      "ort_no_gpu_provider", refused.empty() ? Severity::info : Severity::warning, refused.empty() ? 25 : 50,
      refused.empty()
          ? fmt::format("ONNX Runtime {} has no GPU provider: models run on the CPU", i->version)
          : fmt::format("ONNX Runtime {}'s GPU provider cannot be used: models run on the CPU", i->version),
      fmt::format("{} ({}) offers {}; GPUs here: {}{}", i->library, i->found_by,
                  fmt::join(i->providers, ", "), gpus, refused.empty() ? "" : "; " + list_some(refused, 2)),
      "The CPU-only onnxruntime package (and runtimes built without a GPU provider) run every node on the "
      "CPU; "
      "a listed provider whose libraries (CUDA, cuDNN) are missing fails to load and leaves the CPU provider "
      "too.",
      windows
          ? "pip uninstall -y onnxruntime, then pip install onnxruntime-directml (any DirectX 12 GPU) or "
            "onnxruntime-gpu (NVIDIA, with CUDA 12 and cuDNN 9)"
          : "pip uninstall -y onnxruntime, then pip install onnxruntime-gpu (NVIDIA: CUDA 12 and cuDNN 9 on "
            "the "
            "library path) or AMD's onnxruntime-rocm / -migraphx wheel; accel-doctor ort --device cuda shows "
            "the provider's load error",
      kRefInstall));
}

void rule_ort_fp16_faster(const Ctx& c, std::vector<Finding>& out) {
  std::map<std::string, const Result*> fp32;
  for (const Result* r : ort_rows(c)) {
    if (r->dtype == "fp32" && r->status == Status::ok && r->timing) fp32[without_dtype(r->key, "fp32")] = r;
  }
  std::vector<std::string> faster;
  double best = 0;
  for (const Result* r : ort_rows(c)) {
    if (r->dtype != "fp16" || r->status != Status::ok || !r->timing || r->timing->median_us <= 0) continue;
    if (r->device == "cpu" || (r->profile && r->profile->where == Where::cpu_fallback)) continue;
    const auto it = fp32.find(without_dtype(r->key, "fp16"));
    if (it == fp32.end() || (it->second->profile && it->second->profile->where == Where::cpu_fallback))
      continue;
    const double ratio = it->second->timing->median_us / r->timing->median_us;
    if (ratio < 1.8) continue;
    faster.push_back(fmt::format("{} {}", without_dtype(r->key, "fp16"), times(ratio)));
    best = std::max(best, ratio);
  }
  if (faster.empty()) return;
  out.push_back(make_finding(
      "ort_fp16_faster", Severity::info, 20,
      fmt::format("fp16 is up to {} faster than fp32 on this device ({} rows)", times(best), faster.size()),
      list_some(faster, 6),
      "The GPU has fast half-precision math (and half the bytes to move); a model kept in fp32 leaves that "
      "unused.",
      "Convert the model to fp16 (onnxconverter-common: float16.convert_float_to_float16(model, "
      "keep_io_types=True)) "
      "and check its accuracy; the rows listed are where it pays",
      kRefFloat16));
}

}  // namespace

std::vector<RuleEntry> onnxruntime_rules() {
  return {
      {"ort_cpu_fallback",
       "ONNX Runtime rows with nodes on the CPU provider (profile), with their time and Memcpy nodes",
       rule_ort_cpu_fallback},
      {"ort_dtype_unsupported",
       "fp16 rows off the GPU provider (CPU or unavailable) whose fp32 rows ran on it",
       rule_ort_dtype_unsupported},
      {"ort_opset_unsupported", "rows with opset > 17 off the GPU provider while other rows ran on it",
       rule_ort_opset_unsupported},
      {"ort_igpu_measured",
       "the DirectML device measured is integrated while a discrete one has a DirectML device",
       rule_ort_igpu_measured},
      {"ort_two_packages",
       "onnxruntime installed next to onnxruntime-directml / -gpu / -openvino (critical when the "
       "DirectML provider is then missing)",
       rule_ort_two_packages},
      {"ort_directml_dll_old",
       "DirectML provider without DirectML.dll beside the runtime, System32's older than 1.9",
       rule_ort_directml_dll_old},
      {"ort_no_gpu_provider", "the runtime measured on the CPU although the machine has a GPU",
       rule_ort_no_gpu_provider},
      {"ort_fp16_faster", "fp16 rows on the GPU provider at least 1.8x faster than their fp32 rows",
       rule_ort_fp16_faster},
  };
}

}  // namespace accel::rules
