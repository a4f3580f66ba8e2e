#include "core/device_select.hpp"
#include "core/strings.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace accel {

namespace {
std::string describe(const DeviceInfo& d) {
  std::string s = fmt::format("{} ({}", d.id, d.name.empty() ? "unnamed" : d.name);
  if (d.total_memory_bytes) s += fmt::format(", {:.1f} GiB", *d.total_memory_bytes / 1073741824.0);
  if (d.integrated) s += *d.integrated ? ", integrated" : ", discrete";
  return s + ")";
}

std::string existing(const std::vector<DeviceInfo>& devices) {
  std::string s = "cpu";
  for (const auto& d : devices) s += ", " + describe(d);
  return s;
}
/// --device auto: the only accelerator, else discrete before integrated,
/// then the most memory, then the lowest index; the CPU when there is none.
DeviceChoice choose_auto(DeviceChoice choice, const std::vector<DeviceInfo>& devices) {
  if (devices.empty()) {
    choice.chosen = "cpu";
    choice.reason = "no accelerator is visible to torch, so the CPU is measured";
    return choice;
  }
  const auto best = std::min_element(devices.begin(), devices.end(), [](const auto& a, const auto& b) {
    const bool ai = a.integrated.value_or(false), bi = b.integrated.value_or(false);
    if (ai != bi) return !ai;  // discrete first
    const auto am = a.total_memory_bytes.value_or(0), bm = b.total_memory_bytes.value_or(0);
    if (am != bm) return am > bm;
    return a.index < b.index;
  });
  choice.chosen = best->id;
  if (devices.size() == 1) {
    choice.reason = fmt::format("the only accelerator torch sees: {}", describe(*best));
  } else {
    const bool any_integrated = std::any_of(devices.begin(), devices.end(),
                                            [](const auto& d) { return d.integrated.value_or(false); });
    choice.reason = fmt::format(
        "best of {} accelerators ({}): {}", devices.size(),
        any_integrated ? "discrete before integrated, then most memory" : "most memory", describe(*best));
  }
  return choice;
}

/// A requested device type and index: "cuda:1" -> {cuda, 1}; "rocm" -> {cuda,
/// -1}; "dml:0" -> {privateuseone (backend dml), 0}.
struct DeviceRequest {
  std::string type;
  int index = -1;       ///< -1: the first of the type
  std::string backend;  ///< "dml" for torch-directml's devices
};

DeviceRequest parse_request(const std::string& req, const std::string& request,
                            const std::vector<DeviceInfo>& devices) {
  // "cuda", "cuda:N" and the aliases a ROCm user types.
  DeviceRequest d;
  d.type = req;
  if (const auto colon = req.find(':'); colon != std::string::npos) {
    d.type = req.substr(0, colon);
    const std::string num = req.substr(colon + 1);
    if (num.empty() || !std::all_of(num.begin(), num.end(), ::isdigit) || num.size() > 6) {
      throw DeviceSelectionError(
          fmt::format("'{}' is not a device: the index must be a number. "
                      "Devices here: {}",
                      request, existing(devices)));
    }
    d.index = std::stoi(num);
  }
  if (d.type == "hip" || d.type == "rocm") d.type = "cuda";  // torch exposes HIP devices as cuda
  // torch-directml's devices are PrivateUse1 devices ("privateuseone:N") of backend dml.
  if (d.type == "dml" || d.type == "directml") {
    d.type = "privateuseone";
    d.backend = "dml";
  }
  static const char* kKnown[] = {"cuda", "mps", "xpu", "privateuseone"};
  if (std::find(std::begin(kKnown), std::end(kKnown), d.type) == std::end(kKnown)) {
    throw DeviceSelectionError(
        fmt::format("unknown device '{}': use auto, cpu, cuda or cuda:N (also xpu, dml, privateuseone:N). "
                    "Devices here: {}",
                    request, existing(devices)));
  }
  return d;
}

/// Throws the error that says why no device of the requested type is there.
[[noreturn]] void throw_none_of_type(const DeviceRequest& d, const std::string& request,
                                     const std::vector<DeviceInfo>& devices,
                                     const DeviceSelectionContext& context) {
  if (d.backend == "dml" && context.no_engine.empty()) {
    throw DeviceSelectionError(fmt::format(
        "no DirectML device is visible (requested '{}'): torch-directml registered none in the Python engine "
        "(is torch_directml installed in that environment, and did it import? see environment.torch.host."
        "plugins). Devices here: {}",
        request, existing(devices)));
  }
  if (!context.no_engine.empty()) {
    throw DeviceSelectionError(fmt::format("'{}' cannot be used: {}", request, context.no_engine));
  }
  if (d.type == "cuda" && context.torch_backend == "cpu") {
    const std::string found =
        context.gpus_found.empty()
            ? std::string()
            : fmt::format(" This machine has {} (found without torch).", fmt::join(context.gpus_found, ", "));
    throw DeviceSelectionError(fmt::format(
        "'{}' needs a CUDA or ROCm build of torch, and this torch{} was built without either (a CPU-only "
        "build), so it can use no GPU.{} Install the CUDA or ROCm torch for your GPU (pytorch.org's install "
        "selector) and build accel-doctor against it (scripts/setup.sh uses the Python torch that imports). "
        "Devices here: {}",
        request, context.torch_version.empty() ? "" : " " + context.torch_version, found, existing(devices)));
  }
  throw DeviceSelectionError(
      fmt::format("no {} device is visible to torch (requested '{}'). Devices here: {}", d.type, request,
                  existing(devices)));
}

}  // namespace

DeviceChoice select_device(const std::string& request, const std::vector<DeviceInfo>& devices,
                           const DeviceSelectionContext& context) {
  DeviceChoice choice;
  choice.requested = request;
  const std::string req = lower(request.empty() ? "auto" : request);

  if (req == "cpu") {
    choice.chosen = "cpu";
    choice.reason = "requested with --device cpu";
    return choice;
  }
  if (req == "auto") return choose_auto(std::move(choice), devices);

  const DeviceRequest d = parse_request(req, request, devices);
  std::vector<const DeviceInfo*> of_type;
  for (const auto& dev : devices) {
    if (dev.id.rfind(d.type + ":", 0) == 0 && (d.backend.empty() || dev.backend == d.backend))
      of_type.push_back(&dev);
  }
  if (of_type.empty()) throw_none_of_type(d, request, devices, context);
  const int index = d.index < 0 ? of_type.front()->index : d.index;
  for (const auto* dev : of_type) {
    if (dev->index == index) {
      choice.chosen = dev->id;
      choice.reason = fmt::format("requested with --device {}: {}", request, describe(*dev));
      return choice;
    }
  }
  throw DeviceSelectionError(
      fmt::format("device '{}' is out of range: torch sees {} {} device(s). Devices here: {}", request,
                  of_type.size(), d.type, existing(devices)));
}

}  // namespace accel
