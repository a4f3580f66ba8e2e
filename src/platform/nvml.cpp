// NVIDIA's management library (NVML), opened at run time: no build-time SDK.
// The few types and entry points used are declared here, copied in meaning
// from nvml.h (CUDA toolkit / NVML API reference, "Device Queries"); only
// stable, versioned entry points (_v2, _v3) and plain-old-data structs whose
// layout has not changed since their introduction.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/multi/link_bound.hpp"
#include "platform/detail.hpp"
#include "platform/gpu_busy.hpp"
#include "platform/process.hpp"
#include "platform/topology_detail.hpp"

namespace accel::platform::detail {

namespace {

// ---- from nvml.h
using nvmlReturn_t = int;  // enum nvmlReturn_enum; 0 = NVML_SUCCESS
constexpr nvmlReturn_t NVML_SUCCESS = 0;
constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr int NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2;  // nvmlClockType_t
constexpr int NVML_TEMPERATURE_GPU = 0;                                        // nvmlTemperatureSensors_t

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3.
struct nvmlPciInfo_t {
  char busIdLegacy[16];  // NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // (device id << 16) | vendor id
  unsigned int pciSubSystemId;  // (subsystem device << 16) | subsystem vendor
  char busId[32];               // NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE, "00000000:19:00.0"
};
// nvmlMemory_t (v1): bytes.
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// nvmlUtilization_t: percent of the last sample period (1/6 s to 1 s).
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
// nvmlProcessInfo_v1_t, filled by the unversioned nvmlDeviceGetComputeRunningProcesses.
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using DriverVersionFn = nvmlReturn_t (*)(char*, unsigned int);
using CountFn = nvmlReturn_t (*)(unsigned int*);
using HandleFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using NameFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using PciFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using MemFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
using CcFn = nvmlReturn_t (*)(nvmlDevice_t, int*, int*);
using ClockFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);
using UtilFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*);
using ProcFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, void*);
using UintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using IntFn = nvmlReturn_t (*)(nvmlDevice_t, int*);
using TempFn = nvmlReturn_t (*)(nvmlDevice_t, int, unsigned int*);
using U64Fn = nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*);

/// NVML opened and initialised for the lifetime of one probe.
class Nvml {
 public:
  Nvml() {
    lib_ = DynLib::open(nvml_library_names());
    if (!lib_) {
      error_ = fmt::format("{} not found: {}", nvml_library_names().front(), lib_.error);
      return;
    }
    error_string_ = fn<ErrorStringFn>("nvmlErrorString");
    auto init = fn<InitFn>("nvmlInit_v2");
    if (!init) {
      error_ = "nvmlInit_v2 missing from " + lib_.name;
      return;
    }
    const nvmlReturn_t r = init();
    if (r != NVML_SUCCESS) {
      error_ = "nvmlInit_v2 failed: " + describe(r);
      return;
    }
    ok_ = true;
  }
  ~Nvml() {
    if (ok_) {
      if (auto shutdown = fn<ShutdownFn>("nvmlShutdown")) shutdown();
    }
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }

  template <typename F>
  F fn(const char* name) const {
    return reinterpret_cast<F>(lib_.sym(name));
  }
  std::string describe(nvmlReturn_t r) const {
    const char* s = error_string_ ? error_string_(r) : nullptr;
    return fmt::format("{} ({})", r, s ? s : "NVML error");
  }

 private:
  DynLib lib_;
  ErrorStringFn error_string_ = nullptr;
  bool ok_ = false;
  std::string error_;
};

std::string bus_id_to_sysfs(const char* bus_id) {
  const auto a = parse_pci_address(bus_id);
  return a ? a->str() : std::string(bus_id);
}

/// One device being read: what every query step needs. Failures of single
/// queries go into `g.not_collected` as "nvml.<field>".
struct DeviceRead {
  const Nvml& nvml;
  nvmlDevice_t dev;
  GpuHardware& g;
  json info;  ///< becomes vendor_info.nvml

