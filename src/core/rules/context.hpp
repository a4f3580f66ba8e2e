// Internal to the rules engine: what every rule reads (the report with a few
// indexes and the platform it came from) and the small helpers rules share
// (number formatting, platform-specific commands). Not a public API.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result_keys.hpp"
#include "core/rules/rules.hpp"
#include "core/strings.hpp"

namespace accel::rules {

/// The platform a report came from, as far as its evidence says.
struct Platform {
  std::string os;            ///< "linux", "windows", "macos", "wsl", or "" when unknown
  bool debian_like = false;  ///< Debian, Ubuntu and derivatives (apt, update-alternatives)
  bool fedora_like = false;  ///< Fedora, RHEL, Rocky, Alma, CentOS (dnf)
  bool arch_like = false;    ///< Arch, Manjaro (pacman)
  std::string backend;       ///< "cuda", "rocm", "mps", "directml", "xpu", "cpu"
};

using accel::BenchKey;  // core/result_keys.hpp
using accel::LlmKey;

class Ctx {
 public:
  Ctx(const Report& report, const DiagnoseOptions& options);

  const Report& report;
  const Environment& env;
  const DiagnoseOptions& options;
  Platform platform;
  /// The measured device ("cuda:0", "cpu"): the selection, else the device
  /// most results ran on.
  std::string target;
  /// torch's view of the measured device; nullptr for the CPU or when unknown.
  const DeviceInfo* target_device = nullptr;

  bool target_is_cpu() const { return target.empty() || target == "cpu"; }
  /// A GPU-related environment variable of the run, nullptr when it was not set.
  const EnvVar* env_var(std::string_view name) const;
  /// Results of a kind, in report order.
  std::vector<const Result*> of_kind(ResultKind kind) const;
  /// A result by key, nullptr when absent.
  const Result* find(std::string_view key) const;
  /// The report's display name of a device: "cuda:0 (NVIDIA H200)".
  std::string device_label(const std::string& device) const;
  /// Discrete/integrated GPUs found without torch.
  std::vector<const GpuHardware*> gpus_of_vendor(std::string_view vendor) const;
};

// ---------------------------------------------------------------- findings

Finding make_finding(std::string id, Severity severity, double impact, std::string title,
                     std::string evidence, std::string why, std::string fix, std::string reference);

/// A result's metric; 0 when it is absent or not finite.
double metric(const Result& r, const std::string& name);

// ---------------------------------------------------------------- formatting

/// "42%", "3.1%", "0.52%"
std::string pct(double percent);
/// Three significant figures with the unit: "1.23 TFLOP/s", "456 GB/s".
std::string rate(double value, std::string_view unit);
/// "2.5x"
std::string times(double ratio);
/// "a, b, c and 4 more"
std::string list_some(const std::vector<std::string>& items, std::size_t max = 5);
using accel::contains_ci;  // core/strings.hpp
using accel::lower;
bool starts_with(std::string_view s, std::string_view prefix);
/// "major.minor" of a version string as a comparable number (6.2 -> 602); nullopt when none.
std::optional<int> version_number(std::string_view version);

// ---------------------------------------------------------------- platform advice

/// How to set an environment variable on this platform (persistently too).
std::string set_var_advice(const Platform& p, std::string_view name, std::string_view value);
/// How to remove one.
std::string unset_var_advice(const Platform& p, std::string_view name);
/// How to install a torch build for a vendor's GPU on this platform.
std::string torch_install_advice(const Ctx& c, std::string_view vendor);

// ---------------------------------------------------------------- rule tables

using RuleFn = std::function<void(const Ctx&, std::vector<Finding>&)>;
struct RuleEntry {
  const char* id;
  const char* triggers;
  RuleFn fn;
};

std::vector<RuleEntry> setup_rules();   ///< rules_setup.cpp: visibility, arch, overrides, iGPU
std::vector<RuleEntry> perf_rules();    ///< rules_perf.cpp: BLAS, peaks, dtypes, SDPA, copies, LLM
std::vector<RuleEntry> health_rules();  ///< rules_health.cpp: errors, fallbacks, noise, host and GPU state
std::vector<RuleEntry> vulkan_rules();  ///< rules_vulkan.cpp: the framework against the Vulkan ceiling
std::vector<RuleEntry>
windows_rules();  ///< rules_windows.cpp: environment.windows (adapters, power, security)
std::vector<RuleEntry> gpu_busy_rules();  ///< rules_gpu_busy.cpp: GPU utilisation while workloads ran
/// On Windows, how to select the adapter torch's `device` is on, by every
/// index it has (DirectML / ONNX Runtime device_id, torch-directml, torch,
/// Vulkan, HIP; core/adapter_join.hpp): one text for every rule that says
/// "use the discrete GPU". "" when the device joins no DXGI adapter (rules_windows.cpp).
std::string windows_index_advice(const Ctx& c, const std::string& device);
/// rules_multi.cpp: several GPUs and machines (topology, NCCL settings and transports, collectives)
std::vector<RuleEntry> multi_rules();
std::vector<RuleEntry>
onnxruntime_rules();  ///< rules_onnxruntime.cpp: the `ort` rows and environment.onnxruntime
/// True for the Power saver plan's GUID (GUID_MAX_POWER_SAVINGS).
bool is_power_saver_plan(const std::string& guid);
/// Every rule, in evaluation order.
std::vector<RuleEntry> all_rules();
bool severity_rank_valid(std::string_view severity);

}  // namespace accel::rules
