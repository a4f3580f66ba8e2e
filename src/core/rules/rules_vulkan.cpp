// Rules on the Vulkan compute ceiling (bench/vulkan/..., docs/vulkan.md): what
// the card and its graphics driver alone reach, against what the framework
// reaches on the same card (core/vulkan_join.hpp joins them), whether the
// framework leaves the card's fast fp16 unused, and whether the framework sees
// every GPU the Vulkan driver sees. A software Vulkan device (lavapipe,
// llvmpipe, SwiftShader, WARP) is never taken for a GPU ceiling.
//
// Thresholds, with why they sit where they do:
//  - kFrameworkLowRatio 0.5: torch's fp32 GEMM (TF32 off) reaches 75-85% of
//    the vector FMA peak on cuBLAS/rocBLAS, and its device copy 90-100% of a
//    plain copy kernel (the H200 validation target is 0.95x); under half of
//    what a plain Vulkan shader reaches on the same card in the same run, the
//    software stack, not the card or its clocks, loses the rest.
//  - kPackedFp16Ratio 2 (x 0.9 for timing noise): RDNA/RDNA2 packed math
//    (V_PK_FMA_F16) and NVIDIA's fp16 vector units run fp16 FMA at twice fp32.
//  - kFrameworkFp16Gain 1.5: a stack that uses that path runs fp16 GEMMs at
//    least 1.5x its fp32 GEMMs (matrix units give far more).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/rules/context.hpp"
#include "core/vulkan_join.hpp"

