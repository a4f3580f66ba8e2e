#include "core/report/multi_tables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/evidence_views.hpp"
#include "core/report/digest.hpp"
#include "core/units.hpp"

namespace accel {

namespace {

/// A plain table: columns as wide as their widest cell (capped), lines cut
/// at the terminal's width.
class Grid {
 public:
  explicit Grid(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str(const ConsoleStyle& style) const {
    std::vector<std::size_t> w;
    for (const auto& r : rows_) {
      for (std::size_t i = 0; i < r.size(); ++i) {
        if (w.size() <= i) w.push_back(0);
        w[i] = std::min<std::size_t>(std::max(w[i], r[i].size()), 48);
      }
    }
    std::string out;
    const auto limit = static_cast<std::size_t>(std::max(style.width, 40));
    for (const auto& r : rows_) {
      std::string line;
      for (std::size_t i = 0; i < r.size(); ++i) {
        std::string cell = r[i].size() > w[i] ? r[i].substr(0, w[i] - 1) + "~" : r[i];
        if (i + 1 < r.size()) cell.resize(w[i], ' ');
        line += (i ? "  " : "") + cell;
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += (line.size() > limit ? line.substr(0, limit - 1) + "~" : line) + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string metric(const Result& r, const char* name, const char* fmt_spec = "{:.3g}") {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? "-" : fmt::format(fmt::runtime(fmt_spec), it->second);
}

double metric_value(const Result& r, const char* name) {
  const auto it = r.metrics.find(name);
  return it == r.metrics.end() ? 0.0 : it->second;
}

std::string status_note(const Result& r) {
  if (r.status == Status::ok) return r.timing && r.timing->noisy ? "noisy" : "ok";
  return std::string(to_string(r.status)) + (r.reason.empty() ? "" : ": " + r.reason);
}

std::string time_cell(const Result& r) {
  if (!r.timing) return "-";
  const double rel = r.timing->median_us > 0 ? 100.0 * r.timing->iqr_us / r.timing->median_us : 0;
  return fmt::format("{} ±{:.0f}%", format_us(r.timing->median_us), rel);
}

std::string name_of(const Environment& env, const std::string& address) {
  for (const auto& g : env.gpus) {
    if (g.pci_address == address) return g.name.empty() ? g.vendor : g.name;
  }
  return "";
}

std::string transports_of(const RankIdentity& id) {
  if (!id.nccl) return "";
  std::set<std::string> kinds;
  for (const auto& t : id.nccl->transports) kinds.insert(t.detail);
  std::string out;
  for (const auto& k : kinds) out += (out.empty() ? "" : ", ") + k;
  const std::string& net = id.nccl->network;
  if (!net.empty()) out += (out.empty() ? "" : "; ") + std::string("network ") + net;
  return out;
}

}  // namespace

std::string render_topology(const Environment& env, const ConsoleStyle& style) {
  if (!env.topology) return "";
  const Topology& t = *env.topology;
  std::string out = t.gpus.empty() ? "Topology: no compute GPU\n" : "Topology\n";
  Grid gpus({"GPU", "name", "NUMA", "PCIe link", "bound", "IOMMU group"});
  for (const auto& g : t.gpus) {
    const std::string link = g.link_width ? fmt::format("x{}{} {}", *g.link_width,
                                                        g.link_max_width && *g.link_max_width != *g.link_width
                                                            ? fmt::format(" (of x{})", *g.link_max_width)
                                                            : "",
                                                        g.link_speed)
                                          : "-";
    gpus.add({g.pci_address, name_of(env, g.pci_address), g.numa_node ? std::to_string(*g.numa_node) : "-",
              link, g.pcie_bound_gbps ? format_gbps(*g.pcie_bound_gbps) : "-",
              g.iommu_group ? fmt::format("{} ({})", *g.iommu_group, g.iommu_group_type) : "-"});
  }
  if (!t.gpus.empty()) out += gpus.str(style);
  if (!t.pairs.empty()) {
    Grid pairs({"pair", "link", "P2P", "bound", "ACS redirect", "source"});
    for (const auto& p : t.pairs) {
      std::string link = p.link;
      if (p.link == "nvlink") link += fmt::format(" x{}{}", p.nvlinks, p.via_nvswitch ? " (NVSwitch)" : "");
      if (!p.nvml_level.empty()) link += " [" + p.nvml_level + "]";
      std::string acs;
      for (const auto& a : p.acs_redirecting) acs += (acs.empty() ? "" : ", ") + a;
      std::string src;
      for (const auto& s : p.sources) src += (src.empty() ? "" : "+") + s;
      pairs.add({p.a + " - " + p.b, link, p.p2p_status.empty() ? "-" : p.p2p_status,
                 p.bound_gbps ? format_gbps(*p.bound_gbps) : "-", acs.empty() ? "-" : acs, src});
    }
    out += pairs.str(style);
  }
  out += fmt::format("IOMMU: {}{}\n", t.iommu.empty() ? "unknown" : t.iommu,
                     t.kernel_cmdline.empty() ? "" : " (kernel: " + t.kernel_cmdline + ")");
  if (t.shm_bytes) {
    out += fmt::format("/dev/shm: {}{}\n", format_bytes(static_cast<double>(*t.shm_bytes)),
                       t.container && *t.container ? " (in a container)" : "");
  }
  return out;
}

const Result* slowest_link(const std::vector<Result>& results) {
  double largest = 0;
  for (const auto& r : results) {
    if (r.kind == ResultKind::multi && r.category == "link" && r.status == Status::ok)
      largest = std::max(largest, metric_value(r, "size_bytes"));
  }
  const Result* slowest = nullptr;
  for (const auto& r : results) {
    if (r.kind != ResultKind::multi || r.category != "link" || r.status != Status::ok) continue;
    if (metric_value(r, "size_bytes") != largest) continue;
    if (!slowest || metric_value(r, "busbw_gbps") < metric_value(*slowest, "busbw_gbps")) slowest = &r;
  }
  return slowest;
}

std::string render_multi_tables(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::vector<const Result*> peer, group, ranks, coll, links;
  for (const auto& r : results) {
    if (r.kind != ResultKind::multi) continue;
    if (r.category == "peer") peer.push_back(&r);
    if (r.category == "group") group.push_back(&r);
    if (r.category == "rank") ranks.push_back(&r);
    if (r.category == "collective") coll.push_back(&r);
    if (r.category == "link") links.push_back(&r);
  }
  std::string out;
  if (!peer.empty()) {
    Grid g({"peer", "pair", "time", "GB/s", "of bound", "note"});
    for (const auto* r : peer) {
      std::string figure = metric(*r, "gbps", "{:.1f}");
      if (r->name == "peer_access") {
        figure =
            metric_value(*r, "peer_access_ab") > 0 && metric_value(*r, "peer_access_ba") > 0 ? "yes" : "NO";
      }
      const std::string pct = r->roofline && r->roofline->percent_of_bound > 0
                                  ? fmt::format("{:.0f}%", r->roofline->percent_of_bound)
                                  : "-";
      g.add({r->name, r->shape, time_cell(*r), figure, pct, status_note(*r)});
    }
    out += "\nPeer access and copies between GPUs\n" + g.str(style);
  }
  for (const auto* r : group) {
    out += fmt::format("\nProcess group: {} {} ({}), set up in {}\n",
                       r->evidence.value("backend", std::string()), r->shape, status_note(*r),
                       format_us(metric_value(*r, "setup_ms") * 1000));
  }
  if (!ranks.empty()) {
    Grid g({"rank", "host", "local", "device", "name", "torch", "backend", "transports"});
    for (const auto* r : ranks) {
      const RankIdentity id = rank_identity(r->evidence.value("identity", json::object()));
      g.add({std::to_string(id.rank.value_or(-1)), id.host.value_or("?"), std::to_string(id.local_rank),
             id.device, id.device_name, id.torch,
             id.backend + (id.backend_version.empty() ? "" : " " + id.backend_version), transports_of(id)});
    }
    out += "\nRanks\n" + g.str(style);
  }
  if (!coll.empty()) {
    Grid g({"collective", "dtype", "size", "ranks", "time", "algbw GB/s", "busbw GB/s", "note"});
    for (const auto* r : coll) {
      g.add({r->name, r->dtype, format_bytes(metric_value(*r, "size_bytes")), metric(*r, "ranks", "{:.0f}"),
             time_cell(*r), metric(*r, "algbw_gbps"), metric(*r, "busbw_gbps"), status_note(*r)});
    }
    out +=
        "\nCollectives (busbw as nccl-tests defines it: comparable with the link bandwidth)\n" + g.str(style);
  }
  if (!links.empty()) {
    const Result* slow = slowest_link(results);
    Grid g({"link", "size", "time", "GB/s", "transport", "note"});
    for (const auto* r : links) {
      const std::string link = fmt::format(
          "r{} {} -> r{} {}", metric(*r, "src_rank", "{:.0f}"), r->evidence.value("src_host", std::string()),
          metric(*r, "dst_rank", "{:.0f}"), r->evidence.value("dst_host", std::string()));
      std::string note = status_note(*r);
      if (r == slow && links.size() > 1) note += " <- slowest link";
      g.add({link, format_bytes(metric_value(*r, "size_bytes")), time_cell(*r), metric(*r, "busbw_gbps"),
             r->evidence.value("transport", std::string("-")), note});
    }
    out += "\nLinks (send/recv, one at a time around the ring)\n" + g.str(style);
  }
  return out;
}

}  // namespace accel
