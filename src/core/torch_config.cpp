#include "core/torch_config.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <sstream>

#include "core/strings.hpp"

namespace accel {

namespace {
/// Not accel::trim: it also drops trailing commas (the tokens of torch's
/// build-settings text are comma-separated).
std::string trim_token(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n,");
  return s.substr(b, e - b + 1);
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

/// "Build settings: A=1, B=x y, C=..." -> map. Values may themselves hold
/// ", " (compiler flags), so a ", " only starts a new pair when KEY= follows.
void parse_build_settings(const std::string& line, std::map<std::string, std::string>& out) {
  static const RE2 kKeyValue(R"(([A-Z][A-Z0-9_]*)=(.*))");
  std::string current;
  std::size_t pos = 0;
  while (pos <= line.size()) {
    auto sep = line.find(", ", pos);
    if (sep == std::string::npos) sep = line.size();
    const std::string token = line.substr(pos, sep - pos);
    std::string key, value;
    if (RE2::FullMatch(trim_token(token), kKeyValue, &key, &value)) {
      current = key;
      out[current] = trim_token(value);
    } else if (!current.empty() && !trim_token(token).empty()) {
      out[current] += ", " + trim_token(token);
    }
    pos = sep + 2;
  }
}
}  // namespace

ParsedTorchConfig parse_torch_config(const std::string& text) {
  ParsedTorchConfig c;
  std::istringstream in(text);
  std::string raw;
  static const RE2 kCuda(R"(CUDA Runtime ([0-9.]+))");
  static const RE2 kCudnn(R"(Cu[Dd][Nn][Nn] ([0-9.]+))");
  static const RE2 kHip(R"(HIP Runtime ([0-9.]+))");
  static const RE2 kMiopen(R"(MIOpen ([0-9.]+))");
  static const RE2 kCpuCap(R"(CPU capability usage: (.+))");
  static const RE2 kGcc(R"(^- ((?:GCC|clang|MSVC) [0-9.]+))");
  static const RE2 kSm(R"((?:code|arch)=((?:sm|compute)_[0-9]+[a-z]?))");
  static const RE2 kGfx(R"((gfx[0-9a-f]+))");
  std::string v;
  while (std::getline(in, raw)) {
    const std::string line = trim_token(raw);
    if (line.empty()) continue;
    if (RE2::PartialMatch(line, kCuda, &v)) c.cuda_runtime = v;
    if (RE2::PartialMatch(line, kCudnn, &v)) c.cudnn = v;
    if (RE2::PartialMatch(line, kHip, &v)) c.hip_runtime = v;
    if (RE2::PartialMatch(line, kMiopen, &v)) c.miopen = v;
    if (RE2::PartialMatch(line, kCpuCap, &v)) c.cpu_capability = trim_token(v);
    if (RE2::PartialMatch(line, kGcc, &v)) c.compiler = v;
    if (line.find("OpenMP") != std::string::npos && c.openmp.empty()) {
      c.openmp = trim_token(line.substr(line.find("OpenMP")));
    }
    if (line.find("Math Kernel Library") != std::string::npos) c.mkl = line.substr(2);
    if (line.find("MKL-DNN") != std::string::npos || line.find("oneDNN") != std::string::npos) {
      c.mkldnn = line.substr(2);
    }
    if (line.rfind("- NVCC architecture flags:", 0) == 0) {
      re2::StringPiece rest(line);
      std::string arch;
      while (RE2::FindAndConsume(&rest, kSm, &arch)) add_unique(c.arch_list, arch);
    }
    if (line.rfind("- Build settings:", 0) == 0) {
      parse_build_settings(line.substr(std::string("- Build settings:").size()), c.build);
    }
  }
  // ROCm builds name their targets in PYTORCH_ROCM_ARCH / HIP archs when present.
  for (const char* key : {"PYTORCH_ROCM_ARCH", "HIP_ARCH", "TORCH_CUDA_ARCH_LIST"}) {
    const auto it = c.build.find(key);
    if (it == c.build.end()) continue;
    re2::StringPiece rest(it->second);
    std::string arch;
    while (RE2::FindAndConsume(&rest, kGfx, &arch)) add_unique(c.arch_list, arch);
  }
  if (c.cuda_runtime.empty()) {
    if (auto it = c.build.find("CUDA_VERSION"); it != c.build.end()) c.cuda_runtime = it->second;
  }
  if (c.cudnn.empty()) {
    if (auto it = c.build.find("CUDNN_VERSION"); it != c.build.end()) c.cudnn = it->second;
  }
  return c;
}

std::optional<bool> arch_in_build(const std::vector<std::string>& arch_list, const std::string& device_arch,
                                  std::string* how) {
  auto say = [&](const std::string& s) {
    if (how) *how = s;
  };
  if (arch_list.empty() || device_arch.empty()) {
    say("the build's arch list is unknown");
    return std::nullopt;
  }
  if (std::find(arch_list.begin(), arch_list.end(), device_arch) != arch_list.end()) {
    say("exact match");
    return true;
  }
  int dev_major = 0, dev_minor = 0;
  std::string dev_suffix;
  static const RE2 kSmArch(R"(sm_([0-9]+)([0-9])([a-z]?))");
  if (RE2::FullMatch(device_arch, kSmArch, &dev_major, &dev_minor, &dev_suffix)) {
    for (const auto& a : arch_list) {
      int major = 0, minor = 0;
      std::string suffix;
      static const RE2 kTarget(R"((sm|compute)_([0-9]+)([0-9])([a-z]?))");
      std::string kind;
      if (!RE2::FullMatch(a, kTarget, &kind, &major, &minor, &suffix)) continue;
      if (!suffix.empty()) continue;  // sm_90a: that exact arch only
      if (kind == "sm" && major == dev_major && minor <= dev_minor) {
        say("binary compatible with " + a + " (same major, lower minor)");
        return true;
      }
      if (kind == "compute" && (major < dev_major || (major == dev_major && minor <= dev_minor))) {
        say("PTX for " + a + " is JIT-compiled at first use (slow start)");
        return true;
      }
    }
    say("no kernels for " + device_arch + " in the build");
    return false;
  }
  if (device_arch.rfind("gfx", 0) == 0) {
    // gfx targets may carry feature suffixes in the list ("gfx90a:xnack-").
    for (const auto& a : arch_list) {
      if (a.rfind(device_arch + ":", 0) == 0) {
        say("match with feature flags " + a);
        return true;
      }
    }
    say("no code object for " + device_arch + " in the build");
    return false;
  }
  say("unrecognised arch " + device_arch);
  return std::nullopt;
}

void name_static_blas(BlasInfo& blas, const std::map<std::string, std::string>& build) {
  if (blas.name != "unknown") return;
  const auto it = build.find("BLAS_INFO");
  if (it == build.end() || it->second.empty()) return;
  const std::string v = lower(it->second);
  static const std::map<std::string, std::string> kNames{
      {"mkl", "mkl"},     {"open", "openblas"},    {"openblas", "openblas"},
      {"blis", "blis"},   {"flexi", "flexiblas"},  {"accelerate", "accelerate"},
      {"eigen", "eigen"}, {"generic", "reference"}};
  const auto n = kNames.find(v);
  if (n == kNames.end()) return;
  blas.name = n->second;
  blas.evidence +=
      (blas.evidence.empty() ? "" : "; ") +
      ("named from torch's build configuration BLAS_INFO=" + it->second + " (linked into torch)");
}

}  // namespace accel
