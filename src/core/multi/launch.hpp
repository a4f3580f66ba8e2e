// Which launcher started this process, and this process's place in the job:
// read from the variables the launchers people already use set, never from a
// launcher of our own. Pure (the environment is passed in), so every layout
// is tested on recorded variable sets.
//
// torchrun (torch.distributed.run; its elastic agent sets, per worker):
//   RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK (the node),
//   MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT,
//   TORCHELASTIC_USE_AGENT_STORE ("True": the agent already hosts the TCP
//   store at MASTER_ADDR:MASTER_PORT, every rank is a client under the prefix
//   "/worker/attempt_<restart count>", as torch/distributed/rendezvous.py
//   _create_c10d_store does; otherwise rank 0 hosts it).
//   https://pytorch.org/docs/stable/elastic/run.html ("Environment Variables")
// Slurm (srun, one task per rank):
//   SLURM_PROCID (rank), SLURM_STEP_NUM_TASKS or SLURM_NTASKS (world size),
//   SLURM_LOCALID (local rank), SLURM_NTASKS_PER_NODE / SLURM_STEP_TASKS_PER_NODE,
//   SLURM_NODEID (node), SLURM_STEP_NODELIST or SLURM_NODELIST (hosts, in
//   hostlist form "gpu[01-04,07]"), SLURM_JOB_ID, SLURM_STEP_ID (set by srun
//   only: a batch script itself runs as one task, whatever SLURM_NTASKS says).
//   The store host is MASTER_ADDR when set, else the first host of the node
//   list; the port MASTER_PORT when set, else 29500 + SLURM_JOB_ID mod 1000
//   (so two jobs sharing a node rarely meet). Rank 0 hosts the store.
//   https://slurm.schedmd.com/srun.html ("OUTPUT ENVIRONMENT VARIABLES")
// By hand (or mpirun -x, or a test): RANK and WORLD_SIZE with MASTER_ADDR and
// MASTER_PORT and none of the torchrun markers; LOCAL_RANK defaults to RANK.
// torchrun's variables win over Slurm's (torchrun started under srun).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace accel::multi {

enum class Launcher {
  none,      ///< not started by a launcher: this process alone (it may start local ranks itself)
  torchrun,  ///< torch.distributed.run / torchrun (TORCHELASTIC_RUN_ID)
  slurm,     ///< srun (SLURM_PROCID with SLURM_STEP_ID)
  env,       ///< RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set otherwise
};
std::string_view to_string(Launcher l);
std::optional<Launcher> parse_launcher(std::string_view name);

/// A launcher's variables that do not add up ("RANK=3 is not below WORLD_SIZE=2").
struct LaunchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LaunchInfo {
  Launcher launcher = Launcher::none;
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;
  int local_world_size = 1;
  int node_rank = 0;
  std::string master_addr;  ///< where the TCP store is (empty: launcher none)
  int master_port = 0;
  /// The store is hosted by the launcher (torchrun's agent): every rank is a
  /// client, under `store_prefix`.
  bool agent_store = false;
  std::string store_prefix;
  std::string job_id;               ///< TORCHELASTIC_RUN_ID or SLURM_JOB_ID
  std::vector<std::string> nodes;   ///< Slurm's node list, expanded
  std::vector<std::string> source;  ///< the variables read, "RANK=1", ...
  std::string note;                 ///< why a launcher's variables were not used ("" when none)

  bool distributed() const { return launcher != Launcher::none && world_size > 1; }
};

/// Reads the launch from `env` (NAME -> value). Throws LaunchError naming the
/// variable when one is malformed or they contradict each other.
LaunchInfo detect_launch(const std::map<std::string, std::string>& env);

/// The same from "NAME=value" entries (platform::detail::process_environment()).
LaunchInfo detect_launch(const std::vector<std::string>& environment);

/// Expands a Slurm hostlist: "gpu[01-03,07],login1" -> gpu01 gpu02 gpu03
/// gpu07 login1 (zero padding kept; one bracket group per host name, as
/// Slurm writes them). Throws LaunchError on a malformed list.
std::vector<std::string> expand_slurm_nodelist(std::string_view list);

/// `path` for rank `rank` of a job of `world_size`: "{rank}" in it is
/// replaced; without one, and with more than one rank, ".rank<N>" goes
/// before the extension ("r.json" -> "r.rank1.json"), so the ranks of one
/// job never write the same file. Unchanged for one rank.
std::string per_rank_path(const std::string& path, int rank, int world_size);

NLOHMANN_JSON_SERIALIZE_ENUM(Launcher, {{Launcher::none, "none"},
                                        {Launcher::torchrun, "torchrun"},
                                        {Launcher::slurm, "slurm"},
                                        {Launcher::env, "env"}})
ACCEL_JSON_DECLARE(LaunchInfo)

}  // namespace accel::multi
