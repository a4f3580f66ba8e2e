// DirectML devices (torch-directml's privateuseone:N, DeviceInfo backend
// "dml") joined to the Windows adapters DXGI lists
// (environment.windows.adapters), so each torch device is known by its LUID
// and its DXGI index, and picking "device 0" on the integrated GPU shows.
//
// torch-directml gives only a name per device (device_name(i)), no memory and
// no LUID. Join order: the name (case-insensitive, surrounding spaces
// ignored); among several adapters with that name, the device's memory when
// it has one (within 5%); else the order: the k-th device of that name is the
// k-th adapter of that name in DXGI order (EnumAdapters1: torch-directml's
// device index follows it, like DirectML's device_id; not verified on a real
// machine by this project). Software adapters (WARP, Basic Render) never join.
// Pure: tested on recorded adapter lists (tests/unit/directml_join_test.cpp).
#pragma once

#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// Sets luid, dxgi_index and adapter_join ("name", "name and memory", "name,
/// then order: 2nd of 2 adapters named ...") of every dml device that joins,
/// takes the adapter's dedicated memory and integrated flag where the device
/// has none, and says in adapter_join when torch-directml's index differs
/// from the DXGI index. A device that joins nothing gets
/// not_collected["adapter"] with the adapters there are. Other devices are
/// left alone.
void join_windows_adapters(std::vector<DeviceInfo>& devices, const std::vector<WindowsAdapter>& adapters);

}  // namespace accel