  void note(const char* field, nvmlReturn_t r) {
    g.not_collected["nvml." + std::string(field)] = nvml.describe(r);
  }
  void missing(const char* field, const char* symbol) {
    g.not_collected["nvml." + std::string(field)] = std::string(symbol) + " not in this NVML";
  }
};

/// Name, compute capability and memory.
void read_identity(DeviceRead& d) {
  if (auto f = d.nvml.fn<NameFn>("nvmlDeviceGetName")) {
    char name[96] = {0};  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
    if (const auto r = f(d.dev, name, sizeof name); r == NVML_SUCCESS) {
      d.g.name = name;
      d.g.not_collected.erase("name");
    } else {
      d.note("name", r);
    }
  }
  if (auto f = d.nvml.fn<CcFn>("nvmlDeviceGetCudaComputeCapability")) {
    int major = 0, minor = 0;
    if (const auto r = f(d.dev, &major, &minor); r == NVML_SUCCESS) {
      d.g.compute_capability = fmt::format("{}.{}", major, minor);
    } else {
      d.note("compute_capability", r);
    }
  } else {
    d.missing("compute_capability", "nvmlDeviceGetCudaComputeCapability");
  }
  if (auto f = d.nvml.fn<MemFn>("nvmlDeviceGetMemoryInfo")) {
    nvmlMemory_t m{};
    if (const auto r = f(d.dev, &m); r == NVML_SUCCESS) {
      d.g.vram_bytes = m.total;
      d.g.not_collected.erase("vram_bytes");
      d.info["memory_total_bytes"] = m.total;
      d.info["memory_used_bytes"] = m.used;
      d.info["memory_free_bytes"] = m.free;
    } else {
      d.note("memory", r);
    }
  }
}

/// Clocks in MHz (current and maximum, SM, memory and graphics) and the
/// utilisation.
void read_clocks(DeviceRead& d) {
  const auto clock = d.nvml.fn<ClockFn>("nvmlDeviceGetClockInfo");
  const auto max_clock = d.nvml.fn<ClockFn>("nvmlDeviceGetMaxClockInfo");
  for (const auto& [key, type] : {std::pair<const char*, int>{"sm", NVML_CLOCK_SM},
                                  {"mem", NVML_CLOCK_MEM},
                                  {"graphics", NVML_CLOCK_GRAPHICS}}) {
    unsigned int mhz = 0;
    if (clock) {
      if (const auto r = clock(d.dev, type, &mhz); r == NVML_SUCCESS)
        d.info[fmt::format("clock_{}_mhz", key)] = mhz;
    }
    if (max_clock) {
      if (const auto r = max_clock(d.dev, type, &mhz); r == NVML_SUCCESS) {
        d.info[fmt::format("max_clock_{}_mhz", key)] = mhz;
      }
    }
  }
  if (auto f = d.nvml.fn<UtilFn>("nvmlDeviceGetUtilizationRates")) {
    nvmlUtilization_t u{};
    if (const auto r = f(d.dev, &u); r == NVML_SUCCESS) {
      d.info["utilization_gpu_percent"] = u.gpu;
      d.info["utilization_memory_percent"] = u.memory;
    } else {
      d.note("utilization", r);
    }
  }
}

/// Processes with a compute context: count with a null buffer (NVML answers
/// INSUFFICIENT_SIZE with the count), so no struct layout is assumed; then
/// the pids through the v1 entry point, whose struct never changed.
void read_processes(DeviceRead& d) {
  ProcFn procs = nullptr;
  for (const char* name :
       {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
        "nvmlDeviceGetComputeRunningProcesses"}) {
    if ((procs = d.nvml.fn<ProcFn>(name))) break;
  }
  if (!procs) return;
  unsigned int count = 0;
  const auto r = procs(d.dev, &count, nullptr);
  if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE) {
    d.info["compute_processes"] = count;
  } else {
    d.note("compute_processes", r);
  }
  if (auto v1 = d.nvml.fn<ProcFn>("nvmlDeviceGetComputeRunningProcesses"); v1 && count > 0) {
    std::vector<nvmlProcessInfo_v1_t> list(count + 8);
    unsigned int n = static_cast<unsigned int>(list.size());
    if (v1(d.dev, &n, list.data()) == NVML_SUCCESS) {
      json pids = json::array();
      int others = 0;
      for (unsigned int i = 0; i < n && i < list.size(); ++i) {
        pids.push_back(list[i].pid);
        if (static_cast<int>(list[i].pid) != static_cast<int>(process_id())) ++others;
      }
      d.info["compute_process_pids"] = pids;
      d.info["other_compute_processes"] = others;
    }
  }
}

