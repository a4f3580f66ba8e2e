#include "engines/onnxruntime/profile_parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/json.hpp"

namespace accel::ort {

namespace {

constexpr std::string_view kKernelSuffix = "_kernel_time";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string str_field(const json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num_field(const json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return 0;
  const double v = it->get<double>();
  return v > 0 && v < 1e15 ? v : 0;
}

bool is_shape_op(const std::string& op) { return op == "Shape" || op == "Size"; }

}  // namespace

ParsedProfile parse_profile(std::string_view text) {
  json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) throw ProfileError("the profile is not JSON");
  // Some writers wrap the events: {"traceEvents": [...]}.
  if (doc.is_object() && doc.contains("traceEvents")) doc = doc["traceEvents"];
  if (!doc.is_array()) throw ProfileError("the profile is not a JSON array of trace events");
  ParsedProfile p;
  for (const auto& e : doc) {
    if (!e.is_object()) continue;
    const std::string cat = str_field(e, "cat");
    const std::string name = str_field(e, "name");
    if (cat == "Session" && name == "model_run") {
      ++p.runs;
      continue;
    }
    if (cat != "Node" || !ends_with(name, kKernelSuffix)) continue;
    const auto args = e.find("args");
    if (args == e.end() || !args->is_object()) continue;
    NodeEvent n;
    n.node = name.substr(0, name.size() - kKernelSuffix.size());
    n.op = str_field(*args, "op_name");
    n.provider = str_field(*args, "provider");
    n.dur_us = num_field(e, "dur");
    p.nodes.push_back(std::move(n));
  }
  return p;
}

Placement classify_placement(const ParsedProfile& profile, const std::string& target_ep) {
  Placement pl;
  pl.target_ep = target_ep;
  pl.runs = profile.runs;
  const bool host_target = target_ep == "CPUExecutionProvider";
  std::set<std::string> seen;
  std::set<std::string> cpu_op_set;
  double target_total = 0, cpu_total = 0, memcpy_total = 0, cast_total = 0;
  for (const auto& n : profile.nodes) {
    const bool memcpy = n.op == "MemcpyToHost" || n.op == "MemcpyFromHost";
    const bool first = seen.insert(n.node).second;
    if (n.op == "Cast" && n.node.rfind("InsertedPrecisionFreeCast_", 0) == 0) {
      cast_total += n.dur_us;
      if (first) ++pl.inserted_casts;
    }
    if (memcpy) {
      memcpy_total += n.dur_us;
      if (first) {
        ++pl.memcpy_nodes;
        (n.op == "MemcpyToHost" ? pl.to_host : pl.from_host)++;
      }
      continue;
    }
    if (first) ++pl.nodes_by_provider[n.provider.empty() ? "(none)" : n.provider];
    if (n.provider == target_ep) {
      target_total += n.dur_us;
      if (first) ++pl.target_nodes;
    } else if (n.provider == "CPUExecutionProvider") {
      if (is_shape_op(n.op)) {
        if (first) ++pl.shape_nodes;
        continue;
      }
      cpu_total += n.dur_us;
      if (first) ++pl.cpu_nodes;
      if (cpu_op_set.insert(n.op).second) pl.cpu_ops.push_back(n.op);
    } else if (first) {
      ++pl.other_nodes;
    }
  }
  // Per run: the profiled runs' total over their count (one when the file
  // has no model_run events, e.g. a trimmed recording).
  const double runs = std::max(1, profile.runs);
  pl.target_us = target_total / runs;
  pl.cpu_us = cpu_total / runs;
  pl.memcpy_us = memcpy_total / runs;
  pl.inserted_cast_us = cast_total / runs;
  const std::string casts =
      pl.inserted_casts == 0
          ? ""
          : fmt::format(
                " ({} of them Cast node{} the runtime inserted: the float type is computed in fp32, "
                "{:.1f} us per run casting)",
                pl.inserted_casts, pl.inserted_casts == 1 ? "" : "s", pl.inserted_cast_us);

  if (profile.nodes.empty()) {
    pl.where = "no_nodes";
    pl.detail = "the profile has no node events";
  } else if (host_target) {
    pl.where = "host";
    pl.detail = fmt::format("{} node{} on the CPU provider{}", pl.target_nodes,
                            pl.target_nodes == 1 ? "" : "s", casts);
  } else if (pl.cpu_nodes > 0 || (pl.target_nodes == 0 && pl.memcpy_nodes > 0)) {
    pl.where = "cpu_fallback";
    pl.detail = fmt::format(
        "{} of {} node{} on the CPU ({}), {} Memcpy node{} ({} to host, {} from host): {:.1f} us per run on "
        "the "
        "CPU and {:.1f} us copying",
        pl.cpu_nodes, pl.cpu_nodes + pl.target_nodes, pl.cpu_nodes + pl.target_nodes == 1 ? "" : "s",
        fmt::join(pl.cpu_ops, ", "), pl.memcpy_nodes, pl.memcpy_nodes == 1 ? "" : "s", pl.to_host,
        pl.from_host, pl.cpu_us, pl.memcpy_us);
  } else if (pl.target_nodes > 0) {
    pl.where = "device_kernels";
    pl.detail =
        fmt::format("{} node{} on {}{}{}", pl.target_nodes, pl.target_nodes == 1 ? "" : "s", target_ep, casts,
                    pl.memcpy_nodes ? fmt::format(", {} Memcpy node{} for the graph's inputs/outputs",
                                                  pl.memcpy_nodes, pl.memcpy_nodes == 1 ? "" : "s")
                                    : "");
  } else {
    pl.where = "cpu_fallback";
    pl.detail = fmt::format("no node ran on {}", target_ep);
  }
  return pl;
}

}  // namespace accel::ort
