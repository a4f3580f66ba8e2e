// Choosing the device to measure (`--device`). Pure logic over the devices
// torch reported, so it is tested without a GPU.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// A device request that names no existing device (exit code 2).
struct DeviceSelectionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// What explains a request torch cannot serve: the backend the torch build
/// links ("cpu" for a CPU-only build) and the GPUs found without torch.
struct DeviceSelectionContext {
  std::string torch_backend;  ///< "cuda", "rocm", "cpu"; "" when not known
  std::string torch_version;
  std::vector<std::string> gpus_found;  ///< names of GPUs the platform probes found
  /// Why no engine could list devices ("" when one did): a device request
  /// then fails with this reason rather than "not visible to torch".
  std::string no_engine;
};

/// Resolves `request` ("auto", "cpu", "cuda", "cuda:N", also "hip", "mps",
/// "xpu", "privateuseone" forms, and "dml"/"dml:N" for the privateuseone
/// devices of backend dml, torch-directml's) against `devices`. `auto` picks the best accelerator:
/// discrete before integrated, then most memory, then lowest index; the CPU
/// when there is none. The choice carries a sentence saying why.
/// Throws DeviceSelectionError listing the devices that exist.
/// With `context`, a cuda/hip request on a CPU-only torch build says so (the
/// real reason for a GPU owner) and names the GPUs found without torch.
DeviceChoice select_device(const std::string& request, const std::vector<DeviceInfo>& devices,
                           const DeviceSelectionContext& context = {});

}  // namespace accel
