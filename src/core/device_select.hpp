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

/// Resolves `request` ("auto", "cpu", "cuda", "cuda:N", also "hip", "mps",
/// "xpu" forms) against `devices`. `auto` picks the best accelerator:
/// discrete before integrated, then most memory, then lowest index; the CPU
/// when there is none. The choice carries a sentence saying why.
/// Throws DeviceSelectionError listing the devices that exist.
DeviceChoice select_device(const std::string& request, const std::vector<DeviceInfo>& devices);

}  // namespace accel
