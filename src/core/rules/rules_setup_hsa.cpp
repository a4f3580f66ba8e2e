// Set-up rules: HSA_OVERRIDE_GFX_VERSION, one function per finding. Thresholds and shared helpers:
// rules_setup_detail.hpp.
#include "core/evidence_views.hpp"
#include "core/rules/rules_setup_detail.hpp"

namespace accel::rules::setup {

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
    a.node = kfd_node(g);
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

/// What the HSA findings share about the run: the AMD GPUs, whether this
/// ROCm reads per-GPU overrides, and whether the GPUs want different ones.
struct HsaRun {
  std::vector<AmdGpu> gpus;
  bool per_device_ok = false;  ///< ROCm >= 6.2 reads HSA_OVERRIDE_GFX_VERSION_<node>
  bool mixed = false;          ///< the GPUs want different overrides (none counts as one)
};

/// One AMD GPU with kb/arch.json facts, as the per-GPU findings read it.
struct HsaGpu {
  const AmdGpu& g;
  const GfxArch& a;
  std::string own;       ///< its own version ("10.3.0")
  std::string value;     ///< the override in effect ("" when none)
  std::string var_name;  ///< the variable that sets it
  std::string who;       ///< "AMD Radeon RX 6600 (gfx1032, RDNA2)"
  bool native = false;   ///< supported natively, or in this build
};

HsaGpu hsa_gpu(const AmdGpu& g) {
  const GfxArch& a = *g.facts;
  return HsaGpu{g,
                a,
                gfx_version_of(g.target),
                g.var ? g.var->value : "",
                g.var ? g.var->name : "HSA_OVERRIDE_GFX_VERSION",
                fmt::format("{} ({}, {})", g.label, g.target, a.family),
                a.support == "native" || g.in_build};
}

// HIP on Windows does not go through the HSA runtime: the variable is
// ignored (AMD in ROCm/TheRock#1719; llama.cpp PR #21331).
void hsa_ignored_on_windows(const Ctx& c, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os != "windows" || !g.var) return;
  out.push_back(
      make_finding("hsa_override.ignored_on_windows", native ? Severity::info : Severity::warning,
                   native ? 8 : 50, fmt::format("{}={} has no effect on Windows ({})", var_name, value, who),
                   fmt::format("{} is set, but HIP on Windows does not read it", var_name),
                   "Advice written for Linux ROCm does not carry over: the GPU keeps its real target.",
                   unset_var_advice(c.platform, var_name), kRefHsaWindows));
}

// The targets arch_not_in_build leaves to this rule (an override fixes them
// on Linux); the others it reports on every OS.
void hsa_windows_no_build(const Ctx& c, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os != "windows" || native || (a.support != "override" && a.support != "override_risky"))
    return;
  out.push_back(make_finding(
      "hsa_override.windows_no_build", Severity::critical, 99,
      fmt::format("{} is not in this build, and Windows has no HSA_OVERRIDE_GFX_VERSION", who),
      fmt::format("{} is not in this build's arch list ({}); on Linux HSA_OVERRIDE_GFX_VERSION={} would "
                  "map it onto a supported target, on Windows nothing can",
                  g.target, list_some(c.env.torch.arch_list, 8), a.override_value),
      "Without code for its target the GPU cannot run torch's kernels: errors such as "
      "hipErrorNoBinaryForGpu / \"invalid device function\", or the GPU is ignored.",
      fmt::format("Install a torch/ROCm build that includes {} (TheRock nightly wheels for the gfx103X / "
                  "gfx110X families, or a self-build with PYTORCH_ROCM_ARCH={}), check with python -c "
                  "\"import torch; print(torch.cuda.get_arch_list())\"; or run under Linux, where the "
                  "override works; or use torch-directml",
                  g.target, g.target),
      kRefHsaWindows));
}