/// Power, temperature, performance state, the PCIe link as NVML sees it
/// (the GPU's own view, which also works where sysfs hides the link, e.g.
/// in some VMs) and why the clocks are held back.
void read_state(DeviceRead& d) {
  if (auto f = d.nvml.fn<UintFn>("nvmlDeviceGetPowerUsage")) {
    unsigned int mw = 0;
    if (const auto r = f(d.dev, &mw); r == NVML_SUCCESS) d.info["power_w"] = mw / 1000.0;
  }
  if (auto f = d.nvml.fn<UintFn>("nvmlDeviceGetEnforcedPowerLimit")) {
    unsigned int mw = 0;
    if (const auto r = f(d.dev, &mw); r == NVML_SUCCESS) d.info["power_limit_w"] = mw / 1000.0;
  }
  if (auto f = d.nvml.fn<TempFn>("nvmlDeviceGetTemperature")) {
    unsigned int c = 0;
    if (const auto r = f(d.dev, NVML_TEMPERATURE_GPU, &c); r == NVML_SUCCESS) d.info["temperature_c"] = c;
  }
  if (auto f = d.nvml.fn<IntFn>("nvmlDeviceGetPerformanceState")) {
    int p = 0;
    if (const auto r = f(d.dev, &p); r == NVML_SUCCESS) d.info["performance_state"] = fmt::format("P{}", p);
  }
  for (const auto& [key, sym] :
       {std::pair<const char*, const char*>{"pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration"},
        {"pcie_width", "nvmlDeviceGetCurrPcieLinkWidth"},
        {"pcie_max_gen", "nvmlDeviceGetMaxPcieLinkGeneration"},
        {"pcie_max_width", "nvmlDeviceGetMaxPcieLinkWidth"}}) {
    if (auto f = d.nvml.fn<UintFn>(sym)) {
      unsigned int v = 0;
      if (f(d.dev, &v) == NVML_SUCCESS) d.info[key] = v;
    }
  }
  U64Fn reasons_fn = d.nvml.fn<U64Fn>("nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons_fn) reasons_fn = d.nvml.fn<U64Fn>("nvmlDeviceGetCurrentClocksThrottleReasons");
  if (reasons_fn) {
    unsigned long long mask = 0;
    if (const auto r = reasons_fn(d.dev, &mask); r == NVML_SUCCESS) {
      d.info["clocks_event_reasons_mask"] = fmt::format("0x{:x}", mask);
      d.info["clocks_event_reasons"] = decode_throttle_reasons(mask);
    } else {
      d.note("clocks_event_reasons", r);
    }
  }
}

/// Reads one device into `g`; failures of single queries go into `g.not_collected`.
void fill_device(const Nvml& nvml, nvmlDevice_t dev, GpuHardware& g) {
  DeviceRead d{nvml, dev, g, g.vendor_info.value("nvml", json::object())};
  read_identity(d);
  read_clocks(d);
  read_processes(d);
  read_state(d);
  g.vendor_info["nvml"] = d.info;
}

/// NVML kept open while the sampler runs: the device handles and PCI ids
/// looked up once, then nvmlDeviceGetUtilizationRates per read.
class NvmlBusySource final : public GpuBusySource {
 public:
  struct Device {
    nvmlDevice_t handle;
    std::string id, name;
  };
  NvmlBusySource(std::unique_ptr<Nvml> nvml, UtilFn util, std::vector<Device> devices)
      : nvml_(std::move(nvml)), util_(util), devices_(std::move(devices)) {}
  std::vector<GpuBusyReading> read() override {
    std::vector<GpuBusyReading> out;
    for (const auto& d : devices_) {
      nvmlUtilization_t u{};
      if (util_(d.handle, &u) != NVML_SUCCESS) continue;  // this time only (e.g. GPU_IS_LOST)
      GpuBusyReading r;
      r.id = d.id;
      r.name = d.name;
      r.source = "NVML nvmlDeviceGetUtilizationRates";
      r.busy_percent = u.gpu;
      r.engines_percent = {{"gpu", static_cast<double>(u.gpu)}, {"memory", static_cast<double>(u.memory)}};
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  std::unique_ptr<Nvml> nvml_;
  UtilFn util_;
  std::vector<Device> devices_;
};

}  // namespace

std::vector<std::string> decode_throttle_reasons(std::uint64_t mask) {
  // nvml.h nvmlClocksEventReason* / nvmlClocksThrottleReason* bits.
  static const std::pair<std::uint64_t, const char*> kBits[] = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  };
  std::vector<std::string> out;
  std::uint64_t known = 0;
  for (const auto& [bit, name] : kBits) {
    known |= bit;
    if (mask & bit) out.emplace_back(name);
  }
  if (mask & ~known) out.push_back(fmt::format("unknown_0x{:x}", mask & ~known));
  return out;
}

std::string nvml_driver_version(std::string* error) {
  try {
    Nvml nvml;
    if (!nvml.ok()) {
      if (error) *error = nvml.error();
      return {};
    }
    auto f = nvml.fn<DriverVersionFn>("nvmlSystemGetDriverVersion");
    if (!f) {
      if (error) *error = "nvmlSystemGetDriverVersion missing";
      return {};
    }
    char buf[80] = {0};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
    if (const auto r = f(buf, sizeof buf); r != NVML_SUCCESS) {
      if (error) *error = "nvmlSystemGetDriverVersion failed: " + nvml.describe(r);
      return {};
    }
    return buf;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return {};
  }
}

namespace {

using TopoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int*);
using P2pFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlDevice_t, int, int*);
using LinkStateFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, int*);
using LinkPciFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, nvmlPciInfo_t*);
using LinkTypeFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int, int*);
constexpr unsigned kNvlinkMaxLinks = 36;  // NVML_NVLINK_MAX_LINKS
constexpr int kP2pCapsRead = 0;           // NVML_P2P_CAPS_INDEX_READ
constexpr int kNvlinkRemoteSwitch = 2;    // NVML_NVLINK_DEVICE_TYPE_SWITCH

