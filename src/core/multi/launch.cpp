#include "core/multi/launch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/strings.hpp"

namespace accel::multi {

std::string_view to_string(Launcher l) {
  switch (l) {
    case Launcher::none:
      return "none";
    case Launcher::torchrun:
      return "torchrun";
    case Launcher::slurm:
      return "slurm";
    case Launcher::env:
      return "env";
  }
  return "?";
}

std::optional<Launcher> parse_launcher(std::string_view name) {
  for (const Launcher l : {Launcher::none, Launcher::torchrun, Launcher::slurm, Launcher::env}) {
    if (name == to_string(l)) return l;
  }
  return std::nullopt;
}

namespace {

using Env = std::map<std::string, std::string>;

const std::string* find(const Env& env, const char* name) {
  const auto it = env.find(name);
  return it == env.end() || trim(it->second).empty() ? nullptr : &it->second;
}

/// A non-negative integer variable; nullopt when unset; LaunchError when malformed.
std::optional<int> integer(const Env& env, const char* name, std::vector<std::string>& source) {
  const std::string* v = find(env, name);
  if (!v) return std::nullopt;
  const std::string t = trim(*v);
  if (t.empty() || t.size() > 9 ||
      !std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    throw LaunchError(fmt::format("{}={} is not a non-negative integer", name, *v));
  }
  source.push_back(fmt::format("{}={}", name, t));
  return std::stoi(t);
}

std::string text(const Env& env, const char* name, std::vector<std::string>& source) {
  const std::string* v = find(env, name);
  if (!v) return {};
  source.push_back(fmt::format("{}={}", name, trim(*v)));
  return trim(*v);
}

int port_of(const Env& env, const char* name, std::vector<std::string>& source) {
  const auto p = integer(env, name, source);
  if (!p) return 0;
  if (*p <= 0 || *p > 65535) throw LaunchError(fmt::format("{}={} is not a TCP port (1-65535)", name, *p));
  return *p;
}

void check(const LaunchInfo& l, const char* rank_var, const char* world_var) {
  if (l.world_size < 1) throw LaunchError(fmt::format("{}={} must be at least 1", world_var, l.world_size));
  if (l.rank >= l.world_size) {
    throw LaunchError(fmt::format("{}={} is not below {}={}", rank_var, l.rank, world_var, l.world_size));
  }
  if (l.local_rank >= l.local_world_size) {
    throw LaunchError(fmt::format("the local rank {} is not below the local world size {}", l.local_rank,
                                  l.local_world_size));
  }
  if (l.world_size > 1 && l.master_addr.empty()) {
    throw LaunchError(
        fmt::format("{} ranks but no MASTER_ADDR: the ranks cannot find each other", l.world_size));
  }
  if (l.world_size > 1 && l.master_port == 0) {
    throw LaunchError(
        fmt::format("{} ranks but no MASTER_PORT: the ranks cannot find each other", l.world_size));
  }
}

LaunchInfo from_torch_env(const Env& env, bool torchrun) {
  LaunchInfo l;
  l.launcher = torchrun ? Launcher::torchrun : Launcher::env;
  l.rank = *integer(env, "RANK", l.source);
  l.world_size = *integer(env, "WORLD_SIZE", l.source);
  l.local_rank = integer(env, "LOCAL_RANK", l.source).value_or(torchrun ? 0 : l.rank);
  l.local_world_size =
      integer(env, "LOCAL_WORLD_SIZE", l.source).value_or(torchrun ? l.local_rank + 1 : l.world_size);
  l.node_rank = integer(env, "GROUP_RANK", l.source).value_or(0);
  l.master_addr = text(env, "MASTER_ADDR", l.source);
  l.master_port = port_of(env, "MASTER_PORT", l.source);
  l.job_id = text(env, "TORCHELASTIC_RUN_ID", l.source);
  if (const std::string* agent = find(env, "TORCHELASTIC_USE_AGENT_STORE"); agent && trim(*agent) == "True") {
    l.source.push_back("TORCHELASTIC_USE_AGENT_STORE=True");
    l.agent_store = true;
    const int attempt = integer(env, "TORCHELASTIC_RESTART_COUNT", l.source).value_or(0);
    l.store_prefix = fmt::format("/worker/attempt_{}", attempt);
  }
  check(l, "RANK", "WORLD_SIZE");
  return l;
}

LaunchInfo from_slurm(const Env& env) {
  LaunchInfo l;
  l.launcher = Launcher::slurm;
  l.rank = *integer(env, "SLURM_PROCID", l.source);
  const char* world_var = find(env, "SLURM_STEP_NUM_TASKS") ? "SLURM_STEP_NUM_TASKS" : "SLURM_NTASKS";
  const auto world = integer(env, world_var, l.source);
  if (!world) throw LaunchError("SLURM_PROCID is set but neither SLURM_STEP_NUM_TASKS nor SLURM_NTASKS");
  l.world_size = *world;
  l.local_rank = integer(env, "SLURM_LOCALID", l.source).value_or(0);
  l.node_rank = integer(env, "SLURM_NODEID", l.source).value_or(0);
  // Tasks on this node: SLURM_STEP_TASKS_PER_NODE / SLURM_NTASKS_PER_NODE are
  // per node ("4" or "4(x2),2"); the first count is this job's usual shape.
  for (const char* name : {"SLURM_STEP_TASKS_PER_NODE", "SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"}) {
    const std::string v = text(env, name, l.source);
    if (v.empty()) continue;
    std::size_t i = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) ++i;
    if (i > 0 && i <= 9) l.local_world_size = std::max(std::stoi(v.substr(0, i)), l.local_rank + 1);
    break;
  }
  if (l.local_world_size < l.local_rank + 1) l.local_world_size = l.local_rank + 1;
  const char* list_var = find(env, "SLURM_STEP_NODELIST")  ? "SLURM_STEP_NODELIST"
                         : find(env, "SLURM_JOB_NODELIST") ? "SLURM_JOB_NODELIST"
                                                           : "SLURM_NODELIST";
  if (const std::string list = text(env, list_var, l.source); !list.empty())
    l.nodes = expand_slurm_nodelist(list);
  l.job_id = text(env, "SLURM_JOB_ID", l.source);
  l.master_addr = text(env, "MASTER_ADDR", l.source);
  if (l.master_addr.empty() && !l.nodes.empty()) l.master_addr = l.nodes.front();
  l.master_port = port_of(env, "MASTER_PORT", l.source);
  if (l.master_port == 0 && !l.job_id.empty()) {
    std::uint64_t id = 0;
    for (const char c : l.job_id) {
      if (std::isdigit(static_cast<unsigned char>(c))) id = id * 10 + static_cast<std::uint64_t>(c - '0');
    }
    l.master_port = 29500 + static_cast<int>(id % 1000);
  }
  check(l, "SLURM_PROCID", world_var);
  return l;
}

}  // namespace

