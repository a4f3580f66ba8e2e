// Set-up rules: is an accelerator used at all, and if not, why (CPU-only
// torch, driver, device permissions, devices hidden by a variable); the
// device's architecture against the build; HSA_OVERRIDE_GFX_VERSION; an
// integrated GPU measured while a discrete one is in the machine.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/rules/context.hpp"

namespace accel::rules {

namespace {

constexpr const char* kRefLocally = "https://pytorch.org/get-started/locally/";
constexpr const char* kRefHsaWindows = "https://github.com/ROCm/TheRock/issues/1719";
constexpr const char* kRefRocmEnv = "https://rocm.docs.amd.com/en/latest/reference/env-variables.html";
constexpr const char* kRefCudaEnv =
    "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars";
constexpr const char* kRefRocmPerms =
    "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/install/prerequisites.html";

std::string vendor_name(std::string_view v) {
  if (v == "nvidia") return "NVIDIA";
  if (v == "amd") return "AMD";
  if (v == "intel") return "Intel";
  if (v == "apple") return "Apple";
  return std::string(v);
}

std::string gpu_label(const GpuHardware& g) {
  std::string name =
      g.name.empty() ? fmt::format("{} GPU {}:{}", vendor_name(g.vendor), g.vendor_id, g.device_id) : g.name;
  if (!g.gfx_target.empty()) name += " (" + g.gfx_target + ")";
  if (!g.pci_address.empty()) name += " at " + g.pci_address;
  return name;
}

bool is_gpu_vendor(std::string_view v) { return v == "nvidia" || v == "amd" || v == "intel"; }

std::vector<const DeviceInfo*> accelerators(const Environment& env) {
  std::vector<const DeviceInfo*> out;
  for (const auto& d : env.devices) {
    if (lower(d.type) != "cpu") out.push_back(&d);
  }
  return out;
}

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

// ---------------------------------------------------------------- no engine

/// The front end ran without a torch engine (engine_api/process_engine.hpp):
/// the machine was read, nothing was measured.
void rule_no_engine(const Ctx& c, std::vector<Finding>& out) {
  const auto it = c.env.torch.not_collected.find("engine");
  if (it == c.env.torch.not_collected.end() || !c.env.torch.version.empty()) return;
  const std::string& why = it->second;
  out.push_back(make_finding(
      "no_engine", Severity::warning, 90, "Nothing was measured: accel-doctor found no torch engine",
      why.substr(0, why.find('\n')),
      "accel-doctor reads the machine itself, but it measures (operator checks, benchmarks, LLM and "
      "training workloads) and asks torch about its build and devices through its torch engine, "
      "accel-doctor-torch. Without one, whether the GPU does the work is not proven either way.",
      "Build the engine beside accel-doctor: `make doctor` (or `cmake --build build --target "
      "accel-doctor-torch`), or point at one with --engine PATH",
      ""));
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

void rule_no_device(const Ctx& c, std::vector<Finding>& out) {
  if (!accelerators(c.env).empty()) return;
  const std::string backend = c.env.torch.backend;
  if (backend != "cuda" && backend != "rocm" && backend != "xpu") return;
  const std::string vendor = backend == "cuda" ? "nvidia" : backend == "rocm" ? "amd" : "intel";
  const auto gpus = c.gpus_of_vendor(vendor);
  bool explained = false;

  // 1. Hidden by a visibility variable.
  for (const auto& vis : kVisibilityVars) {
    if (vis.vendor != vendor) continue;
    const EnvVar* v = c.env_var(vis.name);
    if (!v) continue;
    const std::string why = hides_all(v->name, v->value, gpus.size());
    if (why.empty()) continue;
    explained = true;
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

  // 2. Device nodes this user may not open.
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
  if (!denied.empty()) {
    explained = true;
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

  // 3. Driver missing or failing.
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
  if (!problems.empty()) {
    explained = true;
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

  // 4. Nothing explains it.
  if (!explained) {
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
        gpus.empty()
            ? "If this is a container or VM, pass the GPU through (docker run --gpus all, or "
              "--device=/dev/kfd --device=/dev/dri for ROCm); on a laptop check that the discrete GPU "
              "is not switched off in firmware"
            : "Run `accel-doctor explain` on the error torch prints when you call "
              "torch.cuda.init(), and check `nvidia-smi` / `rocminfo`",
        kRefLocally));
  }
}

// ---------------------------------------------------------------- architecture

/// "gfx1030" -> "10.3.0", "gfx90a" -> "9.0.10"; "" when not a gfx name.
std::string gfx_version_of(std::string_view target) {
  if (!starts_with(target, "gfx")) return "";
  const std::string d(target.substr(3));
  if (d.size() < 3) return "";
  auto digit = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
  };
  const std::string major = d.substr(0, d.size() - 2);
  const int minor = digit(d[d.size() - 2]), step = digit(d[d.size() - 1]);
  if (minor < 0 || step < 0 || major.empty()) return "";
  return fmt::format("{}.{}.{}", major, minor, step);
}

void rule_arch_not_in_build(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& d : c.env.devices) {
    if (!d.arch_in_build.has_value() || *d.arch_in_build) continue;
    std::string fix, why;
    if (starts_with(d.arch, "gfx")) {
      // Targets an override can fix are the HSA override rule's business.
      if (c.options.kb) {
        const auto a = c.options.kb->gfx_arch(d.arch);
        if (a && (a->support == "override" || a->support == "override_risky")) continue;
        if (a && !a->note.empty()) fix = a->note;
      }
      if (fix.empty()) {
        fix = fmt::format(
            "Use a torch build that includes {0} (check torch.cuda.get_arch_list()), or build torch with "
            "PYTORCH_ROCM_ARCH={0}",
            d.arch);
      }
      why =
          "torch has no GPU code for this target: operators fail with hipErrorNoBinaryForGpu / \"invalid "
          "device function\", or the device is skipped.";
    } else {
      std::string wheel;
      if (c.options.kb) {
        if (const auto a = c.options.kb->sm_arch(d.arch)) {
          wheel = a->wheel;
          if (!a->min_cuda.empty()) wheel += fmt::format(" (the architecture needs CUDA >= {})", a->min_cuda);
        }
      }
      fix = wheel.empty() ? "Install a torch build whose arch list includes " + d.arch + ": " +
                                torch_install_advice(c, "nvidia")
                          : "Install " + wheel;
      why =
          "torch has no kernels (and no PTX to compile) for this GPU: operators fail with \"no kernel image "
          "is available for execution on the device\".";
    }
    std::string arch_list = list_some(c.env.torch.arch_list, 12);
    out.push_back(
        make_finding("arch_not_in_build", Severity::critical, 94,
                     fmt::format("{} ({}, {}) is not in this torch build's architecture list",
                                 d.name.empty() ? d.id : d.name, d.arch, d.id),
                     fmt::format("device arch {}; torch {} was built for: {}", d.arch, c.env.torch.version,
                                 arch_list.empty() ? "(list not known)" : arch_list),
                     why, fix, kRefLocally));
  }
}

// ---------------------------------------------------------------- HSA_OVERRIDE_GFX_VERSION

struct AmdGpu {
  std::string target;  ///< the real gfx target (KFD), else what torch reports
  std::string label;
  std::optional<int> node;  ///< KFD node id
  std::optional<GfxArch> facts;
  bool in_build = false;        ///< the build has native code for the real target
  const EnvVar* var = nullptr;  ///< the override in effect for it
  bool integrated = false;
};

std::vector<AmdGpu> amd_gpus(const Ctx& c) {
  std::vector<AmdGpu> out;
  const auto& list = c.env.torch.arch_list;
  auto in_list = [&](const std::string& t) { return std::find(list.begin(), list.end(), t) != list.end(); };
  for (const auto& g : c.env.gpus) {
    if (g.vendor != "amd" || g.gfx_target.empty()) continue;
    AmdGpu a;
    a.target = g.gfx_target;
    a.label = g.name.empty() ? g.gfx_target : g.name;
    a.integrated = g.integrated.value_or(false);
    if (g.vendor_info.contains("kfd") && g.vendor_info["kfd"].contains("node") &&
        g.vendor_info["kfd"]["node"].is_number_integer()) {
      a.node = g.vendor_info["kfd"]["node"].get<int>();
    }
    out.push_back(std::move(a));
  }
  if (out.empty()) {
    for (const auto& d : c.env.devices) {
      if (d.vendor != "amd" || !starts_with(d.arch, "gfx")) continue;
      AmdGpu a;
      a.target = d.arch;
      a.label = d.name.empty() ? d.id : d.name;
      a.integrated = d.integrated.value_or(false);
      out.push_back(std::move(a));
    }
  }
  // A visibility variable hides GPUs on purpose (an iGPU next to the dGPU):
  // advise only on the AMD GPUs torch can see, matched by gfx target.
  const bool visibility_set = c.env_var("HIP_VISIBLE_DEVICES") || c.env_var("ROCR_VISIBLE_DEVICES") ||
                              c.env_var("CUDA_VISIBLE_DEVICES");
  std::set<std::string> visible;
  for (const auto& d : c.env.devices) {
    if (d.vendor == "amd" && starts_with(d.arch, "gfx")) visible.insert(d.arch);
  }
  if (visibility_set && !visible.empty()) {
    out.erase(
        std::remove_if(out.begin(), out.end(), [&](const AmdGpu& a) { return !visible.count(a.target); }),
        out.end());
  }
  for (auto& a : out) {
    a.in_build = in_list(a.target);
    if (c.options.kb) a.facts = c.options.kb->gfx_arch(a.target);
    if (a.node) a.var = c.env_var(fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *a.node));
    if (!a.var) a.var = c.env_var("HSA_OVERRIDE_GFX_VERSION");
  }
  return out;
}

std::string rocm_version(const Ctx& c) {
  return !c.env.driver.rocm_version.empty() ? c.env.driver.rocm_version : c.env.torch.hip_version;
}

void rule_hsa_override(const Ctx& c, std::vector<Finding>& out) {
  if (c.platform.backend != "rocm") return;
  auto gpus = amd_gpus(c);
  if (gpus.empty()) return;
  const auto rv = version_number(rocm_version(c));
  const bool per_device_ok = rv && *rv >= 602;
  // Which GPUs want which override (none = "").
  std::set<std::string> wanted;
  for (const auto& g : gpus) {
    if (!g.facts) continue;
    wanted.insert(g.facts->support == "override" && !g.in_build ? g.facts->override_value : std::string());
  }
  const bool mixed = wanted.size() > 1;

  for (const auto& g : gpus) {
    if (!g.facts) continue;
    const GfxArch& a = *g.facts;
    const std::string own = gfx_version_of(g.target);
    const std::string value = g.var ? g.var->value : "";
    const std::string var_name = g.var ? g.var->name : "HSA_OVERRIDE_GFX_VERSION";
    const std::string who = fmt::format("{} ({}, {})", g.label, g.target, a.family);
    const bool native = a.support == "native" || g.in_build;

    if (c.platform.os == "windows") {
      // HIP on Windows does not go through the HSA runtime: the variable is
      // ignored (AMD in ROCm/TheRock#1719; llama.cpp PR #21331).
      if (g.var) {
        out.push_back(make_finding(
            "hsa_override.ignored_on_windows", native ? Severity::info : Severity::warning, native ? 8 : 50,
            fmt::format("{}={} has no effect on Windows ({})", var_name, value, who),
            fmt::format("{} is set, but HIP on Windows does not read it", var_name),
            "Advice written for Linux ROCm does not carry over: the GPU keeps its real target.",
            unset_var_advice(c.platform, var_name), kRefHsaWindows));
      }
      // The targets arch_not_in_build leaves to this rule (an override fixes
      // them on Linux); the others it reports on every OS.
      if (!native && (a.support == "override" || a.support == "override_risky")) {
        out.push_back(make_finding(
            "hsa_override.windows_no_build", Severity::critical, 99,
            fmt::format("{} is not in this build, and Windows has no HSA_OVERRIDE_GFX_VERSION", who),
            fmt::format(
                "{} is not in this build's arch list ({}); on Linux HSA_OVERRIDE_GFX_VERSION={} would "
                "map it onto a supported target, on Windows nothing can",
                g.target, list_some(c.env.torch.arch_list, 8), a.override_value),
            "Without code for its target the GPU cannot run torch's kernels: errors such as "
            "hipErrorNoBinaryForGpu / \"invalid device function\", or the GPU is ignored.",
            fmt::format(
                "Install a torch/ROCm build that includes {} (TheRock nightly wheels for the gfx103X / "
                "gfx110X families, or a self-build with PYTORCH_ROCM_ARCH={}), check with python -c "
                "\"import torch; print(torch.cuda.get_arch_list())\"; or run under Linux, where the "
                "override works; or use torch-directml",
                g.target, g.target),
            kRefHsaWindows));
      }
      continue;
    }

    if (g.var && native) {
      // Its own version, or the ISA-compatible one kb/arch.json names: harmless.
      if (value == own || (!a.override_value.empty() && value == a.override_value)) {
        out.push_back(make_finding(
            "hsa_override.unnecessary", Severity::info, 8,
            fmt::format("{}={} is unnecessary on {}", var_name, value, who),
            fmt::format("{} is supported natively by this build; the override names its own version {}",
                        g.target, own),
            "Harmless today, but it hides the real target from every ROCm library and breaks the day a "
            "second, "
            "different GPU is added.",
            unset_var_advice(c.platform, var_name), kRefRocmEnv));
      } else {
        out.push_back(make_finding(
            "hsa_override.unnecessary", Severity::critical, 93,
            fmt::format("{}={} overrides a natively supported {}", var_name, value, who),
            fmt::format("{} (version {}) is supported natively{}, but {} makes the runtime treat it as {}",
                        g.target, own, g.in_build ? " and is in this build's arch list" : "", var_name,
                        value),
            "The runtime then loads code objects built for another ISA: kernels crash, hang or compute "
            "garbage.",
            unset_var_advice(c.platform, var_name), kRefRocmEnv));
      }
      continue;
    }
    if (native) continue;

    if (a.support == "override") {
      if (!g.var) {
        std::string fix;
        if (mixed && per_device_ok && g.node) {
          fix = fmt::format("Set the per-GPU variable so the other GPU keeps its own target: {}",
                            set_var_advice(c.platform, fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *g.node),
                                           a.override_value));
        } else if (mixed) {
          fix = fmt::format(
              "Set {} and hide the other AMD GPU with HIP_VISIBLE_DEVICES (ROCm {} has no per-GPU override; "
              "ROCm >= 6.2 reads HSA_OVERRIDE_GFX_VERSION_<node>): {}",
              "HSA_OVERRIDE_GFX_VERSION=" + a.override_value, rocm_version(c).empty() ? "?" : rocm_version(c),
              set_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION", a.override_value));
        } else {
          fix = set_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION", a.override_value);
        }
        out.push_back(make_finding(
            "hsa_override.missing", Severity::critical, 99,
            fmt::format("{} needs HSA_OVERRIDE_GFX_VERSION={}", who, a.override_value),
            fmt::format("{} is not in this build's arch list ({}) and no override is set; {}", g.target,
                        list_some(c.env.torch.arch_list, 8), a.note),
            "The official ROCm builds ship no code for this target; without the override torch fails with "
            "hipErrorNoBinaryForGpu or \"invalid device function\", or ignores the GPU.",
            fix, kRefRocmEnv));
      } else if (value != a.override_value) {
        out.push_back(make_finding(
            "hsa_override.wrong", Severity::critical, 99,
            fmt::format("{}={} is wrong for {}: use {}", var_name, value, who, a.override_value),
            fmt::format("{} is ISA-compatible with version {}, not {}; {}", g.target, a.override_value, value,
                        a.note),
            "A wrong override loads code for an incompatible ISA: kernels crash with illegal instructions or "
            "memory faults, or hang.",
            set_var_advice(c.platform, var_name, a.override_value), kRefRocmEnv));
      }
      continue;
    }
    if (a.support == "override_risky") {
      out.push_back(make_finding(
          "hsa_override.risky", Severity::warning, 55,
          g.var ? fmt::format("{}={} on {} is experimental", var_name, value, who)
                : fmt::format("{} is not supported by this ROCm build", who),
          fmt::format("{}; {}",
                      g.var ? "the override is set"
                            : "no override is set, and the target is not in the "
                              "build's arch list",
                      a.note),
          "Some operators work, others hang or fault; results need checking op by op (accel-doctor ops).",
          g.var
              ? "Keep it only if `accel-doctor ops` passes; otherwise use the CPU or a supported discrete GPU"
              : fmt::format("Experimental: {}; verify with `accel-doctor ops`",
                            set_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION", a.override_value)),
          kRefRocmEnv));
      continue;
    }
    if (a.support == "none" && g.var) {
      out.push_back(make_finding(
          "hsa_override.wrong", Severity::critical, 99,
          fmt::format("{}={} cannot work on {}", var_name, value, who),
          a.note.empty() ? fmt::format("no supported target is ISA-compatible with {}", g.target)
                         : fmt::format("{}: {}", g.target, a.note),
          "The override makes the runtime load code for another ISA: crashes or wrong results.",
          fmt::format(
              "{}; then use a torch build that includes {} (check torch.cuda.get_arch_list()): a source "
              "build with PYTORCH_ROCM_ARCH={} or a community build for it",
              unset_var_advice(c.platform, var_name), g.target, g.target),
          kRefRocmEnv));
    }
  }

  if (c.platform.os == "windows") return;  // handled per GPU above
  // One global override for GPUs that need different ones.
  const EnvVar* global = c.env_var("HSA_OVERRIDE_GFX_VERSION");
  if (mixed && global) {
    std::vector<std::string> parts;
    for (const auto& g : gpus) {
      if (g.facts) parts.push_back(fmt::format("{} {}", g.target, g.facts->support));
    }
    std::string fix;
    if (per_device_ok) {
      fix =
          "Replace it with per-GPU variables HSA_OVERRIDE_GFX_VERSION_<node> (the KFD node id from rocminfo; "
          "the CPU is node 0) for the GPU that needs it";
    } else {
      fix =
          "Hide the GPU that must not be overridden with HIP_VISIBLE_DEVICES (per-GPU overrides need ROCm >= "
          "6.2)";
    }
    out.push_back(make_finding(
        "hsa_override.per_device", Severity::warning, 70,
        "One HSA_OVERRIDE_GFX_VERSION applies to AMD GPUs that need different targets",
        fmt::format("HSA_OVERRIDE_GFX_VERSION={} applies to every GPU: {}; ROCm {}", global->value,
                    list_some(parts), rocm_version(c).empty() ? "version unknown" : rocm_version(c)),
        "The global variable changes the target of every AMD GPU, so the one that needed no override (or "
        "another one) runs code for the wrong ISA.",
        fix, "https://github.com/ROCm/ROCT-Thunk-Interface/pull/104"));
  }
}

// ---------------------------------------------------------------- integrated GPU

void rule_integrated_selected(const Ctx& c, std::vector<Finding>& out) {
  if (c.target_is_cpu() || !c.target_device) return;
  const DeviceInfo& d = *c.target_device;
  bool integrated = d.integrated.value_or(false);
  const GpuHardware* hw = nullptr;
  for (const auto& g : c.env.gpus) {
    if (!d.pci_bus_id.empty() && lower(g.pci_address) == lower(d.pci_bus_id)) hw = &g;
  }
  if (hw && hw->integrated) integrated = *hw->integrated;
  if (!integrated && c.options.kb && starts_with(d.arch, "gfx")) {
    if (const auto a = c.options.kb->gfx_arch(d.arch); a && a->integrated && !d.integrated.has_value()) {
      integrated = true;
    }
  }
  if (!integrated) return;
  // A discrete GPU torch sees, or one present in hardware.
  const DeviceInfo* other = nullptr;
  for (const auto& o : c.env.devices) {
    if (&o != &d && lower(o.type) != "cpu" && o.integrated.has_value() && !*o.integrated) other = &o;
  }
  const GpuHardware* other_hw = nullptr;
  for (const auto& g : c.env.gpus) {
    if (g.integrated.has_value() && !*g.integrated && is_gpu_vendor(g.vendor)) other_hw = &g;
  }
  if (!other && !other_hw) return;
  std::string evidence = fmt::format("measured device {} is integrated{}", c.device_label(d.id),
                                     c.env.selection ? " (selected: " + c.env.selection->reason + ")" : "");
  std::string fix;
  if (other) {
    evidence += fmt::format("; torch also sees the discrete {}", c.device_label(other->id));
    fix = fmt::format(
        "Use the discrete GPU: torch.device(\"{0}\") in your code (accel-doctor --device {0}){1}", other->id,
        c.platform.backend == "directml"
            ? fmt::format("; with DirectML: torch_directml.device({})", other->index)
            : "");
    // On Windows every library's index of that adapter, from the one join.
    if (const std::string all = windows_index_advice(c, other->id); !all.empty()) fix = all;
  } else {
    std::vector<std::string> vars;
    for (const char* n :
         {"HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL"}) {
      if (const EnvVar* v = c.env_var(n)) vars.push_back(fmt::format("{}={}", v->name, v->value));
    }
    evidence +=
        fmt::format("; the discrete {} is in the machine but torch does not see it{}", gpu_label(*other_hw),
                    vars.empty() ? "" : " (" + list_some(vars) + " limits what torch sees)");
    fix = vars.empty()
              ? "Make the discrete GPU visible to torch (driver, and for AMD a target it supports); "
                "then select it with torch.device(\"cuda:N\")"
              : "Change " + vars.front().substr(0, vars.front().find('=')) +
                    " to list the discrete GPU (rocm-smi / nvidia-smi show the indices), or unset it";
  }
  out.push_back(make_finding("integrated_gpu_selected", Severity::warning, 80,
                             "The integrated GPU does the work while a discrete GPU is idle", evidence,
                             "An integrated GPU shares the CPU's memory bandwidth and power: it is often no "
                             "faster than the CPU, while "
                             "the discrete GPU sits idle.",
                             fix, kRefLocally));
}

}  // namespace

std::vector<RuleEntry> setup_rules() {
  return {
      {"no_engine", "no torch engine answered (torch.not_collected.engine): nothing could be measured",
       rule_no_engine},
      {"no_accelerator.cpu_only_torch",
       "torch.backend is cpu, torch sees no device, and a GPU was found without torch", rule_cpu_only_torch},
      {"no_accelerator.*",
       "a GPU build of torch sees no device: *_VISIBLE_DEVICES hides them, device nodes denied, "
       "driver missing or cuInit failed",
       rule_no_device},
      {"arch_not_in_build",
       "a device with arch_in_build false (AMD targets an override fixes are left to hsa_override)",
       rule_arch_not_in_build},
      {"hsa_override.*",
       "ROCm: HSA_OVERRIDE_GFX_VERSION missing, wrong, unnecessary or risky for the gfx target "
       "(kb/arch.json), or one global value for GPUs needing different ones",
       rule_hsa_override},
      {"integrated_gpu_selected",
       "the measured device is integrated while a discrete GPU exists (seen by torch or "
       "only in hardware)",
       rule_integrated_selected},
  };
}

}  // namespace accel::rules
