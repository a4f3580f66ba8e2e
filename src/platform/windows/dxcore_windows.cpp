// DXCore adapter facts (dxcore_windows.hpp).
#include "platform/windows/dxcore_windows.hpp"

#include <dxcore_interface.h>

#include <fmt/format.h>

#include "platform/windows_facts.hpp"

namespace accel::platform::win {

namespace {

// The interface ids of dxcore_interface.h (DEFINE_GUID there declares them
// without a definition unless INITGUID is set): IID_IDXCoreAdapterFactory, IID_IDXCoreAdapter.
constexpr GUID kIidAdapterFactory = {
    0x78ee5945, 0xc36e, 0x4b13, {0xa6, 0x69, 0x00, 0x5d, 0xd1, 0x1c, 0x0f, 0x06}};
constexpr GUID kIidAdapter = {0xf0db4c7f, 0xfe5a, 0x42a2, {0xbd, 0x62, 0xf2, 0xa6, 0xcf, 0x6f, 0xc8, 0x3e}};

template <typename T>
std::optional<T> property(IDXCoreAdapter* a, DXCoreAdapterProperty p, const char* name, std::string& why) {
  if (!a->IsPropertySupported(p)) {
    why += fmt::format("{}{} not supported", why.empty() ? "" : "; ", name);
    return std::nullopt;
  }
  T v{};
  const HRESULT hr = a->GetProperty(p, sizeof v, &v);
  if (FAILED(hr)) {
    why += fmt::format("{}GetProperty({}) failed: {}", why.empty() ? "" : "; ", name, hresult_text(hr));
    return std::nullopt;
  }
  return v;
}

}  // namespace

DxCore::DxCore() {
  dll_ = LoadLibraryExW(L"dxcore.dll", nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
  if (!dll_) {
    error_ = "dxcore.dll could not be loaded (Windows 10 before 2004?): " + last_error();
    return;
  }
  using CreateFactory = HRESULT(WINAPI*)(REFIID, void**);
  const auto create = proc<CreateFactory>(dll_, "DXCoreCreateAdapterFactory");
  if (!create) {
    error_ = "dxcore.dll has no DXCoreCreateAdapterFactory";
    return;
  }
  void* f = nullptr;
  const HRESULT hr = create(kIidAdapterFactory, &f);
  if (FAILED(hr) || !f) {
    error_ = "DXCoreCreateAdapterFactory failed: " + hresult_text(hr);
    return;
  }
  factory_ = f;
}

DxCore::~DxCore() {
  if (factory_) static_cast<IDXCoreAdapterFactory*>(factory_)->Release();
  if (dll_) FreeLibrary(dll_);
}

DxCoreAdapterFacts DxCore::adapter(const LUID& luid) const {
  DxCoreAdapterFacts out;
  if (!factory_) {
    out.why = error_;
    return out;
  }
  auto* factory = static_cast<IDXCoreAdapterFactory*>(factory_);
  IDXCoreAdapter* a = nullptr;
  const HRESULT hr = factory->GetAdapterByLuid(luid, kIidAdapter, reinterpret_cast<void**>(&a));
  if (FAILED(hr) || !a) {
    out.why = "GetAdapterByLuid failed: " + hresult_text(hr);
    return out;
  }
  // Booleans are one byte (dxcore_interface.h asserts sizeof(bool) == 1).
  if (const auto v = property<bool>(a, DXCoreAdapterProperty::IsIntegrated, "IsIntegrated", out.why))
    out.integrated = *v;
  if (const auto v = property<bool>(a, DXCoreAdapterProperty::IsHardware, "IsHardware", out.why))
    out.hardware = *v;
  if (const auto v =
          property<std::uint32_t>(a, DXCoreAdapterProperty::KmdModelVersion, "KmdModelVersion", out.why))
    out.wddm_version = detail::wddm_version_name(*v);
  a->Release();
  return out;
}

}  // namespace accel::platform::win