// An override on a natively supported GPU: harmless when it names the GPU's
// own version or the ISA-compatible one kb/arch.json names, else critical.
void hsa_unnecessary(const Ctx& c, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os == "windows" || !g.var || !native) return;
  if (value == own || (!a.override_value.empty() && value == a.override_value)) {
    out.push_back(make_finding(
        "hsa_override.unnecessary", Severity::info, 8,
        fmt::format("{}={} is unnecessary on {}", var_name, value, who),
        fmt::format("{} is supported natively by this build; the override names its own version {}", g.target,
                    own),
        "Harmless today, but it hides the real target from every ROCm library and breaks the day a "
        "second, "
        "different GPU is added.",
        unset_var_advice(c.platform, var_name), kRefRocmEnv));
  } else {
    out.push_back(make_finding(
        "hsa_override.unnecessary", Severity::critical, 93,
        fmt::format("{}={} overrides a natively supported {}", var_name, value, who),
        fmt::format("{} (version {}) is supported natively{}, but {} makes the runtime treat it as {}",
                    g.target, own, g.in_build ? " and is in this build's arch list" : "", var_name, value),
        "The runtime then loads code objects built for another ISA: kernels crash, hang or compute "
        "garbage.",
        unset_var_advice(c.platform, var_name), kRefRocmEnv));
  }
}

// A GPU that needs an override (kb/arch.json support "override") and has none.
void hsa_missing(const Ctx& c, const HsaRun& run, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os == "windows" || native || a.support != "override" || g.var) return;
  std::string fix;
  if (run.mixed && run.per_device_ok && g.node) {
    fix = fmt::format(
        "Set the per-GPU variable so the other GPU keeps its own target: {}",
        set_var_advice(c.platform, fmt::format("HSA_OVERRIDE_GFX_VERSION_{}", *g.node), a.override_value));
  } else if (run.mixed) {
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
}

// An override set to the wrong version, or on a GPU no override can help.
void hsa_wrong(const Ctx& c, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os == "windows" || native || !g.var) return;
  if (a.support == "override" && value != a.override_value) {
    out.push_back(make_finding(
        "hsa_override.wrong", Severity::critical, 99,
        fmt::format("{}={} is wrong for {}: use {}", var_name, value, who, a.override_value),
        fmt::format("{} is ISA-compatible with version {}, not {}; {}", g.target, a.override_value, value,
                    a.note),
        "A wrong override loads code for an incompatible ISA: kernels crash with illegal instructions or "
        "memory faults, or hang.",
        set_var_advice(c.platform, var_name, a.override_value), kRefRocmEnv));
  } else if (a.support == "none") {
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

// A GPU whose override is experimental (kb/arch.json support "override_risky").
void hsa_risky(const Ctx& c, const HsaGpu& h, std::vector<Finding>& out) {
  const auto& [g, a, own, value, var_name, who, native] = h;
  if (c.platform.os == "windows" || native || a.support != "override_risky") return;
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
      g.var ? "Keep it only if `accel-doctor ops` passes; otherwise use the CPU or a supported discrete GPU"
            : fmt::format("Experimental: {}; verify with `accel-doctor ops`",
                          set_var_advice(c.platform, "HSA_OVERRIDE_GFX_VERSION", a.override_value)),
      kRefRocmEnv));
}

// One global override for GPUs that need different ones.
void hsa_per_device(const Ctx& c, const HsaRun& run, std::vector<Finding>& out) {
  if (c.platform.os == "windows") return;  // handled per GPU
  const EnvVar* global = c.env_var("HSA_OVERRIDE_GFX_VERSION");
  if (!run.mixed || !global) return;
  std::vector<std::string> parts;
  for (const auto& g : run.gpus) {
    if (g.facts) parts.push_back(fmt::format("{} {}", g.target, g.facts->support));
  }
  std::string fix;
  if (run.per_device_ok) {
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

void rule_hsa_override(const Ctx& c, std::vector<Finding>& out) {
  if (c.platform.backend != "rocm") return;
  HsaRun run;
  run.gpus = amd_gpus(c);
  if (run.gpus.empty()) return;
  const auto rv = version_number(rocm_version(c));
  run.per_device_ok = rv && *rv >= 602;
  // Which GPUs want which override (none = "").
  std::set<std::string> wanted;
  for (const auto& g : run.gpus) {
    if (!g.facts) continue;
    wanted.insert(g.facts->support == "override" && !g.in_build ? g.facts->override_value : std::string());
  }
  run.mixed = wanted.size() > 1;
  // Per GPU at most one of the Linux findings applies, in this order.
  for (const auto& g : run.gpus) {
    if (!g.facts) continue;
    const HsaGpu h = hsa_gpu(g);
    hsa_ignored_on_windows(c, h, out);
    hsa_windows_no_build(c, h, out);
    hsa_unnecessary(c, h, out);
    hsa_missing(c, run, h, out);
    hsa_wrong(c, h, out);
    hsa_risky(c, h, out);
  }
  hsa_per_device(c, run, out);
}

}  // namespace accel::rules::setup
