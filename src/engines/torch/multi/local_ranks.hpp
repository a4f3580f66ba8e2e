// Ranks 1..N-1 of a group on this host, started by rank 0's worker as more
// workers of the same engine (worker_command(): `<engine> __worker`, or the
// Python package's), each with the same job plus its rank. Their result
// lines are read and dropped by one thread each (rank 0 reports for the
// group), so no pipe ever fills. On Linux they die with rank 0
// (PR_SET_PDEATHSIG); the destructor waits a little, then kills them.
// Engine-internal.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/json.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

class LocalRanks {
 public:
  /// Starts ranks 1..world-1 with `job` (its "rank" set for each). Throws
  /// platform::SubprocessError when one cannot be started.
  LocalRanks(const json& job, int world);
  ~LocalRanks();
  LocalRanks(const LocalRanks&) = delete;
  LocalRanks& operator=(const LocalRanks&) = delete;

  /// The ranks whose worker has ended (read end of file), in rank order.
  std::vector<int> ended() const;

 private:
  struct Peer {
    int rank = 0;
    std::unique_ptr<platform::Subprocess> proc;
    std::thread drain;
    std::atomic<bool> eof{false};
  };
  std::vector<std::unique_ptr<Peer>> peers_;
  std::atomic<bool> stop_{false};
};

}  // namespace accel::engine
