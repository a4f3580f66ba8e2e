// `accel-doctor multi`: several GPUs and several machines (docs/multi.md).
// The topology (links between GPUs, NUMA, IOMMU/ACS, /dev/shm), peer access
// and copies between the GPUs of this machine, and collectives over a
// process group of torch.distributed's C++ backend: local ranks the engine
// starts itself, or, under torchrun or srun, this process as one rank of
// the job (one report per rank; `report --from` merges them).
#pragma once

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "engine_api/multi.hpp"

namespace CLI {
class App;
}

namespace accel::cli {

struct MultiArgs {
  int ranks = 0;  ///< local ranks (0: one per GPU, 2 on the CPU)
  std::string backend = "auto";
  std::vector<std::string> collectives;
  std::vector<std::string> dtypes;
  std::vector<std::string> sizes;  ///< "64K", "1M", "1GiB" ...
  bool quick = false;
  bool list = false;
  bool no_links = false;
  bool no_peer = false;
  bool no_isolate = false;
  double item_timeout_s = 180;
};

/// Adds the `multi` subcommand to `cli` (main.cpp), its options into `args`.
CLI::App* add_multi_command(CLI::App& cli, MultiArgs& args);

int cmd_multi(App& app, const MultiArgs& args);

/// The multi rows of a run: the engine's suite, then the peer copies drawn
/// against the links' bounds of `env.topology` (roofline.bandwidth_gbps).
std::vector<Result> run_multi_phase(App& app, const engine::MultiOptions& options);

}  // namespace accel::cli
