// Display-class PCI devices from sysfs (<sys>/bus/pci/devices/*), with the
// attributes the kernel exports for each (Documentation/ABI/testing/sysfs-bus-pci):
// class, vendor, device, subsystem_*, boot_vga, *_link_speed/width, the bound
// driver, and amdgpu's own files (Documentation/gpu/amdgpu/driver-misc.rst).
// Also the integrated-or-discrete judgement, always with its basis.
#include <algorithm>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform::detail {

std::string PciAddress::str() const {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

std::optional<PciAddress> parse_pci_address(std::string_view s) {
  // [domain:]bus:device.function, hexadecimal.
  const std::string t = trim(s);
  const auto dot = t.rfind('.');
  if (dot == std::string::npos) return std::nullopt;
  const auto c2 = t.rfind(':', dot);
  if (c2 == std::string::npos || c2 == 0) return std::nullopt;
  const auto c1 = t.rfind(':', c2 - 1);
  const std::size_t bus_start = c1 == std::string::npos ? 0 : c1 + 1;
  const auto dom =
      c1 == std::string::npos ? std::optional<std::uint64_t>(0) : parse_uint(t.substr(0, c1), 16);
  const auto bus = parse_uint(t.substr(bus_start, c2 - bus_start), 16);
  const auto dev = parse_uint(t.substr(c2 + 1, dot - c2 - 1), 16);
  const auto fn = parse_uint(t.substr(dot + 1), 16);
  if (!dom || !bus || !dev || !fn || *dom > 0xffffffffull || *bus > 0xff || *dev > 0x1f || *fn > 7) {
    return std::nullopt;
  }
  PciAddress a;
  a.domain = static_cast<unsigned>(*dom);
  a.bus = static_cast<unsigned>(*bus);
  a.device = static_cast<unsigned>(*dev);
  a.function = static_cast<unsigned>(*fn);
  return a;
}

std::string vendor_name(unsigned vendor_id) {
  switch (vendor_id) {
    case 0x1002:
      return "amd";
    case 0x1022:
      return "amd";
    case 0x10de:
      return "nvidia";
    case 0x8086:
      return "intel";
    case 0x1a03:
      return "aspeed";
    case 0x102b:
      return "matrox";
    case 0x1234:
      return "qemu";
    case 0x1b36:
      return "redhat";
    case 0x1af4:
      return "virtio";
    case 0x15ad:
      return "vmware";
    case 0x1414:
      return "microsoft";
    case 0x106b:
      return "apple";
    case 0x5143:
      return "qualcomm";
    case 0x1ed5:
      return "moorethreads";
    default:
      return "other";
  }
}

bool is_known_amd_apu_device(unsigned device_id) {
  // amdgpu_drv.c pciidlist entries flagged AMD_IS_APU, and the APUs found by IP
  // discovery since (libdrm amdgpu.ids): Carrizo, Stoney, Raven, Picasso,
  // Renoir, Cezanne, Lucienne, Barcelo, Van Gogh, Yellow Carp/Rembrandt,
  // Raphael, Mendocino, Phoenix, Phoenix2, Strix Point, Strix Halo, Krackan.
  static const unsigned kIds[] = {0x9870, 0x9874, 0x9875, 0x9876, 0x9877, 0x98e4, 0x15dd, 0x15d8,
                                  0x1636, 0x1638, 0x164c, 0x15e7, 0x163f, 0x164d, 0x1681, 0x164e,
                                  0x1506, 0x15bf, 0x15c8, 0x150e, 0x1586, 0x1114, 0x1902};
  return std::find(std::begin(kIds), std::end(kIds), device_id) != std::end(kIds);
}

namespace {

bool is_intel_discrete_device(unsigned id) {
  // i915/xe PCI id tables (include/drm/intel/pciids.h): DG1, DG2 (Arc A-series,
  // Arc Pro, Flex), Ponte Vecchio (Data Center GPU Max), Battlemage (Arc B-series).
  return (id >= 0x4905 && id <= 0x4909) || (id >= 0x5690 && id <= 0x56cf) || (id >= 0x0bd0 && id <= 0x0bdb) ||
         (id >= 0xe202 && id <= 0xe21f);
}

std::string format_bytes_short(std::uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1ull << 30));
  return fmt::format("{} MiB", b >> 20);
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

std::optional<std::uint64_t> read_uint(const std::string& path, int base = 0) {
  const auto line = read_line(path);
  return line ? parse_uint(*line, base) : std::nullopt;
}

std::optional<PcieLink> read_link_attrs(const std::string& dir) {
  const auto cur = read_line(join(dir, "current_link_speed"));
  const auto max = read_line(join(dir, "max_link_speed"));
  const auto cur_w = read_uint(join(dir, "current_link_width"), 10);
  const auto max_w = read_uint(join(dir, "max_link_width"), 10);
  if (!cur && !max && !cur_w && !max_w) return std::nullopt;
  PcieLink l;
  l.current_speed = cur.value_or("");
  l.max_speed = max.value_or("");
  // A width of 0 means the link is down or unknown (pcie_link_width_show).
  if (cur_w && *cur_w > 0) l.current_width = static_cast<int>(*cur_w);
  if (max_w && *max_w > 0) l.max_width = static_cast<int>(*max_w);
  return l;
}

/// The link to the slot: AMD (and some NVIDIA) boards put a PCIe switch of
/// their own between the slot and the GPU, so the GPU's endpoint link is the
/// internal one. The upstream port of the topmost bridge of the GPU's own
/// vendor carries the link to the host.
std::optional<json> slot_link(const std::string& device_dir, unsigned vendor) {
  const std::string canonical = real_path(device_dir);
  if (canonical.empty()) return std::nullopt;
  std::string dir = canonical.substr(0, canonical.find_last_of('/'));
  std::optional<json> best;
  while (!dir.empty()) {
    const std::string name = base_name(dir);
    if (!parse_pci_address(name)) break;
    const auto v = read_uint(join(dir, "vendor"), 16);
    const auto cls = read_uint(join(dir, "class"), 16);
    if (!v || *v != vendor || !cls || (*cls >> 8) != 0x0604) break;  // PCI-to-PCI bridge of the same vendor
    // A root port (its parent is the host bridge "pci0000:00") belongs to the
    // CPU, even when the CPU and GPU vendors are the same (Intel).
    const std::string parent = dir.substr(0, dir.find_last_of('/'));
    if (!parse_pci_address(base_name(parent))) break;
    if (const auto l = read_link_attrs(dir)) {
      json j = *l;
      j["address"] = name;
      best = j;
    }
    dir = dir.substr(0, dir.find_last_of('/'));
  }
  return best;
}

}  // namespace

