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
  if (req == "auto") {
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

  // "cuda", "cuda:N" and the aliases a ROCm user types.
  std::string type = req;
  int index = -1;
  if (const auto colon = req.find(':'); colon != std::string::npos) {
    type = req.substr(0, colon);
    const std::string num = req.substr(colon + 1);
    if (num.empty() || !std::all_of(num.begin(), num.end(), ::isdigit) || num.size() > 6) {
      throw DeviceSelectionError(
          fmt::format("'{}' is not a device: the index must be a number. "
                      "Devices here: {}",
                      request, existing(devices)));
    }
    index = std::stoi(num);
  }
  if (type == "hip" || type == "rocm") type = "cuda";  // torch exposes HIP devices as cuda
  // torch-directml's devices are PrivateUse1 devices ("privateuseone:N") of backend dml.
  std::string backend;
  if (type == "dml" || type == "directml") {
    type = "privateuseone";
    backend = "dml";
  }
  static const char* kKnown[] = {"cuda", "mps", "xpu", "privateuseone"};
  if (std::find(std::begin(kKnown), std::end(kKnown), type) == std::end(kKnown)) {
    throw DeviceSelectionError(
        fmt::format("unknown device '{}': use auto, cpu, cuda or cuda:N (also xpu, dml, privateuseone:N). "
                    "Devices here: {}",
                    request, existing(devices)));
  }
  std::vector<const DeviceInfo*> of_type;
  for (const auto& d : devices) {
    if (d.id.rfind(type + ":", 0) == 0 && (backend.empty() || d.backend == backend)) of_type.push_back(&d);
  }
  if (of_type.empty() && backend == "dml" && context.no_engine.empty()) {
    throw DeviceSelectionError(fmt::format(
        "no DirectML device is visible (requested '{}'): torch-directml registered none in the Python engine "
        "(is torch_directml installed in that environment, and did it import? see environment.torch.host."
        "plugins). Devices here: {}",
        request, existing(devices)));
  }
  if (of_type.empty() && !context.no_engine.empty()) {
    throw DeviceSelectionError(fmt::format("'{}' cannot be used: {}", request, context.no_engine));
  }
  if (of_type.empty() && type == "cuda" && context.torch_backend == "cpu") {
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
  if (of_type.empty()) {
    throw DeviceSelectionError(
        fmt::format("no {} device is visible to torch (requested '{}'). Devices here: {}", type, request,
                    existing(devices)));
  }
  if (index < 0) index = of_type.front()->index;
  for (const auto* d : of_type) {
    if (d->index == index) {
      choice.chosen = d->id;
      choice.reason = fmt::format("requested with --device {}: {}", request, describe(*d));
      return choice;
    }
  }
  throw DeviceSelectionError(
      fmt::format("device '{}' is out of range: torch sees {} {} device(s). Devices here: {}", request,
                  of_type.size(), type, existing(devices)));
}

}  // namespace accel
