#include "core/rules/context.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace accel::rules {

namespace {

Platform detect_platform(const Environment& env) {
  Platform p;
  const std::string os = lower(env.host.os);
  const std::string kernel = lower(env.host.kernel);
  if (os.find("windows") != std::string::npos) {
    p.os = "windows";
  } else if (os.find("macos") != std::string::npos || os.find("mac os") != std::string::npos ||
             os.find("darwin") != std::string::npos || kernel.find("darwin") != std::string::npos) {
    p.os = "macos";
  } else if (kernel.find("microsoft") != std::string::npos || kernel.find("wsl") != std::string::npos) {
    p.os = "wsl";
  } else if (!os.empty() || kernel.find("linux") != std::string::npos) {
    p.os = "linux";
  }
  for (const char* d : {"debian", "ubuntu", "mint", "pop!_os", "elementary", "kali", "raspbian"}) {
    if (os.find(d) != std::string::npos) p.debian_like = true;
  }
  for (const char* d : {"fedora", "red hat", "rhel", "rocky", "alma", "centos", "oracle linux"}) {
    if (os.find(d) != std::string::npos) p.fedora_like = true;
  }
  for (const char* d : {"arch linux", "manjaro", "endeavouros"}) {
    if (os.find(d) != std::string::npos) p.arch_like = true;
  }
  p.backend = env.torch.backend;
  for (const auto& d : env.devices) {
    const std::string t = lower(d.type);
    if (t == "mps") p.backend = "mps";
    if (t == "xpu") p.backend = "xpu";
    if (t == "dml" || t == "directml") p.backend = "directml";
    // A PrivateUse1 device is torch-directml's unless its plugin says otherwise (backend "testdev", ...).
    if (t == "privateuseone")
      p.backend = d.backend.empty() || d.backend == "dml" ? "directml" : lower(d.backend);
    if (t == "hip") p.backend = "rocm";
  }
  if (p.backend.empty()) p.backend = "cpu";
  return p;
}

}  // namespace

// ---------------------------------------------------------------- keys

// ---------------------------------------------------------------- Ctx

Ctx::Ctx(const Report& r, const DiagnoseOptions& o)
    : report(r), env(r.context.environment), options(o), platform(detect_platform(r.context.environment)) {
  if (env.selection && !env.selection->chosen.empty()) {
    target = env.selection->chosen;
  } else {
    std::map<std::string, int> count;
    for (const auto& res : r.results) {
      if (!res.device.empty()) ++count[res.device];
    }
    int best = 0;
    for (const auto& [dev, n] : count) {
      // Prefer an accelerator: CPU twins of benchmarks also appear in GPU reports.
      const int score = n + (dev == "cpu" ? 0 : 1000000);
      if (score > best) {
        best = score;
        target = dev;
      }
    }
    if (target.empty()) target = "cpu";
  }
  for (const auto& d : env.devices) {
    if (d.id == target) target_device = &d;
  }
}