std::string pci_ids_name(const std::string& text, unsigned vendor, unsigned device) {
  // pci.ids: "vvvv  Vendor", then "\tdddd  Device", "\t\tssss ssss  Subsystem".
  const std::string vendor_key = fmt::format("{:04x}  ", vendor);
  const std::string device_key = fmt::format("\t{:04x}  ", device);
  bool in_vendor = false;
  for (const std::string_view line : lines_of(text)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != '\t') {
      if (in_vendor) break;
      in_vendor = starts_with(line, vendor_key);
      continue;
    }
    if (in_vendor && starts_with(line, device_key)) return trim(line.substr(device_key.size()));
  }
  return {};
}

namespace {

/// The bound driver: the `driver` symlink's target name, else DRIVER= in uevent.
void read_driver(const std::string& d, GpuHardware& g) {
  if (const std::string link = read_link(join(d, "driver")); !link.empty()) {
    g.driver = base_name(link);
  } else if (const auto uevent = read_text(join(d, "uevent"))) {
    for (const auto line : lines_of(*uevent)) {
      if (starts_with(line, "DRIVER=")) g.driver = trim(line.substr(7));
    }
  }
  if (g.driver.empty()) {
    g.not_collected["driver"] =
        "no kernel driver is bound to this device: nothing can use it until one is (nvidia, amdgpu, i915, "
        "xe)";
  }
}

/// vendor_info.pci: class, subsystem ids, revision, NUMA node and, behind a
/// board switch, the slot's link.
json pci_attributes(const std::string& d, std::uint64_t cls, const std::optional<std::uint64_t>& vendor) {
  json pci = json::object();
  pci["class"] = fmt::format("0x{:06x}", cls);
  if (const auto v = read_uint(join(d, "subsystem_vendor"), 16))
    pci["subsystem_vendor_id"] = fmt::format("0x{:04x}", *v);
  if (const auto v = read_uint(join(d, "subsystem_device"), 16))
    pci["subsystem_device_id"] = fmt::format("0x{:04x}", *v);
  if (const auto v = read_uint(join(d, "revision"), 16)) pci["revision"] = fmt::format("0x{:02x}", *v);
  // numa_node is -1 when the platform does not say (single socket, most VMs).
  if (const auto node = read_uint(join(d, "numa_node"), 10)) pci["numa_node"] = *node;
  if (vendor) {
    if (auto slot = slot_link(d, static_cast<unsigned>(*vendor))) pci["slot_link"] = *slot;
  }
  return pci;
}

/// amdgpu exports its memory sizes in bytes (amdgpu_vram_mgr.c,
/// amdgpu_gtt_mgr.c) and its product name; other drivers say nothing of
/// their VRAM in sysfs.
void read_memory(const std::string& d, GpuHardware& g) {
  if (g.driver == "amdgpu") {
    json amd = json::object();
    if (const auto v = read_uint(join(d, "mem_info_vram_total"), 10)) g.vram_bytes = *v;
    for (const char* key :
         {"mem_info_vram_used", "mem_info_vis_vram_total", "mem_info_gtt_total", "gpu_busy_percent"}) {
      if (const auto v = read_uint(join(d, key), 10)) amd[key] = *v;
    }
    for (const char* key : {"product_name", "power_dpm_force_performance_level"}) {
      if (const auto v = read_line(join(d, key))) amd[key] = *v;
    }
    if (const auto pn = read_line(join(d, "product_name"))) g.name = *pn;
    g.vendor_info["amdgpu"] = amd;
    if (!g.vram_bytes) g.not_collected["vram_bytes"] = "no mem_info_vram_total from amdgpu";
  } else if (g.vendor == "nvidia") {
    g.not_collected["vram_bytes"] = "sysfs does not give NVIDIA memory sizes; NVML does";
  } else {
    g.not_collected["vram_bytes"] =
        fmt::format("driver {} exports no VRAM size in sysfs", g.driver.empty() ? "(none)" : g.driver);
  }
}

/// pci.ids, read once per scan and only when a device needs a name from it.
class PciIds {
 public:
  explicit PciIds(const std::string& usr_share) : usr_share_(usr_share) {}
  /// The device's name, or "" with `why` set.
  std::string name(unsigned vendor, unsigned device, std::string& why) {
    if (!tried_) {
      tried_ = true;
      for (const char* rel : {"misc/pci.ids", "hwdata/pci.ids"}) {
        text_ = read_text(join(usr_share_, rel), nullptr, 8 << 20);
        if (text_) break;
      }
      if (!text_) error_ = "no pci.ids under " + usr_share_ + " (package pci.ids / hwdata)";
    }
    const std::string n = text_ ? pci_ids_name(*text_, vendor, device) : std::string();
    if (n.empty()) why = text_ ? "device not in pci.ids" : error_;
    return n;
  }

