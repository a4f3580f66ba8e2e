// DXCore (dxcore.dll, Windows 10 2004 and later), loaded at run time: per
// adapter LUID whether it is integrated (IsIntegrated), a hardware adapter
// (IsHardware) and its kernel-mode driver model (KmdModelVersion, the WDDM
// version). The interfaces come from dxcore_interface.h (the Windows SDK;
// on Debian directx-headers-dev, staged by cmake/MingwDependencies.cmake).
// Included only by src/platform/windows/*.cpp.
#pragma once

#include "platform/windows/win_probe_util.hpp"  // windows.h first

#include <memory>
#include <optional>
#include <string>

namespace accel::platform::win {

struct DxCoreAdapterFacts {
  std::optional<bool> integrated;
  std::optional<bool> hardware;
  std::string wddm_version;  ///< "WDDM 3.1", "" when not answered
  std::string why;           ///< what could not be read
};

class DxCore {
 public:
  DxCore();
  ~DxCore();
  DxCore(const DxCore&) = delete;
  DxCore& operator=(const DxCore&) = delete;
  /// Whether the factory exists; `error()` says why not.
  bool ok() const { return factory_ != nullptr; }
  const std::string& error() const { return error_; }
  /// The facts of the adapter with this LUID; `why` says what failed.
  DxCoreAdapterFacts adapter(const LUID& luid) const;

 private:
  HMODULE dll_ = nullptr;
  void* factory_ = nullptr;  ///< an IDXCoreAdapterFactory* (windows.h is lean: no IUnknown here)
  std::string error_;
};

}  // namespace accel::platform::win
