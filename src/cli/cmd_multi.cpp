// `accel-doctor multi` (cli/cmd_multi.hpp, docs/multi.md).
#include "cli/cmd_multi.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>

#include "cli/phases.hpp"
#include "core/machine_context.hpp"
#include "core/multi/collective.hpp"
#include "core/multi/launch.hpp"
#include "core/multi/link_bound.hpp"
#include "core/report/findings.hpp"
#include "core/report/multi_tables.hpp"
#include "platform/probes.hpp"

namespace accel::cli {

namespace {

/// The topology pair of two torch devices, through their PCI bus ids.
const GpuPair* pair_of(const Environment& env, const std::string& a, const std::string& b) {
  if (!env.topology) return nullptr;
  auto address = [&](const std::string& id) {
    for (const auto& d : env.devices) {
      if (d.id == id) return multi::normalize_pci_address(d.pci_bus_id);
    }
    return std::string();
  };
  const std::string pa = address(a), pb = address(b);
  if (pa.empty() || pb.empty()) return nullptr;
  for (const auto& p : env.topology->pairs) {
    if ((p.a == pa && p.b == pb) || (p.a == pb && p.b == pa)) return &p;
  }
  return nullptr;
}

std::optional<double> pcie_bound_of(const Environment& env, const std::string& id) {
  if (!env.topology) return std::nullopt;
  for (const auto& d : env.devices) {
    if (d.id != id) continue;
    for (const auto& g : env.topology->gpus) {
      if (g.pci_address == multi::normalize_pci_address(d.pci_bus_id)) return g.pcie_bound_gbps;
    }
  }
  return std::nullopt;
}

/// Peer copies against their bound: the pair's link with peer access; the
/// narrower of the two GPUs' own PCIe links without (the driver stages the
/// data through host memory over both).
void attach_bounds(std::vector<Result>& results, const Environment& env) {
  for (auto& r : results) {
    if (r.kind != engine::kMultiKind || r.category != "peer" || r.status != Status::ok) continue;
    const auto it = r.metrics.find("gbps");
    if (it == r.metrics.end()) continue;
    const std::string src = r.evidence.value("src", std::string()),
                      dst = r.evidence.value("dst", std::string());
    std::optional<double> bound;
    std::string source;
    if (r.evidence.value("peer_enabled", false)) {
      if (const GpuPair* p = pair_of(env, src, dst); p && p->bound_gbps) {
        bound = p->bound_gbps;
        source = p->bound_source;
      }
    } else {
      const auto a = pcie_bound_of(env, src), b = pcie_bound_of(env, dst);
      if (a && b) {
        bound = std::min(*a, *b);
        source = "staged through host memory: the narrower of the two GPUs' PCIe links";
      }
    }
    if (!bound || *bound <= 0) continue;
    Roofline rf;
    rf.bandwidth_gbps = *bound;
    rf.bandwidth_source = source;
    rf.achieved_gbps = it->second;
    rf.percent_of_bound = 100.0 * it->second / *bound;
    rf.above_peak = rf.percent_of_bound > 105;
    r.roofline = rf;
  }
}

engine::MultiRequest request_of(const App& app, const MultiArgs& a) {
  engine::MultiRequest q;
  q.device = app.options().device;
  q.ranks = a.ranks;
  q.backend = a.backend;
  q.collectives = a.collectives;
  q.dtypes = a.dtypes;
  for (const auto& s : a.sizes) {
    const auto v = multi::parse_size(s);
    if (!v) throw UsageError(fmt::format("multi --sizes: '{}' is not a size (4096, 64K, 1M, 1GiB)", s));
    q.sizes_bytes.push_back(*v);
  }
  q.quick = a.quick;
  q.links = !a.no_links;
  q.peer = !a.no_peer;
  q.isolate = !a.no_isolate;
  q.item_timeout_s = a.item_timeout_s;
  return q;
}

}  // namespace

CLI::App* add_multi_command(CLI::App& cli, MultiArgs& a) {
  auto* m = cli.add_subcommand(
      "multi",
      "several GPUs and machines: topology, peer access and copies, collectives (all-reduce, all-gather, "
      "reduce-scatter, broadcast) with nccl-tests' bus bandwidth; under torchrun or srun, one rank per "
      "process");
  m->add_option("--ranks", a.ranks,
                "local ranks: the first N GPUs (default: every GPU; 2 processes on the CPU)")
      ->check(CLI::Range(1, 1024));
  m->add_option("--backend", a.backend, "gloo, nccl (RCCL on ROCm) or auto (nccl on GPUs, gloo on the CPU)")
      ->check(CLI::IsMember({"auto", "gloo", "nccl"}))
      ->capture_default_str();
  m->add_option("--collectives", a.collectives,
                "all_reduce, all_gather, reduce_scatter, broadcast, send_recv (comma list; default: all)")
      ->delimiter(',');
  m->add_option("--dtype", a.dtypes, "fp32, bf16, fp16 (comma list; default fp32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  m->add_option("--sizes", a.sizes, "message sizes S (comma list: 4096, 64K, 1M, 1GiB; default: a sweep)")
      ->delimiter(',');
  m->add_flag("--quick", a.quick, "fewer sizes, shorter timing");
  m->add_flag("--list", a.list, "list the items and exit");
  m->add_flag("--no-links", a.no_links, "skip the send/recv link of each rank to the next");
  m->add_flag("--no-peer", a.no_peer, "skip peer access and copies between GPU pairs");
  m->add_flag("--no-isolate", a.no_isolate, "run rank 0 in the engine's own process (debugging)");
  m->add_option("--item-timeout", a.item_timeout_s, "seconds per item before it is 'hung'")
      ->capture_default_str()
      ->check(CLI::Range(20.0, 3600.0));
  return m;
}

std::vector<Result> run_multi_phase(App& app, const engine::MultiOptions& o) {
  auto results = app.engine().run_multi(o, progress_callbacks(app));
  app.clear_status();
  attach_bounds(results, app.environment());
  return results;
}

int cmd_multi(App& app, const MultiArgs& args) {
  multi::LaunchInfo launch;
  try {
    launch = multi::detect_launch(platform::environment_entries());
  } catch (const multi::LaunchError& e) {
    throw UsageError(std::string("multi: the launcher's variables: ") + e.what());
  }
  const engine::MultiRequest q = request_of(app, args);
  Environment& env = app.environment();
  if (!env.topology) env.topology = platform::probe_topology({}, env.gpus);
  std::string note;
  engine::MultiOptions o;
  try {
    o = engine::resolve_multi_request(q, env, launch, note);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("multi: ") + e.what());
  }
  o.machine = machine_context_of(env, o.devices.front());
  if (args.list) {
    std::string out;
    const auto items = engine::list_multi_items(o);  // the engine plans the same (engine_api/multi.cpp)
    for (const auto& i : items) out += i.key + "\n";
    out += fmt::format("{} items\n", items.size());
    app.out(out);
    return kExitHealthy;
  }
  const bool measure = !engine::list_multi_items(o).empty();
  if (measure) (void)app.engine();  // no engine: exit 2 before anything is printed
  // One report per rank: every rank of a job writes its own files.
  if (launch.distributed()) {
    app.set_output_paths(multi::per_rank_path(app.options().json_path, launch.rank, launch.world_size),
                         multi::per_rank_path(app.options().html_path, launch.rank, launch.world_size));
  }
  Report& report = app.report("multi");
  const ConsoleStyle style = app.style_stdout();
  app.out(render_topology(env, style));
  if (!launch.note.empty()) app.out(launch.note + "\n");
  app.out(wrap_to_width(note, style.width) + "\n");
  std::vector<Result> results;
  if (measure) results = run_multi_phase(app, o);
  app.out(render_multi_tables(results, style));
  report.results.insert(report.results.end(), results.begin(), results.end());
  report.context.environment = env;
  add_diagnosis(app, report);
  // This command answers for its own evidence: the multi rules' findings
  // (in the saved report too); `diagnose --from` runs every rule over it.
  report.findings.erase(std::remove_if(report.findings.begin(), report.findings.end(),
                                       [](const Finding& f) { return f.id.rfind("multi.", 0) != 0; }),
                        report.findings.end());
  report.verdict = multi_verdict_line(report, report.findings);
  const bool failed =
      std::any_of(results.begin(), results.end(), [](const Result& r) { return is_failure(r.status); });
  const bool attention = needs_attention(report, report.findings) || failed;
  app.out("\n" + render_findings(report.findings, style));
  app.out("\n" + render_verdict(report.verdict, attention, style));
  app.write_json_if_requested();
  return attention ? kExitFindings : kExitHealthy;
}

}  // namespace accel::cli