/// One GPU's active NVLinks: the PCI address at the far end of each, and
/// how many end at an NVSwitch.
struct NvlinkEnds {
  std::vector<std::string> peers;
  int to_switch = 0;
  int active = 0;
};

NvlinkEnds nvlink_ends(const Nvml& nvml, nvmlDevice_t dev) {
  NvlinkEnds e;
  const auto state = nvml.fn<LinkStateFn>("nvmlDeviceGetNvLinkState");
  const auto remote = nvml.fn<LinkPciFn>("nvmlDeviceGetNvLinkRemotePciInfo_v2");
  const auto type = nvml.fn<LinkTypeFn>("nvmlDeviceGetNvLinkRemoteDeviceType");
  if (!state) return e;
  for (unsigned link = 0; link < kNvlinkMaxLinks; ++link) {
    int active = 0;
    if (state(dev, link, &active) != NVML_SUCCESS)
      continue;  // NOT_SUPPORTED / INVALID_ARGUMENT past the last link
    if (!active) continue;
    ++e.active;
    int t = -1;
    if (type && type(dev, link, &t) == NVML_SUCCESS && t == kNvlinkRemoteSwitch) {
      ++e.to_switch;
      continue;
    }
    nvmlPciInfo_t pci{};
    if (remote && remote(dev, link, &pci) == NVML_SUCCESS) e.peers.push_back(bus_id_to_sysfs(pci.busId));
  }
  return e;
}

}  // namespace

