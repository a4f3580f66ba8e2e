// The knowledge base: the machine's facts (vendor, gfx/sm, driver, OS,
// torch build) from a MachineContext, from tool output and from log lines.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "core/kb_detail.hpp"
#include "core/strings.hpp"

namespace accel {
namespace kb_detail {

namespace {

std::string cc_to_sm(std::string_view cc) {
  const auto v = parse_version(cc);
  if (v.size() < 2) return {};
  return fmt::format("sm_{}{}", v[0], v[1]);
}

std::string os_family(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 wsl(R"(\bwsl)");
  static const RE2 win(R"(\bwin(?:dows|10|11|32|64)?\b|\bwindows)");
  static const RE2 mac(
      R"(\bmac\s?os|\bos\s?x\b|\bdarwin\b|apple silicon|\bmacbook|\bmac (?:mini|studio|pro)\b|\bimac\b)");
  static const RE2 linux_re(
      R"(\blinux\b|ubuntu|debian|fedora|\barch\b|manjaro|\brhel\b|red hat|centos|rocky|alma|opensuse|\bsuse|mint|pop!?_os|gentoo|nixos|endeavour|cachyos|kubuntu|\bsteamos|\bbazzite)");
  if (RE2::PartialMatch(t, wsl)) return "wsl";
  if (RE2::PartialMatch(t, win)) return "windows";
  if (RE2::PartialMatch(t, mac)) return "macos";
  if (RE2::PartialMatch(t, linux_re)) return "linux";
  return {};
}

std::string backend_family(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 dml(R"(directml|\bdml\b|privateuse)");
  static const RE2 mps(R"(\bmps\b|\bmetal\b)");
  static const RE2 xpu(R"(\bxpu\b|\bipex\b|oneapi|intel extension)");
  static const RE2 rocm(R"(\brocm|\bhip\b|miopen|therock|\+rocm)");
  static const RE2 cuda(R"(\bcuda|cudnn|\+cu[0-9])");
  static const RE2 cpu(R"(^\s*cpu\b)");
  if (RE2::PartialMatch(t, cpu)) return "cpu";
  if (RE2::PartialMatch(t, dml)) return "directml";
  if (RE2::PartialMatch(t, rocm)) return "rocm";
  if (RE2::PartialMatch(t, xpu)) return "xpu";
  if (RE2::PartialMatch(t, mps)) return "mps";
  if (RE2::PartialMatch(t, cuda)) return "cuda";
  return {};
}

std::string vendor_of(std::string_view text) {
  const std::string t = lower(text);
  static const RE2 nvidia(R"(nvidia|geforce|\brtx\b|\bgtx\b|quadro|tesla|\bsm_[0-9])");
  static const RE2 amd(R"(radeon|instinct|\bgfx[0-9]|\brx\s?[0-9]{3,4}|\bamd gpu|\bmi[0-9]{2,3}x?\b)");
  static const RE2 intel(
      R"(intel arc|\barc\s?[ab][0-9]{3}|\bxe-|\bxe\b|iris xe|data center gpu max|\bxpu\b)");
  static const RE2 apple(R"(apple|\bm[1-4](?: pro| max| ultra)?\b)");
  if (RE2::PartialMatch(t, nvidia)) return "nvidia";
  if (RE2::PartialMatch(t, amd)) return "amd";
  if (RE2::PartialMatch(t, intel)) return "intel";
  if (RE2::PartialMatch(t, apple)) return "apple";
  return {};
}

std::string vendor_of_backend(std::string_view backend) {
  if (backend == "rocm") return "amd";
  if (backend == "cuda") return "nvidia";
  if (backend == "xpu") return "intel";
  if (backend == "mps") return "apple";
  return {};
}

std::string cuda_from_tag(std::string_view digits) {
  if (digits.size() == 2) return fmt::format("{}.{}", digits[0], digits[1]);
  if (digits.size() == 3) return fmt::format("{}.{}", digits.substr(0, 2), digits.substr(2));
  return {};
}

void add_gfx(MachineFacts& f, const std::string& g) {
  if (std::find(f.gfx_targets.begin(), f.gfx_targets.end(), g) == f.gfx_targets.end())
    f.gfx_targets.push_back(g);
}

/// Fills gfx/sm from GPU names when the text names no target.
void arch_from_names(const KbData& kb, std::string_view text, MachineFacts& f) {
  for (const auto& n : kb.gpu_names) {
    if (!RE2::PartialMatch(sp(text), *n.re)) continue;
    if (n.arch.rfind("gfx", 0) == 0) {
      if (f.gfx_targets.empty()) add_gfx(f, n.arch);
    } else if (f.sm.empty()) {
      f.sm = n.arch;
    }
  }
}

void choose_primary_gfx(const KbData& kb, MachineFacts& f) {
  f.gfx.clear();
  std::vector<std::string> candidates;
  for (const auto& g : f.gfx_targets) {
    if (g != f.reported_gfx || f.gfx_targets.size() == 1) candidates.push_back(g);
  }
  for (const auto& g : candidates) {  // a discrete GPU first
    const auto it = kb.gfx.find(g);
    if (it == kb.gfx.end() || !it->second.integrated) {
      f.gfx = g;
      break;
    }
  }
  if (f.gfx.empty() && !candidates.empty()) f.gfx = candidates.front();
  if (!f.gfx.empty()) {  // primary first
    auto& t = f.gfx_targets;
    t.erase(std::find(t.begin(), t.end(), f.gfx));
    t.insert(t.begin(), f.gfx);
  }
}

void derive_gpu_presence(const KbData& kb, std::string_view text, MachineFacts& f) {
  static const RE2 amd_igpu(
      R"((?i)(?:vega|radeon|amd|ryzen)[^,;+|]*\b(?:igpu|apu|integrated)\b|\b(?:igpu|apu|integrated)\b[^,;+|]*(?:vega|radeon|amd|ryzen)|radeon(?:\(tm\))? graphics|radeon\s*[0-9]{3}m\b|ryzen\s*[0-9]\s*(?:pro\s*)?[0-9]{4}g\b|\b80[56]0s\b|strix halo|steam deck)");
  static const RE2 bare_igpu(R"((?i)\bigpu\b|\bintegrated\b|\bapu\b)");
  static const RE2 intel(R"((?i)\bintel\b)");
  static const RE2 dgpu(
      R"((?i)\bdgpu\b|\bdiscrete\b|\brx\s*[0-9]{3,4}\b|instinct|radeon pro w|radeon vii|\bmi[0-9]{2,3}x?\b|geforce|\brtx\b|quadro|tesla)");
  bool igpu =
      RE2::PartialMatch(sp(text), amd_igpu) ||
      (f.vendor == "amd" && RE2::PartialMatch(sp(text), bare_igpu) && !RE2::PartialMatch(sp(text), intel));
  bool discrete = RE2::PartialMatch(sp(text), dgpu);
  for (const auto& g : f.gfx_targets) {
    const auto it = kb.gfx.find(g);
    if (it == kb.gfx.end()) continue;
    if (it->second.integrated) {
      igpu = true;
    } else {
      discrete = true;
    }
  }
  if (igpu) f.igpu = true;
  if (discrete) f.dgpu = true;
}

void parse_versions(std::string_view text, MachineFacts& f) {
  static const RE2 torch_v(
      R"((?i)\b(?:py)?torch\s*(?:version\s*)?[:=v]?\s*([0-9]+\.[0-9]+(?:\.[0-9]+)?[a-z0-9.+]*))");
  static const RE2 cu_tag(R"(\+cu([0-9]{2,3})\b)");
  static const RE2 cu_word(R"((?i)\bcu([0-9]{3})\b)");
  static const RE2 cuda_v(R"((?i)\bcuda\s*(?:version\s*)?:?\s*([0-9]{1,2}\.[0-9]))");
  static const RE2 rocm_tag(R"((?i)\+rocm([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  static const RE2 rocm_v(R"((?i)\brocm\s*([0-9]+\.[0-9]+(?:\.[0-9]+)?))");
  static const RE2 driver(R"((?i)driver\s*(?:version)?\s*:?\s*([0-9]{3}\.[0-9]{2,3}(?:\.[0-9]+)?))");
  static const RE2 cpu_only(R"((?i)\+cpu\b|\bcpu[- ]only\b)");
  static const RE2 python_v(R"((?i)\bpython\s*(?:version\s*)?:?\s*(3\.[0-9]{1,2})\b)");
  std::string v;
  if (f.torch_version.empty() && RE2::PartialMatch(sp(text), torch_v, &v)) f.torch_version = v;
  if (f.torch_cuda.empty()) {
    if (RE2::PartialMatch(sp(text), cu_tag, &v) || RE2::PartialMatch(sp(text), cu_word, &v)) {
      f.torch_cuda = cuda_from_tag(v);
    } else if (RE2::PartialMatch(sp(text), cuda_v, &v)) {
      f.torch_cuda = v;
    }
  }
  if (f.torch_rocm.empty() &&
      (RE2::PartialMatch(sp(text), rocm_tag, &v) || RE2::PartialMatch(sp(text), rocm_v, &v))) {
    f.torch_rocm = v;
  }
  if (f.driver.empty() && RE2::PartialMatch(sp(text), driver, &v)) f.driver = v;
  if (f.python.empty() && RE2::PartialMatch(sp(text), python_v, &v)) f.python = v;
  if (!f.cpu_only_torch) {
    if (RE2::PartialMatch(sp(text), cpu_only)) {
      f.cpu_only_torch = true;
    } else if (RE2::PartialMatch(sp(text), cu_tag, &v) || RE2::PartialMatch(sp(text), rocm_tag, &v)) {
      f.cpu_only_torch = false;
    }
  }
}

void parse_env(std::string_view env, bool env_known, MachineFacts& f) {
  static const RE2 assign(R"(\b([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|\S*))");
  re2::StringPiece input = sp(env);
  std::string name, value;
  bool override_seen = false;
  f.env_known = f.env_known || env_known;
  while (RE2::FindAndConsume(&input, assign, &name, &value)) {
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
      value = value.substr(1, value.size() - 2);
    f.env_vars.emplace(name, value);
    if (name.rfind("HSA_OVERRIDE_GFX_VERSION", 0) == 0 && !value.empty()) {
      override_seen = true;
      if (f.override_value.empty()) f.override_value = value;
    }
    if ((name == "CUDA_VISIBLE_DEVICES" || name == "HIP_VISIBLE_DEVICES" || name == "ROCR_VISIBLE_DEVICES") &&
        (value.empty() || value == "-1")) {
      f.hints.push_back("visible_devices_empty");
    }
  }
  if (override_seen) {
    f.override_set = true;
  } else if (env_known && !f.override_set) {
    f.override_set = false;
  }
}

}  // namespace

const std::string* text_fact(const MachineFacts& f, const std::string& name) {
  static const std::map<std::string, std::string MachineFacts::*> fields = {
      {"gfx", &MachineFacts::gfx},
      {"sm", &MachineFacts::sm},
      {"os", &MachineFacts::os},
      {"vendor", &MachineFacts::vendor},
      {"backend", &MachineFacts::backend},
      {"gpu", &MachineFacts::gpu},
      {"driver", &MachineFacts::driver},
      {"driver_cuda", &MachineFacts::driver_cuda},
      {"torch_cuda", &MachineFacts::torch_cuda},
      {"torch_rocm", &MachineFacts::torch_rocm},
      {"torch_version", &MachineFacts::torch_version},
      {"python", &MachineFacts::python},
      {"macos_version", &MachineFacts::macos_version}};
  const auto it = fields.find(name);
  return it == fields.end() ? nullptr : &(f.*(it->second));
}

MachineFacts parse_context(const KbData& kb, const MachineContext& ctx) {
  MachineFacts f;
  const std::string all =
      ctx.arch + " | " + ctx.gpu + " | " + ctx.backend + " | " + ctx.versions + " | " + ctx.os;
  f.gpu = trim(ctx.gpu);
  f.measured_device = ctx.measured_device.substr(0, ctx.measured_device.find(':'));
  // OS: the os field first, then anything else that names one.
  f.os = os_family(ctx.os);
  if (f.os.empty()) f.os = os_family(all);
  if (f.os == "macos") {  // "macOS 12.2.1", "macos-14.4"
    static const RE2 macos_v(
        R"((?i)\bmac\s?os(?:\s*x)?[\s_-]*(?:version\s*)?:?\s*((?:10|1[1-9]|2[0-9])(?:\.[0-9]+){0,2})\b)");
    std::string mv;
    if (RE2::PartialMatch(sp(ctx.os), macos_v, &mv)) f.macos_version = mv;
  }
  // Backend: the backend field first, then version tags (+rocm6.2, +cu121).
  f.backend = backend_family(ctx.backend);
  if (f.backend.empty()) f.backend = backend_family(ctx.versions + " " + ctx.arch);
  // gfx targets, in order of mention; "reported as gfxNNNN" is what the runtime sees.
  static const RE2 gfx_re(R"((?i)\b(gfx[0-9]{2,4}[0-9a-fx])\b)");
  static const RE2 reported(
      R"((?i)(?:reported|seen|detected|shows?|identified)\s+as\s+(gfx[0-9]{2,4}[0-9a-fx])\b)");
  for (const std::string* field : {&ctx.arch, &ctx.gpu, &ctx.backend, &ctx.versions}) {
    re2::StringPiece in = sp(*field);
    std::string g;
    while (RE2::FindAndConsume(&in, gfx_re, &g)) add_gfx(f, lower(g));
  }
  std::string rep;
  if (RE2::PartialMatch(all, reported, &rep)) f.reported_gfx = lower(rep);
  // NVIDIA compute capability.
  static const RE2 sm_re(R"((?i)\bsm_?([0-9]{2,3})[a-z]?\b)");
  static const RE2 cc_re(R"((?i)(?:compute|cuda)\s*capability\s*:?\s*([0-9]+\.[0-9]+))");
  std::string v;
  if (RE2::PartialMatch(ctx.arch + " " + ctx.gpu, sm_re, &v)) {
    f.sm = "sm_" + v;
  } else if (RE2::PartialMatch(all, cc_re, &v)) {
    f.sm = cc_to_sm(v);
  }
  arch_from_names(kb, ctx.gpu + " | " + ctx.arch, f);
  choose_primary_gfx(kb, f);
  // Vendor: GPU words first, then the backend.
  f.vendor = vendor_of(ctx.gpu);
  if (f.vendor.empty()) f.vendor = vendor_of(ctx.arch);
  if (f.vendor.empty() && !f.gfx.empty()) f.vendor = "amd";
  if (f.vendor.empty() && !f.sm.empty()) f.vendor = "nvidia";
  if (f.vendor.empty()) f.vendor = vendor_of_backend(f.backend);
  if (f.vendor.empty()) {
    static const RE2 weak_amd(R"((?i)\bamd\b)");
    static const RE2 weak_intel(R"((?i)\bintel\b)");
    if (RE2::PartialMatch(ctx.gpu, weak_amd))
      f.vendor = "amd";
    else if (RE2::PartialMatch(ctx.gpu, weak_intel))
      f.vendor = "intel";
  }
  parse_versions(all, f);
  derive_gpu_presence(kb, ctx.arch + " | " + ctx.gpu, f);
  // Override: named in the text, a target "reported as" another, or in the environment.
  static const RE2 override_re(R"((?i)HSA_OVERRIDE_GFX_VERSION|\boverrid(?:e|den)\b)");
  static const RE2 override_value(R"((?i)overrid\w*[^0-9\n]{0,30}([0-9]+\.[0-9]+\.[0-9]+))");
  if (RE2::PartialMatch(all, override_re) || (!f.reported_gfx.empty() && f.reported_gfx != f.gfx)) {
    f.override_set = true;
    if (RE2::PartialMatch(all, override_value, &v)) f.override_value = v;
  }
  parse_env(ctx.env, ctx.env_known, f);
  return f;
}

/// Completes context facts with the GPUs a pasted tool output lists
/// (rocminfo, hipInfo, dxdiag, nvidia-smi): every gfx target, so an iGPU next
/// to a dGPU is seen; names through gpu_names; the driver. Context first.
void merge_tool_gpus(const KbData& kb, const std::vector<ToolGpu>& gpus, MachineFacts& f) {
  if (gpus.empty()) return;
  std::string names;
  MachineFacts found;
  for (const auto& g : gpus) {
    if (!g.arch.empty()) add_gfx(found, g.arch);
    if (!g.name.empty() && names.find(g.name) == std::string::npos)
      names += (names.empty() ? "" : " | ") + g.name;
  }
  for (const auto& g : gpus) {  // a GPU the tool names without a target: its name decides
    if (g.arch.empty() && !g.name.empty()) {
      MachineFacts named;
      arch_from_names(kb, g.name, named);
      for (const auto& t : named.gfx_targets) add_gfx(found, t);
      if (found.sm.empty()) found.sm = named.sm;
    }
  }
  if (f.gpu.empty()) f.gpu = names;
  if (f.gfx_targets.empty() && !found.gfx_targets.empty()) {
    f.gfx_targets = found.gfx_targets;
    choose_primary_gfx(kb, f);
  }
  if (f.sm.empty()) f.sm = found.sm;
  if (f.vendor.empty()) {
    if (!f.gfx.empty())
      f.vendor = "amd";
    else if (!f.sm.empty())
      f.vendor = "nvidia";
  }
  if (f.driver.empty() && f.vendor == "nvidia") {
    for (const auto& g : gpus) {
      if (g.tool == "nvidia-smi" && !g.driver.empty()) {
        f.driver = g.driver;
        break;
      }
    }
  }
  if (!f.igpu && !f.dgpu) derive_gpu_presence(kb, names, f);
}

/// Completes context facts with what the log said (context first).
void merge_log_facts(const KbData& kb, const std::map<std::string, std::string>& log, MachineFacts& f) {
  auto get = [&](const char* k) -> std::string {
    const auto it = log.find(k);
    return it == log.end() ? std::string() : it->second;
  };
  if (f.gfx_targets.empty() && !get("gfx").empty()) {
    add_gfx(f, lower(get("gfx")));
    choose_primary_gfx(kb, f);
  }
  if (f.sm.empty()) {
    if (!get("sm").empty())
      f.sm = lower(get("sm"));
    else if (!get("cc").empty())
      f.sm = cc_to_sm(get("cc"));
  }
  if (f.gpu.empty() && !get("gpu").empty()) {
    f.gpu = get("gpu");
    MachineFacts named;
    arch_from_names(kb, f.gpu, named);
    if (f.gfx_targets.empty() && !named.gfx_targets.empty()) {
      f.gfx_targets = named.gfx_targets;
      choose_primary_gfx(kb, f);
    }
    if (f.sm.empty()) f.sm = named.sm;
  }
  if (f.os.empty() && !get("os").empty()) f.os = os_family(get("os"));
  if (f.driver.empty()) f.driver = get("driver");
  if (f.driver_cuda.empty()) f.driver_cuda = get("driver_cuda");
  if (f.torch_cuda.empty()) f.torch_cuda = get("torch_cuda");
  if (f.python.empty() && !get("python").empty()) {
    // "3.11.9" -> "3.11"; a wheel tag's "313" -> "3.13".
    std::string py = get("python");
    if (py.find('.') == std::string::npos && py.size() >= 2) py = py.substr(0, 1) + "." + py.substr(1);
    const auto v = parse_version(py);
    if (v.size() >= 2) f.python = fmt::format("{}.{}", v[0], v[1]);
  }
  if (f.torch_rocm.empty()) f.torch_rocm = get("torch_rocm");
  if (f.macos_version.empty() && !get("macos_version").empty() && (f.os.empty() || f.os == "macos")) {
    f.macos_version = get("macos_version");
    f.os = "macos";
  }
  if (f.torch_version.empty() && !get("torch_version").empty()) {
    f.torch_version = get("torch_version");
    parse_versions("torch " + f.torch_version, f);
  }
  if (!f.cpu_only_torch && get("cpu_only_torch") == "yes") f.cpu_only_torch = true;
  if (f.backend.empty()) f.backend = get("backend");
  if (f.vendor.empty()) {
    if (!f.gfx.empty())
      f.vendor = "amd";
    else if (!f.sm.empty())
      f.vendor = "nvidia";
    else if (!get("vendor").empty())
      f.vendor = get("vendor");
    else
      f.vendor = vendor_of_backend(f.backend);
  }
}

}  // namespace kb_detail
}  // namespace accel
