// Engine-internal helpers over libtorch: device parsing and synchronisation,
// dtype names, warning capture and error-message cleanup. Included only by
// engine .cpp files (never by cli/ or core/).
#pragma once

#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <string>
#include <vector>

#define ACCEL_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace accel::engine {

/// Short dtype names used in keys and reports: fp32, fp16, bf16, fp64, int64, ...
std::string dtype_name(at::ScalarType t);
/// Inverse of dtype_name; throws std::invalid_argument for an unknown name.
at::ScalarType dtype_from_name(const std::string& name);
bool is_floating(at::ScalarType t);

/// Parses "cpu", "cuda", "cuda:1" into a device; throws std::invalid_argument.
c10::Device parse_device(const std::string& text);
std::string device_string(const c10::Device& d);

/// How the host waits for the work queued on a device (synchronize()).
enum class SyncMethod {
  none,         ///< the CPU: nothing is queued
  stream,       ///< the backend's stream synchronisation (CUDA, ROCm, XPU, MPS)
  scalar_copy,  ///< a one-element device tensor copied to the host: for backends without
                ///< stream synchronisation (torch-directml and other PrivateUse1 plugins)
};
std::string to_string(SyncMethod m);

/// Waits until all work queued on the device's current stream has finished.
/// A no-op on the CPU. Device-generic: the backend's DeviceGuardImpl stream
/// synchronisation; a backend without one (its guard throws "doesn't support
/// synchronizing streams") is synchronised from then on by copying a cached
/// one-element tensor of that device to the host, which returns when the
/// work queued before it has run on an in-order queue (torch-directml's
/// model; not verified on a real DirectML device). Throws what the backend throws.
void synchronize(const c10::Device& d);
/// The method synchronize() uses for `d` (tries a stream synchronisation the
/// first time for a device type).
SyncMethod sync_method(const c10::Device& d);
/// Creates the device's context (a one-element allocation and a
/// synchronisation) so that the first measured item does not pay for it.
/// Nothing on the CPU.
void initialise_device(const c10::Device& d);

/// Whether device events with timing exist for this device in this torch.
bool has_timing_events(const c10::Device& d);

/// Error text without the C++ backtrace torch appends ("Exception raised from ...").
std::string strip_backtrace(const std::string& what);

/// Restricts at::scaled_dot_product_attention in this process to one
/// backend: "flash", "efficient" (memory-efficient), "cudnn" or "math"
/// (torch's `torch.nn.attention.sdpa_kernel` in C++), or back to torch's
/// own choice with "auto". Returns "" on success, else why it cannot
/// (an unknown name; cuDNN attention needs torch >= 2.5, the others 2.0).
/// A backend that cannot run a given call then makes that call throw.
std::string select_sdpa_backend(const std::string& backend);
/// The message of any exception torch may throw, without backtrace.
std::string exception_message(const std::exception& e);

/// Makes TORCH_WARN_ONCE warn every time while alive (torch.set_warn_always):
/// a plugin that announces its CPU fallbacks once per process (as torch's MPS
/// fallback does) then announces them in every check. Restores the previous
/// setting on destruction. Not thread-local (torch's flag is process-wide).
class WarnAlwaysGuard {
 public:
  WarnAlwaysGuard();
  ~WarnAlwaysGuard();
  WarnAlwaysGuard(const WarnAlwaysGuard&) = delete;
  WarnAlwaysGuard& operator=(const WarnAlwaysGuard&) = delete;

 private:
  bool previous_;
};

/// Collects TORCH_WARN messages raised on this thread while alive, and restores
/// the previous handler on destruction. Works with torch 1.x and 2.x APIs.
class WarningCapture {
 public:
  WarningCapture();
  ~WarningCapture();
  WarningCapture(const WarningCapture&) = delete;
  WarningCapture& operator=(const WarningCapture&) = delete;
  /// Distinct messages in order of first appearance.
  const std::vector<std::string>& messages() const;

 private:
  struct Handler;
  Handler* handler_;
  c10::WarningHandler* previous_;
};

}  // namespace accel::engine