void merge_nvml_topology(Topology& t, const std::vector<GpuHardware>& gpus) {
  std::vector<std::pair<std::string, unsigned>> nvidia;  // address, NVML index
  for (const auto& g : gpus) {
    if (g.vendor == "nvidia" && g.vendor_info.contains("nvml") && g.vendor_info["nvml"].contains("index")) {
      nvidia.emplace_back(g.pci_address, g.vendor_info["nvml"]["index"].get<unsigned>());
    }
  }
  if (nvidia.size() < 2) return;
  Nvml nvml;
  if (!nvml.ok()) {
    t.not_collected["nvml"] = nvml.error();
    return;
  }
  const auto handle_fn = nvml.fn<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
  const auto topo_fn = nvml.fn<TopoFn>("nvmlDeviceGetTopologyCommonAncestor");
  const auto p2p_fn = nvml.fn<P2pFn>("nvmlDeviceGetP2PStatus");
  if (!handle_fn) {
    t.not_collected["nvml"] = "nvmlDeviceGetHandleByIndex_v2 missing";
    return;
  }
  std::map<std::string, nvmlDevice_t> handle;
  std::map<std::string, NvlinkEnds> ends;
  for (const auto& [addr, index] : nvidia) {
    nvmlDevice_t d = nullptr;
    if (handle_fn(index, &d) == NVML_SUCCESS) {
      handle[addr] = d;
      ends[addr] = nvlink_ends(nvml, d);
    }
  }
  auto cc_of = [&](const std::string& addr) {
    for (const auto& g : gpus) {
      if (g.pci_address == addr) return g.compute_capability;
    }
    return std::string();
  };
  for (auto& p : t.pairs) {
    if (!handle.count(p.a) || !handle.count(p.b)) continue;
    p.sources.push_back("nvml");
    int level = -1;
    if (topo_fn && topo_fn(handle[p.a], handle[p.b], &level) == NVML_SUCCESS) {
      p.nvml_level = nvml_topology_level_name(level);
    }
    int status = -1;
    if (p2p_fn && p2p_fn(handle[p.a], handle[p.b], kP2pCapsRead, &status) == NVML_SUCCESS) {
      p.p2p_status = nvml_p2p_status_name(status);
      p.p2p_status_source = "nvml";
    }
    const NvlinkEnds& ea = ends[p.a];
    const NvlinkEnds& eb = ends[p.b];
    const int direct = static_cast<int>(std::count(ea.peers.begin(), ea.peers.end(), p.b));
    const auto per_link = multi::nvlink_link_gbps(cc_of(p.a));
    if (direct > 0) {
      p.link = "nvlink";
      p.nvlinks = direct;
    } else if (ea.to_switch > 0 && eb.to_switch > 0) {
      p.link = "nvlink";
      p.via_nvswitch = true;
      p.nvlinks = std::min(ea.to_switch, eb.to_switch);
    } else if (level == 0 || level == 10 || level == 20) {
      p.link = "pcie_switch";
    } else if (level == 30 || level == 40) {
      p.link = "pcie_host_bridge";
    } else if (level == 50) {
      p.link = "cross_numa";
    }
    if (p.link == "nvlink" && per_link) {
      p.bound_gbps = *per_link * p.nvlinks;
      p.bound_source = fmt::format("NVLink: {} link(s){} x {:g} GB/s per direction (compute capability {})",
                                   p.nvlinks, p.via_nvswitch ? " to NVSwitches" : "", *per_link, cc_of(p.a));
    }
  }
}