 private:
  std::string usr_share_;
  bool tried_ = false;
  std::optional<std::string> text_;
  std::string error_;
};

/// One display-class device directory `d` (its sysfs name `name`, class `cls`).
GpuHardware read_display_device(const std::string& d, const std::string& name, std::uint64_t cls,
                                PciIds& ids) {
  GpuHardware g;
  const auto addr = parse_pci_address(name);
  g.pci_address = addr ? addr->str() : name;
  const auto vendor = read_uint(join(d, "vendor"), 16);
  const auto device = read_uint(join(d, "device"), 16);
  if (vendor) g.vendor_id = fmt::format("0x{:04x}", *vendor);
  if (device) g.device_id = fmt::format("0x{:04x}", *device);
  g.vendor = vendor ? vendor_name(static_cast<unsigned>(*vendor)) : "other";
  if (!vendor) g.not_collected["vendor_id"] = "no readable " + join(d, "vendor");
  if (!device) g.not_collected["device_id"] = "no readable " + join(d, "device");
  read_driver(d, g);

  // boot_vga exists only for VGA-compatible devices (class 0300h), the only
  // ones firmware can boot a display on; a 3D controller (0302h) never is.
  if (const auto bv = read_uint(join(d, "boot_vga"), 10)) {
    g.boot_vga = *bv != 0;
  } else if ((cls >> 8) != 0x0300) {
    g.boot_vga = false;
  } else {
    g.not_collected["boot_vga"] = "no boot_vga attribute";
  }
  g.link = read_link_attrs(d);
  if (!g.link) {
    g.not_collected["link"] =
        "no PCIe link attributes: not a PCIe endpoint (graphics on the CPU die has no PCIe link)";
  }
  g.vendor_info["pci"] = pci_attributes(d, cls, vendor);
  read_memory(d, g);
  if (g.name.empty() && vendor && device) {
    std::string why;
    g.name = ids.name(static_cast<unsigned>(*vendor), static_cast<unsigned>(*device), why);
    if (g.name.empty()) g.not_collected["name"] = why;
  }
  return g;
}

}  // namespace