const EnvVar* Ctx::env_var(std::string_view name) const {
  for (const auto& v : env.env_vars) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::vector<const Result*> Ctx::of_kind(ResultKind kind) const {
  std::vector<const Result*> out;
  for (const auto& r : report.results) {
    if (r.kind == kind) out.push_back(&r);
  }
  return out;
}

const Result* Ctx::find(std::string_view key) const {
  for (const auto& r : report.results) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

std::string Ctx::device_label(const std::string& device) const {
  for (const auto& d : env.devices) {
    if (d.id == device && !d.name.empty()) return fmt::format("{} ({})", device, d.name);
  }
  if (device == "cpu" && !env.host.cpu_model.empty()) return fmt::format("cpu ({})", env.host.cpu_model);
  return device;
}

std::vector<const GpuHardware*> Ctx::gpus_of_vendor(std::string_view vendor) const {
  std::vector<const GpuHardware*> out;
  for (const auto& g : env.gpus) {
    if (vendor.empty() || g.vendor == vendor) out.push_back(&g);
  }
  return out;
}

// ---------------------------------------------------------------- findings

Finding make_finding(std::string id, Severity severity, double impact, std::string title,
                     std::string evidence, std::string why, std::string fix, std::string reference) {
  Finding f;
  f.id = std::move(id);
  f.severity = severity;
  f.impact = impact;
  f.title = std::move(title);
  f.evidence = std::move(evidence);
  f.why = std::move(why);
  f.fix = std::move(fix);
  f.reference = std::move(reference);
  return f;
}

// ---------------------------------------------------------------- formatting

std::string pct(double percent) {
  if (!std::isfinite(percent)) return "?%";
  if (std::fabs(percent) >= 10) return fmt::format("{:.0f}%", percent);
  if (std::fabs(percent) >= 1) return fmt::format("{:.1f}%", percent);
  return fmt::format("{:.2g}%", percent);
}

std::string rate(double value, std::string_view unit) {
  if (!std::isfinite(value)) return fmt::format("? {}", unit);
  const double a = std::fabs(value);
  std::string v;
  if (a >= 1000 || a == 0) {
    v = fmt::format("{:.0f}", value);
  } else if (a >= 100) {
    v = fmt::format("{:.0f}", value);
  } else if (a >= 10) {
    v = fmt::format("{:.1f}", value);
  } else if (a >= 0.01) {
    v = fmt::format("{:.3g}", value);
  } else {
    v = fmt::format("{:.2e}", value);
  }
  return unit.empty() ? v : fmt::format("{} {}", v, unit);
}

std::string times(double ratio) {
  if (!std::isfinite(ratio)) return "?x";
  return ratio >= 10 ? fmt::format("{:.0f}x", ratio) : fmt::format("{:.1f}x", ratio);
}

double metric(const Result& r, const std::string& name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() || !std::isfinite(it->second) ? 0.0 : it->second;
}

std::string list_some(const std::vector<std::string>& items, std::size_t max) {
  std::string out;
  const std::size_t n = std::min(items.size(), max);
  for (std::size_t i = 0; i < n; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > n) out += fmt::format(" and {} more", items.size() - n);
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

std::optional<int> version_number(std::string_view version) {
  std::size_t i = 0;
  while (i < version.size() && !std::isdigit(static_cast<unsigned char>(version[i]))) ++i;
  int major = 0, minor = 0;
  bool any = false;
  while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) {
    major = major * 10 + (version[i++] - '0');
    any = true;
  }
  if (!any) return std::nullopt;
  if (i < version.size() && version[i] == '.') {
    ++i;
    while (i < version.size() && std::isdigit(static_cast<unsigned char>(version[i]))) {
      minor = minor * 10 + (version[i++] - '0');
    }
  }
  return major * 100 + std::min(minor, 99);
}

// ---------------------------------------------------------------- platform advice

std::string set_var_advice(const Platform& p, std::string_view name, std::string_view value) {
  if (p.os == "windows") {
    return fmt::format(
        "PowerShell, this session: $env:{0} = \"{1}\"; for good: setx {0} {1} (or Win+R, sysdm.cpl, "
        "Advanced, "
        "Environment Variables, New: {0} = {1}), then open a new terminal or restart",
        name, value);
  }
  return fmt::format(
      "export {0}={1} before starting Python (for good: add it to ~/.bashrc, the virtualenv's activate "
      "script, "
      "or Environment=\"{0}={1}\" in the systemd unit / `-e {0}={1}` for a container)",
      name, value);
}

std::string unset_var_advice(const Platform& p, std::string_view name) {
  if (p.os == "windows") {
    return fmt::format(
        "PowerShell: Remove-Item Env:{0} (cmd: set {0}=); if it comes back, delete it in sysdm.cpl, "
        "Advanced, "
        "Environment Variables",
        name);
  }
  return fmt::format(
      "unset {0} (and remove it from wherever it is set: ~/.bashrc, ~/.profile, the virtualenv's activate "
      "script, the job script, the container or systemd unit)",
      name);
}

namespace {
/// The newest CUDA wheel the driver can run (nvidia-smi "CUDA Version" = cuDriverGetVersion).
std::string cuda_wheel_for_driver(const std::string& driver_cuda) {
  const auto v = version_number(driver_cuda);
  if (!v) return "cu128";
  if (*v >= 1300) return "cu130";
  if (*v >= 1208) return "cu128";
  if (*v >= 1206) return "cu126";
  if (*v >= 1108) return "cu118";
  return "";
}
}  // namespace

std::string torch_install_advice(const Ctx& c, std::string_view vendor) {
  const Platform& p = c.platform;
  if (vendor == "nvidia") {
    const std::string wheel = cuda_wheel_for_driver(c.env.driver.cuda_driver_api);
    if (wheel.empty()) {
      return fmt::format(
          "the driver only supports CUDA {}: update the NVIDIA driver first (current wheels need CUDA >= "
          "11.8), "
          "then pip install torch --index-url https://download.pytorch.org/whl/cu128",
          c.env.driver.cuda_driver_api);
    }
    std::string s = fmt::format(
        "pip uninstall -y torch && pip install torch --index-url https://download.pytorch.org/whl/{} (the "
        "selector at https://pytorch.org/get-started/locally/ gives the exact command for torchvision/"
        "torchaudio; conda: install pytorch-cuda from the pytorch and nvidia channels)",
        wheel);
    if (c.env.driver.cuda_driver_api.empty()) {
      s += "; pick the cuXXX not newer than the \"CUDA Version\" nvidia-smi prints";
    }
    return s;
  }
  if (vendor == "amd") {
    if (p.os == "windows") {
      return "ROCm builds of torch for Windows are not on pytorch.org: use AMD's PyTorch-on-Windows wheels "
             "(ROCm 7 preview) if your Radeon is on their list, or torch-directml (pip install "
             "torch-directml; "
             "dev = torch_directml.device()), or Linux/WSL2 with the ROCm wheels";
    }
    if (p.os == "wsl") {
      return "install ROCm for WSL (amdgpu-install --usecase=wsl,rocm --no-dkms), then pip install torch "
             "--index-url https://download.pytorch.org/whl/rocm6.4 (or AMD's wheels from repo.radeon.com)";
    }
    return "pip uninstall -y torch && pip install torch --index-url https://download.pytorch.org/whl/rocm6.4 "
           "(the ROCm wheels carry their own ROCm runtime; the amdgpu kernel driver must be loaded)";
  }
  if (vendor == "intel") {
    return "pip uninstall -y torch && pip install torch --index-url https://download.pytorch.org/whl/xpu "
           "(needs the Intel GPU driver / compute runtime; the device is then torch.device(\"xpu\"))";
  }
  return "install the torch build for your GPU (https://pytorch.org/get-started/locally/)";
}

}  // namespace accel::rules