LaunchInfo detect_launch(const Env& env) {
  const bool torch_rank = find(env, "RANK") && find(env, "WORLD_SIZE");
  if (torch_rank) {
    const bool torchrun = find(env, "TORCHELASTIC_RUN_ID") || find(env, "GROUP_RANK");
    return from_torch_env(env, torchrun);
  }
  if (find(env, "SLURM_PROCID")) {
    if (!find(env, "SLURM_STEP_ID") && !find(env, "SLURM_STEPID")) {
      LaunchInfo l;
      l.note =
          "inside a Slurm allocation but not started by srun (no SLURM_STEP_ID): this process runs alone; "
          "`srun accel-doctor multi` runs one rank per task";
      return l;
    }
    return from_slurm(env);
  }
  return {};
}

LaunchInfo detect_launch(const std::vector<std::string>& environment) {
  Env env;
  for (const auto& e : environment) {
    const auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    env.emplace(e.substr(0, eq), e.substr(eq + 1));  // the first definition wins, as getenv
  }
  return detect_launch(env);
}

std::vector<std::string> expand_slurm_nodelist(std::string_view list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  const std::string s = trim(list);
  auto bad = [&](const std::string& why) {
    return LaunchError(fmt::format("the Slurm node list '{}' is malformed: {}", s, why));
  };
  while (i < s.size()) {
    // One host expression: prefix[ranges]suffix, up to a comma outside brackets.
    std::size_t j = i;
    int depth = 0;
    while (j < s.size() && (depth > 0 || s[j] != ',')) {
      if (s[j] == '[') ++depth;
      if (s[j] == ']' && --depth < 0) throw bad("']' without '['");
      ++j;
    }
    if (depth != 0) throw bad("'[' without ']'");
    const std::string host = s.substr(i, j - i);
    if (host.empty()) throw bad("an empty host name");
    const auto open = host.find('[');
    if (open == std::string::npos) {
      out.push_back(host);
    } else {
      const auto close = host.find(']', open);
      const std::string prefix = host.substr(0, open), suffix = host.substr(close + 1);
      if (suffix.find('[') != std::string::npos) throw bad("more than one bracket group in one host name");
      const std::string ranges = host.substr(open + 1, close - open - 1);
      std::size_t k = 0;
      while (k <= ranges.size()) {
        const auto comma = std::min(ranges.find(',', k), ranges.size());
        const std::string part = ranges.substr(k, comma - k);
        const auto dash = part.find('-');
        const std::string lo = part.substr(0, dash);
        const std::string hi = dash == std::string::npos ? lo : part.substr(dash + 1);
        auto digits = [](const std::string& x) {
          return !x.empty() && x.size() <= 9 && std::all_of(x.begin(), x.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          });
        };
        if (!digits(lo) || !digits(hi)) throw bad("'" + part + "' is not a number or a range");
        const int a = std::stoi(lo), b = std::stoi(hi);
        if (b < a) throw bad("the range '" + part + "' runs backwards");
        if (b - a > 100000) throw bad("the range '" + part + "' is too long");
        for (int n = a; n <= b; ++n) out.push_back(fmt::format("{}{:0{}}{}", prefix, n, lo.size(), suffix));
        k = comma + 1;
      }
    }
    i = j + 1;
  }
  return out;
}

std::string per_rank_path(const std::string& path, int rank, int world_size) {
  if (const auto at = path.find("{rank}"); at != std::string::npos) {
    std::string p = path;
    p.replace(at, 6, std::to_string(rank));
    return p;
  }
  if (world_size <= 1 || path.empty() || path == "-") return path;
  const auto slash = path.find_last_of("/\\");
  const auto dot = path.rfind('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  if (!has_ext) return fmt::format("{}.rank{}", path, rank);
  return fmt::format("{}.rank{}{}", path.substr(0, dot), rank, path.substr(dot));
}

}  // namespace accel::multi

// JSON (de)serialisers declared in core/multi/launch.hpp.
namespace accel::multi {
ACCEL_JSON_DEFINE(LaunchInfo, launcher, rank, world_size, local_rank, local_world_size, node_rank,
                  master_addr, master_port, agent_store, store_prefix, job_id, nodes, source, note)
}  // namespace accel::multi