namespace accel::rules {

namespace {

constexpr double kFrameworkLowRatio = 0.5;
constexpr double kPackedFp16Ratio = 2.0;
constexpr double kPackedFp16Slack = 0.9;
constexpr double kFrameworkFp16Gain = 1.5;
constexpr const char* kRefVulkan = "docs/vulkan.md (accel-doctor)";
constexpr const char* kRefRdna2 =
    "https://www.amd.com/content/dam/amd/en/documents/radeon-tech-docs/instruction-set-architectures/"
    "rdna2-shader-instruction-set-architecture.pdf (V_PK_FMA_F16)";

std::vector<Result> vulkan_rows(const Ctx& c) {
  std::vector<Result> out;
  for (const auto& r : c.report.results) {
    if (vulkan::is_vulkan_key(r.key)) out.push_back(r);
  }
  return out;
}

const Result* row_of(const std::vector<Result>& rows, const std::string& device, const std::string& prefix) {
  for (const auto& r : rows) {
    if (r.device == device && r.status == Status::ok && r.key.rfind(prefix, 0) == 0) return &r;
  }
  return nullptr;
}

std::string stack_name(const Ctx& c) {
  const auto& t = c.env.torch;
  std::string s = "torch";
  if (!t.version.empty()) s += " " + t.version;
  if (t.backend == "rocm") {
    s += t.hip_version.empty() ? " (ROCm)" : " (ROCm/HIP " + t.hip_version + ")";
  } else if (t.backend == "cuda") {
    s += t.cuda_version.empty() ? " (CUDA)" : " (CUDA " + t.cuda_version + ")";
  } else if (!c.platform.backend.empty()) {
    s += " (" + c.platform.backend + ")";
  }
  return s;
}

std::string gemm_library(const Ctx& c) {
  if (c.platform.backend == "rocm") return "rocBLAS/hipBLASLt";
  if (c.platform.backend == "cuda") return "cuBLAS";
  if (c.platform.backend == "directml") return "DirectML's GEMM";
  return "the framework's GEMM library";
}

// ---------------------------------------------------------------- framework under the ceiling

struct Low {
  const Result* v;
  double ratio;
  std::string framework_key;
  bool gemm;
  json framework;  ///< evidence.framework of the joined copy
};

/// The Vulkan ceilings the framework reaches under kFrameworkLowRatio of, by
/// Vulkan device, pointing at the report's own rows.
std::map<std::string, std::vector<Low>> low_rows_by_device(const Ctx& c) {
  std::map<std::string, std::vector<Low>> by_device;
  std::vector<Result> rows = vulkan_rows(c);
  if (rows.empty()) return by_device;
  // Join again from the report (a saved one may hold both sides unjoined).
  std::vector<Result> framework;
  for (const auto& r : c.report.results) {
    if (!vulkan::is_vulkan_key(r.key) && r.kind == ResultKind::bench) framework.push_back(r);
  }
  vulkan::attach_framework_ratios(rows, framework, c.env);
  for (const auto& v : rows) {
    const bool gemm = v.key.rfind("bench/vulkan/compute/fma/", 0) == 0;
    const bool memory = v.key.rfind("bench/vulkan/memory/", 0) == 0;
    const double ratio = metric(v, "framework_ratio");
    if ((!gemm && !memory) || ratio <= 0 || ratio >= kFrameworkLowRatio) continue;
    // Point at the report's own row (`rows` is a copy).
    const Result* own = nullptr;
    for (const auto& r : c.report.results) {
      if (r.key == v.key && r.device == v.device) own = &r;
    }
    const json fw = v.evidence.value("framework", json::object());
    if (own) by_device[v.device].push_back({own, ratio, fw.value("key", ""), gemm, fw});
  }
  return by_device;
}

/// Which part of the stack loses the rest, from the other evidence.
std::string losing_part(const Ctx& c, const std::vector<Low>& low, const DeviceInfo* fd) {
  const bool any_gemm = std::any_of(low.begin(), low.end(), [](const Low& l) { return l.gemm; });
  const bool any_memory = std::any_of(low.begin(), low.end(), [](const Low& l) { return !l.gemm; });
  std::string which;
  if (any_gemm && any_memory) {
    which = fmt::format(
        "Both the GEMM and the memory figures are low, so the compute runtime as a whole ({}) runs this "
        "card below what its graphics driver reaches, not one library",
        stack_name(c));
  } else if (any_gemm) {
    which = fmt::format(
        "Memory bandwidth through {} is close to the Vulkan figure but the GEMM is not, so the GEMM "
        "library ({}) is the bottleneck, not the runtime, the memory path or the card",
        stack_name(c), gemm_library(c));
  } else {
    which = fmt::format(
        "The GEMM through {} is close to the Vulkan figure but memory bandwidth is not: the framework's "
        "memory kernels or its allocator lose the rest",
        stack_name(c));
  }
  if (const EnvVar* ov = c.env_var("HSA_OVERRIDE_GFX_VERSION"); ov && c.platform.backend == "rocm") {
    which += fmt::format(
        "; HSA_OVERRIDE_GFX_VERSION={} makes ROCm run kernels built for another gfx target on this card, "
        "which explains untuned GEMMs",
        ov->value);
  }
  if (fd && fd->arch_in_build && !*fd->arch_in_build) {
    which += fmt::format("; the torch build has no kernels for {} (arch_in_build false)", fd->arch);
  }
  return which;
}

std::string under_ceiling_fix(const Ctx& c) {
  if (c.platform.backend == "rocm") {
    return "Update ROCm and the torch ROCm wheel to versions that list this card's gfx target "
           "(kb/arch.json); "
           "try the other GEMM library (TORCH_BLAS_PREFER_HIPBLASLT=1 or 0); avoid HSA_OVERRIDE_GFX_VERSION "
           "where an official build supports the card";
  }
  if (c.platform.backend == "cuda") {
    return "Update torch (its bundled cuBLAS) and the driver; check that TF32/precision settings match the "
           "comparison (fp32 GEMM with TF32 off)";
  }
  if (c.platform.backend == "directml") {
    return "Update torch-directml / DirectML and the GPU driver; on Linux, ROCm (AMD) or CUDA (NVIDIA) "
           "builds "
           "of torch usually reach more of the card";
  }
  return "Update the framework build and its GPU runtime; compare another backend on the same card";
}

void rule_framework_under_ceiling(const Ctx& c, std::vector<Finding>& out) {
  for (const auto& [device, low] : low_rows_by_device(c)) {
    const auto refs = vulkan::vulkan_devices_of({*low.front().v});
    if (refs.empty() || refs[0].software) continue;
    // Who the framework side is: the join's record on the row (this run's
    // device list, or a --from report's).
    const json& fw = low.front().framework;
    std::string joined_by = fw.value("joined_by", "");
    std::string fdevice = fw.value("device", "");
    std::string source = fw.value("source", "");
    const DeviceInfo* fd = vulkan::framework_device_of(refs[0], c.env, &joined_by);
    if (fd) fdevice = fd->id + " (" + fd->name + ")";
    std::string evidence_text = fmt::format(
        "{} (joined by {}{}) and Vulkan device {} ({}{}) are the same card; ", fdevice, joined_by,
        source.empty() || source == "this run" ? "" : ", framework figures from " + source, device,
        refs[0].name, refs[0].driver_name.empty() ? "" : ", driver " + refs[0].driver_name);
    double worst = 1;
    for (std::size_t i = 0; i < low.size(); ++i) {
      const Low& l = low[i];
      worst = std::min(worst, l.ratio);
      const double ceiling = metric(*l.v, l.gemm ? "tflops" : "gbps");
      evidence_text += (i ? "; " : "") + fmt::format("{} reaches {} of the Vulkan ceiling: {} vs {} ({})",
                                                     l.framework_key, pct(100 * l.ratio),
                                                     rate(ceiling * l.ratio, l.gemm ? "TFLOP/s" : "GB/s"),
                                                     rate(ceiling, l.gemm ? "TFLOP/s" : "GB/s"), l.v->key);
    }
    out.push_back(make_finding(
        "framework_under_vulkan_ceiling", Severity::warning, 45 + 40 * (kFrameworkLowRatio - worst),
        fmt::format("The framework reaches {} of what the card does through Vulkan on {}", pct(100 * worst),
                    refs[0].name),
        evidence_text,
        "The Vulkan figures come from plain compute shaders through the graphics driver alone, on the same "
        "card in the same run: the card and its clocks can do this much. " +
            losing_part(c, low, fd) + ".",
        under_ceiling_fix(c), kRefVulkan));
  }
}

// ---------------------------------------------------------------- fp16 unused

bool half(const std::string& dtype) { return dtype == "fp16" || dtype == "bf16"; }

void rule_fp16_unused(const Ctx& c, std::vector<Finding>& out) {
  const std::vector<Result> rows = vulkan_rows(c);
  for (const auto& v : vulkan::vulkan_devices_of(rows)) {
    if (!v.is_gpu()) continue;
    const Result* f32 = row_of(rows, v.device, "bench/vulkan/compute/fma/fp32/");
    const Result* f16 = row_of(rows, v.device, "bench/vulkan/compute/fma/fp16/");
    if (!f32 || !f16 || metric(*f32, "tflops") <= 0) continue;
    const double vk_ratio = metric(*f16, "tflops") / metric(*f32, "tflops");
    if (vk_ratio < kPackedFp16Ratio * kPackedFp16Slack) continue;
    const DeviceInfo* fd = vulkan::framework_device_of(v, c.env);
    if (!fd) continue;  // the device-list rule speaks for a card the framework does not see
    // The framework's work on that device: GEMMs by dtype, and the dtypes of llm/train rows.
    double gemm32 = 0, gemm16 = 0;
    std::set<std::string> dtypes;
    for (const auto& r : c.report.results) {
      if (r.device != fd->id || vulkan::is_vulkan_key(r.key)) continue;
      if (r.status != Status::ok && r.status != Status::mismatch) continue;
      if (r.kind == ResultKind::bench && r.key.find("/gemm/") != std::string::npos) {
        const double t = metric(r, "tflops");
        if (r.dtype == "fp32" && r.key.find("tf32") == std::string::npos) gemm32 = std::max(gemm32, t);
        if (r.dtype == "fp16") gemm16 = std::max(gemm16, t);
      }
      if ((r.kind == ResultKind::llm || r.kind == ResultKind::train || r.kind == ResultKind::bench) &&
          !r.dtype.empty())
        dtypes.insert(r.dtype);
    }
    std::string evidence = fmt::format("Vulkan on {} ({}): fp16 FMA {} vs fp32 {} ({} fp32)", v.device,
                                       v.name, rate(metric(*f16, "tflops"), "TFLOP/s"),
                                       rate(metric(*f32, "tflops"), "TFLOP/s"), times(vk_ratio));
    std::string title, why, fix;
    if (gemm32 > 0 && gemm16 > 0) {
      const double fw = gemm16 / gemm32;
      if (fw >= kFrameworkFp16Gain) continue;  // the stack uses it
      evidence += fmt::format("; {} on {}: fp16 GEMM {} vs fp32 {} (only {})", stack_name(c), fd->id,
                              rate(gemm16, "TFLOP/s"), rate(gemm32, "TFLOP/s"), times(fw));
      title =
          fmt::format("The framework does not use {}'s fast fp16: its fp16 GEMM is {} fp32, the card's is {}",
                      v.name, times(fw), times(vk_ratio));
      why =
          "The card computes fp16 at twice its fp32 rate (packed math on RDNA/RDNA2, fp16 vector units "
          "elsewhere), as the Vulkan shaders show, but the framework's fp16 kernels do not reach it: "
          "they convert to fp32 or use kernels without packed instructions.";
      fix = c.platform.backend == "rocm"
                ? "Update ROCm and torch to a build whose rocBLAS/hipBLASLt has fp16 kernels for this gfx "
                  "target (kb/arch.json); an HSA_OVERRIDE_GFX_VERSION build runs another target's kernels"
                : "Update the framework and its GPU runtime; until then fp16 gains nothing here";
    } else {
      bool any_half = false;
      for (const auto& d : dtypes) any_half = any_half || half(d);
      if (dtypes.empty() || any_half) continue;  // nothing measured there, or half precision in use
      evidence += fmt::format("; every framework measurement on {} ran in fp32", fd->id);
      title = fmt::format("{} runs fp16 at {} fp32, and this run computes in fp32", v.name, times(vk_ratio));
      why =
          "Half precision doubles the arithmetic rate on this card (and halves memory traffic); models that "
          "tolerate it (most inference, mixed-precision training) gain up to 2x.";
      fix =
          "Run the model in fp16 (model.half()) or under torch.autocast(device_type='cuda', "
          "dtype=torch.float16); keep losses and reductions in fp32 (autocast does)";
    }
    out.push_back(make_finding("fp16_unused_fast_fp16", Severity::warning, 35 + 5 * std::min(4.0, vk_ratio),
                               title, evidence, why, fix, kRefRdna2));
  }
}

// ---------------------------------------------------------------- device lists disagree

void rule_vulkan_gpu_unseen(const Ctx& c, std::vector<Finding>& out) {
  // Only when the framework was asked for its devices.
  if (c.env.torch.not_collected.count("engine") || c.env.torch.version.empty()) return;
  bool framework_has_gpu = false;
  for (const auto& d : c.env.devices)
    framework_has_gpu = framework_has_gpu || (d.type != "cpu" && d.id != "cpu");
  for (const auto& v : vulkan::vulkan_devices_of(vulkan_rows(c))) {
    if (!v.is_gpu()) continue;
    if (vulkan::framework_device_of(v, c.env)) continue;
    // Found by the hardware probes while the framework sees no GPU at all:
    // the no_accelerator rules say that, with their causes.
    bool probed = false;
    for (const auto& g : c.env.gpus) {
      probed = probed || (!v.pci_address.empty() && vulkan::normalize_pci(g.pci_address) == v.pci_address);
    }
    if (probed && !framework_has_gpu) continue;
    std::vector<std::string> seen;
    for (const auto& d : c.env.devices) {
      if (d.type != "cpu" && d.id != "cpu") seen.push_back(d.id + " " + d.name);
    }
    const bool integrated = v.type == "integrated_gpu";
    const std::string evidence =
        fmt::format("Vulkan{} lists {} ({}, {}{}); {} lists {}",
                    v.driver_name.empty() ? "" : " (driver " + v.driver_name + ")", v.device, v.name, v.type,
                    v.pci_address.empty() ? "" : ", PCI " + v.pci_address, stack_name(c),
                    seen.empty() ? std::string("no GPU") : list_some(seen));
    std::string fix;
    if (c.platform.backend == "cpu" || c.env.torch.backend == "cpu") {
      fix = torch_install_advice(c, contains_ci(v.name, "nvidia") ? "nvidia" : "amd");
    } else if (c.platform.backend == "rocm") {
      fix =
          "Check HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES, membership of the render and video groups, and "
          "whether this card's gfx target is supported by the installed ROCm (kb/arch.json; "
          "HSA_OVERRIDE_GFX_VERSION for RDNA2 cards outside the list)";
    } else if (c.platform.backend == "cuda") {
      fix =
          contains_ci(v.name, "nvidia")
              ? "Check CUDA_VISIBLE_DEVICES and the driver's compute support (nvidia-smi); a GPU the "
                "display driver drives but CUDA does not list is hidden or unsupported"
              : "A CUDA build of torch runs only NVIDIA GPUs: use the ROCm build (Linux), torch-directml or "
                "ONNX Runtime with DirectML (Windows) for this card";
    } else {
      fix = "Install a framework build for this GPU's vendor and check its *_VISIBLE_DEVICES variables";
    }
    out.push_back(make_finding(
        "framework_misses_vulkan_gpu", integrated && framework_has_gpu ? Severity::info : Severity::warning,
        integrated && framework_has_gpu ? 15 : 55,
        fmt::format("The framework does not see {}, which the Vulkan driver runs", v.name), evidence,
        "The graphics driver exposes this GPU to Vulkan compute, so the card and its kernel driver work; the "
        "framework's compute runtime does not list it, so nothing the framework runs uses it." +
            std::string(integrated ? " (An integrated GPU is often outside the compute runtime's support.)"
                                   : ""),
        fix, kRefVulkan));
  }
}

}  // namespace

std::vector<RuleEntry> vulkan_rules() {
  return {
      {"framework_under_vulkan_ceiling",
       "the framework's GEMM or memory bandwidth under 50% of the Vulkan ceiling on the same GPU (joined by "
       "PCI address or name; never a software Vulkan device)",
       rule_framework_under_ceiling},
      {"fp16_unused_fast_fp16",
       "Vulkan fp16 FMA >= 2x fp32 on a GPU, and the framework's fp16 GEMM < 1.5x its fp32 or all its work "
       "there fp32",
       rule_fp16_unused},
      {"framework_misses_vulkan_gpu",
       "a Vulkan GPU (not software) that the framework's device list lacks (left to no_accelerator.* when "
       "the hardware probes found it and the framework sees no GPU)",
       rule_vulkan_gpu_unseen},
  };
}

}  // namespace accel::rules
