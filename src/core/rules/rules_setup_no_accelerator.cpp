// Set-up rules: no accelerator found (CPU-only torch, hidden by visibility variables, device permissions).
// Thresholds and shared helpers: rules_setup_detail.hpp.
#include "core/rules/rules_setup_detail.hpp"

namespace accel::rules::setup {

// ---------------------------------------------------------------- visibility variables

struct Visibility {
  const char* name;
  const char* vendor;  ///< whose GPUs it hides
};
constexpr Visibility kVisibilityVars[] = {
    {"CUDA_VISIBLE_DEVICES", "nvidia"}, {"NVIDIA_VISIBLE_DEVICES", "nvidia"}, {"HIP_VISIBLE_DEVICES", "amd"},
    {"ROCR_VISIBLE_DEVICES", "amd"},    {"GPU_DEVICE_ORDINAL", "amd"},        {"CUDA_VISIBLE_DEVICES", "amd"},
    {"ZE_AFFINITY_MASK", "intel"},      {"ONEAPI_DEVICE_SELECTOR", "intel"},
};

/// Why a visibility variable's value hides every GPU of `count` (0: count unknown), or "".
std::string hides_all(const std::string& name, const std::string& value, std::size_t count) {
  std::string v = value;
  v.erase(std::remove_if(v.begin(), v.end(), [](char c) { return c == ' ' || c == '"' || c == '\''; }),
          v.end());
  if (name == "ONEAPI_DEVICE_SELECTOR") {
    if (v.empty()) return "it is set but empty";
    return starts_with(lower(v), "opencl:cpu") || starts_with(lower(v), "*:cpu")
               ? "it selects only CPU devices"
               : "";
  }
  if (v.empty()) return "it is set to an empty string, which hides every GPU";
  const std::string lv = lower(v);
  if (lv == "-1" || lv == "none" || lv == "void" || lv == "nodevfiles") {
    return fmt::format("it is set to {}, which hides every GPU", value);
  }
  if (count == 0) return "";
  // Every entry a numeric index at or beyond the number of GPUs present; or,
  // for the CUDA/HIP runtimes, which stop reading the list at the first
  // invalid entry, a first entry out of range ("1,0" on one GPU hides it).
  std::size_t start = 0;
  bool all_out_of_range = true, any = false;
  const std::string first = v.substr(0, v.find(','));
  const bool first_numeric = !first.empty() && std::all_of(first.begin(), first.end(),
                                                           [](char ch) { return ch >= '0' && ch <= '9'; });
  const bool first_out_of_range = first_numeric && (first.size() > 6 || std::stoul(first) >= count);
  const bool stops_at_invalid = name == "CUDA_VISIBLE_DEVICES" || name == "HIP_VISIBLE_DEVICES";
  if (stops_at_invalid && first_out_of_range) {
    return fmt::format(
        "its first entry ({}) is not a GPU index here (the machine has {} such GPU{}, indices "
        "0-{}), and the runtime stops reading the list at the first invalid entry",
        first, count, count == 1 ? "" : "s", count - 1);
  }
  while (start <= v.size()) {
    const auto comma = v.find(',', start);
    const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) {
      any = true;
      bool numeric = std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!numeric || (item.size() <= 6 && std::stoul(item) < count)) all_out_of_range = false;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (any && all_out_of_range) {
    return fmt::format("it lists GPU index {} but the machine has {} such GPU{} (indices 0-{})", value, count,
                       count == 1 ? "" : "s", count - 1);
  }
  return "";
}

// ---------------------------------------------------------------- no accelerator

void rule_cpu_only_torch(const Ctx& c, std::vector<Finding>& out) {
  if (!accelerators(c.env).empty()) return;
  if (c.env.torch.backend != "cpu") return;
  std::vector<const GpuHardware*> discrete, integrated;
  for (const auto& g : c.env.gpus) {
    if (!is_gpu_vendor(g.vendor)) continue;
    (g.integrated.value_or(false) ? integrated : discrete).push_back(&g);
  }
  if (discrete.empty() && integrated.empty()) return;
  const bool only_integrated = discrete.empty();
  const GpuHardware& g = only_integrated ? *integrated.front() : *discrete.front();
  std::vector<std::string> names;
  for (const auto* x : only_integrated ? integrated : discrete) names.push_back(gpu_label(*x));
  std::string evidence =
      fmt::format("torch {} is built for the CPU only (backend \"cpu\"{}), and the machine has {}: {}",
                  c.env.torch.version,
                  c.env.torch.build.count("USE_CUDA") ? ", USE_CUDA=" + c.env.torch.build.at("USE_CUDA") : "",
                  only_integrated ? "an integrated GPU"
                                  : fmt::format("{} GPU{}", names.size(), names.size() == 1 ? "" : "s"),
                  list_some(names));
  if (!c.env.driver.nvidia_driver.empty() && g.vendor == "nvidia") {
    evidence += fmt::format("; NVIDIA driver {} (CUDA {}) is loaded", c.env.driver.nvidia_driver,
                            c.env.driver.cuda_driver_api.empty() ? "?" : c.env.driver.cuda_driver_api);
  }
  std::string fix =
      "Install the torch build for this GPU into the same environment: " + torch_install_advice(c, g.vendor) +
      ". Then check: python -c \"import torch; print(torch.__version__, torch.version.cuda, "
      "torch.version.hip, torch.cuda.is_available())\"";
  if (g.vendor == "amd" && !g.gfx_target.empty() && c.options.kb && c.platform.os != "windows") {
    if (const auto a = c.options.kb->gfx_arch(g.gfx_target);
        a && a->support == "override" && !a->override_value.empty()) {
      fix += fmt::format(". This {} needs HSA_OVERRIDE_GFX_VERSION={} with the ROCm wheels", g.gfx_target,
                         a->override_value);
    }
  }
  if (g.vendor == "intel" && only_integrated) {
    fix +=
        ". Integrated Intel graphics are only supported by the XPU wheels on recent Core Ultra (Xe/Arc) "
        "chips; an older iGPU is rarely faster than the CPU";
  }
  out.push_back(make_finding(
      "no_accelerator.cpu_only_torch", only_integrated ? Severity::warning : Severity::critical,
      only_integrated ? 60 : 100,
      only_integrated ? "torch is a CPU-only build; the machine has an integrated GPU it cannot use"
                      : fmt::format("The GPU is not used: torch is a CPU-only build and {} is in the machine",
                                    g.name.empty() ? vendor_name(g.vendor) + " GPU" : g.name),
      evidence,
      "A CPU-only torch never touches the GPU: everything runs on the CPU, typically 10-100x slower for "
      "training and LLMs, whatever the driver.",
      fix, kRefLocally));
}

namespace {

/// What rule_no_device looks at: the torch build's backend, its GPU
/// vendor, and that vendor's GPUs on the PCI bus.
struct NoDevice {
  std::string backend;
  std::string vendor;
  std::vector<const GpuHardware*> gpus;
};

/// 1. Hidden by a visibility variable.
bool hidden_by_env(const Ctx& c, const NoDevice& d, std::vector<Finding>& out) {
  const std::string& backend = d.backend;
  const std::string& vendor = d.vendor;
  const auto& gpus = d.gpus;
  bool found = false;
  for (const auto& vis : kVisibilityVars) {
    if (vis.vendor != vendor) continue;
    const EnvVar* v = c.env_var(vis.name);
    if (!v) continue;
    const std::string why = hides_all(v->name, v->value, gpus.size());
    if (why.empty()) continue;
    found = true;
    out.push_back(make_finding(
        "no_accelerator.hidden_by_env", Severity::critical, 98,
        fmt::format("The GPU is hidden: {}=\"{}\"", v->name, v->value),
        fmt::format("torch ({} build) sees no device; {} ({}); {} {} GPU{} found on the PCI bus", backend,
                    v->name, why, gpus.size(), vendor_name(vendor), gpus.size() == 1 ? "" : "s"),
        fmt::format(
            "{} decides which GPUs the runtime shows to the process; with this value torch finds none "
            "and silently runs on the CPU.",
            v->name),
        fmt::format(
            "Unset it or list the GPUs to use (e.g. {}=0): {}. Job schedulers (Slurm, Kubernetes) set "
            "it themselves: request a GPU from the scheduler instead of overriding it",
            v->name, unset_var_advice(c.platform, v->name)),
        vendor == "amd" ? kRefRocmEnv : kRefCudaEnv));
  }

  return found;
}

/// 2. Device nodes this user may not open.
bool device_permissions(const Ctx& c, const NoDevice& d, std::vector<Finding>& out) {
  const std::string& backend = d.backend;
  const std::string& vendor = d.vendor;
  std::vector<std::string> denied;
  std::set<std::string> groups;
  for (const auto& node : c.env.driver.device_nodes) {
    if (node.find("NO read/write access") == std::string::npos) continue;
    denied.push_back(node.substr(0, node.find(':')));
    const auto g = node.find("group ");
    if (g != std::string::npos) {
      const auto end = node.find_first_of(",)", g + 6);
      const std::string group =
          node.substr(g + 6, end == std::string::npos ? std::string::npos : end - g - 6);
      if (group != "root") groups.insert(group);
    }
  }
  if (denied.empty()) return false;
  {
    std::string group_list;
    for (const auto& g : groups) group_list += (group_list.empty() ? "" : ",") + g;
    if (group_list.empty()) group_list = vendor == "amd" ? "render,video" : "video";
    out.push_back(make_finding(
        "no_accelerator.device_permissions", Severity::critical, 97,
        "The GPU device nodes cannot be opened by this user",
        fmt::format("torch ({} build) sees no device; no read/write access to {}", backend,
                    list_some(denied)),
        "The runtime opens the GPU through these device files; without permission it reports no device and "
        "torch falls back to the CPU.",
        fmt::format(
            "Add the user to the owning group{}: sudo usermod -aG {} $USER, then log out and in again "
            "(check with `id`); in a container pass the devices (--device=/dev/kfd --device=/dev/dri "
            "--group-add video --group-add render for ROCm, --gpus all for NVIDIA)",
            groups.size() > 1 ? "s" : "", group_list),
        kRefRocmPerms));
  }

  return true;
}

/// 3. Driver missing or failing.
bool driver_missing(const Ctx& c, const NoDevice& d, std::vector<Finding>& out) {
  const std::string& backend = d.backend;
  const std::string& vendor = d.vendor;
  const auto& gpus = d.gpus;
  std::vector<std::string> problems;
  if (!c.env.driver.cuda_init_error.empty())
    problems.push_back("cuInit failed: " + c.env.driver.cuda_init_error);
  for (const auto* g : gpus) {
    if (g->driver.empty()) problems.push_back(fmt::format("no kernel driver is bound to {}", gpu_label(*g)));
  }
  if (vendor == "nvidia" && !gpus.empty() && c.env.driver.nvidia_driver.empty()) {
    const auto it = c.env.driver.not_collected.find("nvidia_driver");
    problems.push_back("no NVIDIA driver found" +
                       (it != c.env.driver.not_collected.end() ? " (" + it->second + ")" : std::string()));
  }
  if (vendor == "amd" && !gpus.empty() && c.env.driver.amdgpu_driver.empty() &&
      std::none_of(gpus.begin(), gpus.end(), [](const GpuHardware* g) { return g->driver == "amdgpu"; })) {
    problems.push_back("the amdgpu kernel driver is not loaded");
  }
  if (problems.empty()) return false;
  {
    std::string fix;
    if (vendor == "nvidia") {
      fix = c.platform.os == "windows"
                ? "Install the current NVIDIA driver (GeForce/Studio or data-center driver from nvidia.com), "
                  "reboot, and check `nvidia-smi`"
                : "Install or repair the NVIDIA driver (Debian/Ubuntu: sudo apt install nvidia-driver, or "
                  "ubuntu-drivers install; then reboot), check `nvidia-smi`; with Secure Boot the module "
                  "must be "
                  "signed (mokutil --sb-state); in a container start it with --gpus all";
    } else if (vendor == "amd") {
      fix =
          "Load the amdgpu driver (it ships with the kernel: sudo modprobe amdgpu; check dmesg | grep "
          "amdgpu), "
          "or install AMD's amdgpu-install with --usecase=rocm; then check `rocminfo` lists the GPU";
    } else {
      fix =
          "Install Intel's GPU driver and compute runtime (intel-opencl-icd, level-zero), then check "
          "`sycl-ls` or `clinfo`";
    }
    out.push_back(
        make_finding("no_accelerator.driver", Severity::critical, 96,
                     fmt::format("torch ({} build) finds no GPU: the {} driver is missing or failing",
                                 backend, vendor_name(vendor)),
                     list_some(problems, 4),
                     "Without a working kernel driver and runtime, torch reports no device and runs "
                     "everything on the CPU.",
                     fix, kRefLocally));
  }

  return true;
}

/// 4. Nothing explains it.
void unexplained(const Ctx& c, const NoDevice& d, std::vector<Finding>& out) {
  const std::string& backend = d.backend;
  const std::string& vendor = d.vendor;
  const auto& gpus = d.gpus;
  std::string evidence = fmt::format("torch {} ({} build) sees no device", c.env.torch.version, backend);
  if (gpus.empty()) {
    const auto it = c.env.driver.not_collected.find("device_nodes");
    evidence += fmt::format("; no {} GPU was found on the PCI bus either{}", vendor_name(vendor),
                            it != c.env.driver.not_collected.end() ? " (" + it->second + ")" : "");
  } else {
    std::vector<std::string> names;
    for (const auto* g : gpus) names.push_back(gpu_label(*g));
    evidence += "; hardware present: " + list_some(names);
  }
  out.push_back(make_finding(
      "no_accelerator.unexplained", Severity::critical, 95,
      fmt::format("torch ({} build) finds no GPU", backend), evidence, "Every operation runs on the CPU.",
      gpus.empty() ? "If this is a container or VM, pass the GPU through (docker run --gpus all, or "
                     "--device=/dev/kfd --device=/dev/dri for ROCm); on a laptop check that the discrete GPU "
                     "is not switched off in firmware"
                   : "Run `accel-doctor explain` on the error torch prints when you call "
                     "torch.cuda.init(), and check `nvidia-smi` / `rocminfo`",
      kRefLocally));
}

}  // namespace

void rule_no_device(const Ctx& c, std::vector<Finding>& out) {
  if (!accelerators(c.env).empty()) return;
  const std::string backend = c.env.torch.backend;
  if (backend != "cuda" && backend != "rocm" && backend != "xpu") return;
  NoDevice d;
  d.backend = backend;
  d.vendor = backend == "cuda" ? "nvidia" : backend == "rocm" ? "amd" : "intel";
  d.gpus = c.gpus_of_vendor(d.vendor);
  // Every cause found is reported, in this order.
  bool explained = hidden_by_env(c, d, out);
  explained = device_permissions(c, d, out) || explained;
  explained = driver_missing(c, d, out) || explained;
  if (!explained) unexplained(c, d, out);
}

}  // namespace accel::rules::setup
