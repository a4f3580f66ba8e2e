// The AMD KFD topology: <sys>/class/kfd/kfd/topology/nodes/N/properties, one
// node per CPU socket and per GPU (an APU can be one node holding both). The
// format is "name value" lines of decimal numbers, written by
// drivers/gpu/drm/amd/amdkfd/kfd_topology.c (node_show); it is what ROCm's
// runtime (ROCT/rocminfo) reads to find agents.
#include <algorithm>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform {

std::string gfx_name_from_target_version(unsigned long version) {
  // kfd_topology.c: gfx_target_version = major * 10000 + minor * 100 + stepping,
  // and the LLVM target prints minor and stepping as one hex digit each:
  // 90010 -> gfx90a, 100302 -> gfx1032, 110001 -> gfx1101.
  if (version == 0) return {};
  const unsigned long major = version / 10000;
  const unsigned long minor = (version / 100) % 100;
  const unsigned long step = version % 100;
  return fmt::format("gfx{}{:x}{:x}", major, minor, step);
}

namespace detail {

std::uint64_t KfdNode::get(const std::string& key, std::uint64_t fallback) const {
  const auto it = props.find(key);
  return it == props.end() ? fallback : it->second;
}

std::string KfdNode::gfx() const { return gfx_name_from_target_version(get("gfx_target_version")); }

std::map<std::string, std::uint64_t> parse_kfd_properties(std::string_view text) {
  std::map<std::string, std::uint64_t> out;
  for (const std::string_view line : lines_of(text)) {
    const auto words = split_ws(line);
    if (words.size() != 2) continue;
    if (const auto v = parse_uint(words[1], 10)) out[words[0]] = *v;
  }
  return out;
}

std::vector<KfdNode> read_kfd_nodes(const std::string& sys_root, std::string* error) {
  std::vector<KfdNode> nodes;
  const std::string dir = join(sys_root, "class/kfd/kfd/topology/nodes");
  std::string err;
  const auto names = list_dir(dir, &err);
  if (!err.empty()) {
    if (error) *error = err + " (no AMD KFD: amdgpu not loaded, or a kernel without ROCm compute support)";
    return nodes;
  }
  for (const auto& name : names) {
    const auto id = parse_uint(name, 10);
    if (!id) continue;
    std::string perr;
    const auto text = read_text(join(join(dir, name), "properties"), &perr);
    if (!text) continue;
    KfdNode n;
    n.id = static_cast<int>(*id);
    n.props = parse_kfd_properties(*text);
    nodes.push_back(std::move(n));
  }
  std::sort(nodes.begin(), nodes.end(), [](const KfdNode& a, const KfdNode& b) { return a.id < b.id; });
  if (nodes.empty() && error) *error = dir + ": no readable node properties";
  return nodes;
}

bool is_apu_only_gfx_target(std::string_view gfx) {
  static const char* const kApu[] = {"gfx801",  "gfx902",  "gfx909",  "gfx90c",  "gfx1013",
                                     "gfx1033", "gfx1035", "gfx1036", "gfx1037", "gfx1103",
                                     "gfx1150", "gfx1151", "gfx1152"};
  for (const char* a : kApu) {
    if (gfx == a) return true;
  }
  return false;
}

void merge_kfd(std::vector<GpuHardware>& gpus, const std::vector<KfdNode>& nodes) {
  for (auto& g : gpus) {
    if (g.vendor != "amd") continue;
    const auto addr = parse_pci_address(g.pci_address);
    const auto vendor = parse_uint(g.vendor_id, 16);
    const auto device = parse_uint(g.device_id, 16);
    const KfdNode* match = nullptr;
    for (const auto& n : nodes) {
      if (!n.is_gpu() || !addr) continue;
      if (n.get("location_id", ~0ull) != addr->location_id()) continue;
      // "domain" appeared in kernel 5.x; older topologies match on bus/devfn alone.
      if (n.props.count("domain") && n.get("domain") != addr->domain) continue;
      if (vendor && n.props.count("vendor_id") && n.get("vendor_id") != *vendor) continue;
      if (device && n.props.count("device_id") && n.get("device_id") != *device) continue;
      match = &n;
      break;
    }
    if (!match) {
      g.not_collected["gfx_target"] =
          nodes.empty() ? "no KFD topology (amdgpu without ROCm compute support, or KFD not loaded)"
                        : fmt::format("no KFD GPU node with location_id {} (bus << 8 | devfn)",
                                      addr ? addr->location_id() : 0);
      continue;
    }
    g.gfx_target = match->gfx();
    if (g.gfx_target.empty()) g.not_collected["gfx_target"] = "the KFD node's gfx_target_version is 0";
    json kfd = json::object();
    kfd["node"] = match->id;
    for (const char* key : {"gfx_target_version", "simd_count", "simd_per_cu", "array_count",
                            "cpu_cores_count", "local_mem_size", "max_engine_clk_fcompute",
                            "drm_render_minor", "location_id", "domain", "num_xcc"}) {
      if (match->props.count(key)) kfd[key] = match->get(key);
    }
    const auto simd_per_cu = match->get("simd_per_cu");
    if (simd_per_cu > 0) kfd["compute_units"] = match->get("simd_count") / simd_per_cu;
    g.vendor_info["kfd"] = kfd;
  }
}

}  // namespace detail
}  // namespace accel::platform