void merge_nvml(std::vector<GpuHardware>& gpus, NotCollected& errors) {
  Nvml nvml;
  auto note_all = [&](const std::string& why) {
    errors["nvml"] = why;
    for (auto& g : gpus) {
      if (g.vendor == "nvidia") g.not_collected["nvml"] = why;
    }
  };
  if (!nvml.ok()) {
    note_all(nvml.error());
    return;
  }
  auto count_fn = nvml.fn<CountFn>("nvmlDeviceGetCount_v2");
  auto handle_fn = nvml.fn<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
  auto pci_fn = nvml.fn<PciFn>("nvmlDeviceGetPciInfo_v3");
  if (!count_fn || !handle_fn || !pci_fn) {
    note_all("this NVML lacks nvmlDeviceGetCount_v2 / GetHandleByIndex_v2 / GetPciInfo_v3 (driver too old)");
    return;
  }
  unsigned int count = 0;
  if (const auto r = count_fn(&count); r != NVML_SUCCESS) {
    note_all("nvmlDeviceGetCount_v2 failed: " + nvml.describe(r));
    return;
  }
  for (unsigned int i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    if (const auto r = handle_fn(i, &dev); r != NVML_SUCCESS) {
      // e.g. NVML_ERROR_NO_PERMISSION, or a GPU that fell off the bus (GPU_IS_LOST).
      errors[fmt::format("nvml.device{}", i)] = "nvmlDeviceGetHandleByIndex_v2 failed: " + nvml.describe(r);
      continue;
    }
    nvmlPciInfo_t pci{};
    std::string address;
    if (pci_fn(dev, &pci) == NVML_SUCCESS) address = bus_id_to_sysfs(pci.busId);
    GpuHardware* g = nullptr;
    for (auto& cand : gpus) {
      if (!address.empty() && cand.pci_address == address) g = &cand;
    }
    if (!g) {
      // NVML sees a GPU that the sysfs scan did not (sysfs hidden or not mounted).
      GpuHardware added;
      added.pci_address = address;
      added.vendor = "nvidia";
      added.vendor_id = fmt::format("0x{:04x}", pci.pciDeviceId & 0xffff);
      added.device_id = fmt::format("0x{:04x}", pci.pciDeviceId >> 16);
      added.integrated = false;
      added.integrated_basis = "NVIDIA GPUs on the PCI bus are discrete boards";
      added.not_collected["sysfs"] = "seen by NVML only: not in the sysfs PCI scan";
      gpus.push_back(std::move(added));
      g = &gpus.back();
    }
    g->vendor_info["nvml"] = json{{"index", i}};
    fill_device(nvml, dev, *g);
  }
}

std::unique_ptr<GpuBusySource> open_nvml_gpu_busy_source(std::string& why) {
  try {
    auto nvml = std::make_unique<Nvml>();
    if (!nvml->ok()) {
      why = nvml->error();
      return nullptr;
    }
    const auto count_fn = nvml->fn<CountFn>("nvmlDeviceGetCount_v2");
    const auto handle_fn = nvml->fn<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
    const auto util_fn = nvml->fn<UtilFn>("nvmlDeviceGetUtilizationRates");
    const auto pci_fn = nvml->fn<PciFn>("nvmlDeviceGetPciInfo_v3");
    const auto name_fn = nvml->fn<NameFn>("nvmlDeviceGetName");
    if (!count_fn || !handle_fn || !util_fn) {
      why = "this NVML lacks nvmlDeviceGetCount_v2 / GetHandleByIndex_v2 / GetUtilizationRates";
      return nullptr;
    }
    unsigned int count = 0;
    if (const auto r = count_fn(&count); r != NVML_SUCCESS) {
      why = "nvmlDeviceGetCount_v2 failed: " + nvml->describe(r);
      return nullptr;
    }
    std::vector<NvmlBusySource::Device> devices;
    for (unsigned int i = 0; i < count; ++i) {
      nvmlDevice_t dev = nullptr;
      if (handle_fn(i, &dev) != NVML_SUCCESS) continue;
      NvmlBusySource::Device d{dev, fmt::format("nvml:{}", i), ""};
      nvmlPciInfo_t pci{};
      if (pci_fn && pci_fn(dev, &pci) == NVML_SUCCESS) d.id = "pci:" + bus_id_to_sysfs(pci.busId);
      char name[96] = {0};
      if (name_fn && name_fn(dev, name, sizeof name) == NVML_SUCCESS) d.name = name;
      devices.push_back(std::move(d));
    }
    if (devices.empty()) {
      why = fmt::format("NVML lists {} GPU(s) and none could be opened", count);
      return nullptr;
    }
    return std::make_unique<NvmlBusySource>(std::move(nvml), util_fn, std::move(devices));
  } catch (const std::exception& e) {
    why = std::string("NVML: ") + e.what();
    return nullptr;
  }
}

}  // namespace accel::platform::detail