std::vector<GpuHardware> scan_pci_display_devices(const ProbeRoots& roots, std::string* error) {
  std::vector<GpuHardware> out;
  const std::string dir = join(roots.sys, "bus/pci/devices");
  std::string err;
  const auto names = list_dir(dir, &err);
  if (!err.empty()) {
    if (error) *error = err;
    return out;
  }
  PciIds ids(roots.usr_share);
  for (const auto& name : names) {
    const std::string d = join(dir, name);
    const auto cls = read_uint(join(d, "class"), 16);
    if (!cls || (*cls >> 16) != 0x03) continue;  // PCI base class 03h: display controller
    out.push_back(read_display_device(d, name, *cls, ids));
  }
  std::sort(out.begin(), out.end(),
            [](const GpuHardware& a, const GpuHardware& b) { return a.pci_address < b.pci_address; });
  return out;
}

void classify_integrated(GpuHardware& g, const std::vector<KfdNode>& nodes) {
  const auto addr = parse_pci_address(g.pci_address);
  const unsigned device = static_cast<unsigned>(parse_uint(g.device_id, 16).value_or(0));
  auto set = [&](bool integrated, std::string basis) {
    g.integrated = integrated;
    g.integrated_basis = std::move(basis);
    g.not_collected.erase("integrated");
  };
  if (g.vendor == "amd") {
    const KfdNode* node = nullptr;
    if (g.vendor_info.contains("kfd")) {
      const int id = g.vendor_info["kfd"].value("node", -1);
      for (const auto& n : nodes) {
        if (n.id == id) node = &n;
      }
    }
    if (node && node->is_cpu() && node->is_gpu()) {
      set(true, fmt::format("KFD node {} has both CPU cores ({}) and SIMDs ({}): an APU", node->id,
                            node->get("cpu_cores_count"), node->get("simd_count")));
    } else if (is_apu_only_gfx_target(g.gfx_target)) {
      set(true,
          fmt::format("{} is a target only AMD APUs carry (LLVM AMDGPU processor table)", g.gfx_target));
    } else if (is_known_amd_apu_device(device)) {
      set(true, fmt::format("device id {} is AMD APU graphics (amdgpu PCI id table)", g.device_id));
    } else if (g.vram_bytes && *g.vram_bytes <= (1ull << 30)) {
      set(true, fmt::format("likely: only {} of VRAM, the size of an APU's carve-out from system memory",
                            format_bytes_short(*g.vram_bytes)));
    } else if (!g.gfx_target.empty() || g.vram_bytes) {
      std::string why = fmt::format("device id {} is not in the APU id table", g.device_id);
      if (!g.gfx_target.empty()) why = fmt::format("{} is not an APU target, {}", g.gfx_target, why);
      if (node) why += fmt::format(", KFD node {} has no CPU cores", node->id);
      if (g.vram_bytes) why += fmt::format(", {} of dedicated VRAM", format_bytes_short(*g.vram_bytes));
      set(false, why);
    } else {
      g.not_collected["integrated"] =
          "no KFD node, no VRAM size and the device id is not in the APU id table";
    }
  } else if (g.vendor == "intel") {
    if (addr && addr->bus == 0 && addr->device == 2 && addr->function == 0) {
      set(true, "Intel integrated graphics sits at PCI 00:02.0");
    } else if (is_intel_discrete_device(device)) {
      set(false,
          fmt::format("device id {} is an Intel discrete GPU (Arc / Data Center GPU, i915/xe id tables)",
                      g.device_id));
    } else {
      set(false, "likely: not at PCI 00:02.0, where Intel integrated graphics sits");
    }
  } else if (g.vendor == "nvidia") {
    set(false,
        "NVIDIA GPUs on the PCI bus are discrete boards (Jetson/Tegra integrated GPUs are not PCI devices)");
  } else if (g.vendor == "aspeed" || g.vendor == "matrox") {
    g.integrated_basis = "display controller of the server's management chip (BMC): not a compute device";
    g.vendor_info["display_only"] = true;
  } else if (g.vendor == "qemu" || g.vendor == "redhat" || g.vendor == "virtio" || g.vendor == "vmware" ||
             g.vendor == "microsoft") {
    g.integrated_basis = "virtual display adapter of a hypervisor: not a compute device";
    g.vendor_info["display_only"] = true;
  } else {
    g.not_collected["integrated"] = fmt::format("no rule for vendor {}", g.vendor_id);
  }
}

}  // namespace accel::platform::detail
