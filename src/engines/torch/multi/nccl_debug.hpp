// NCCL's own account of the transports it chose, captured from this
// process: NCCL_DEBUG=INFO with NCCL_DEBUG_FILE pointed at a file the suite
// reads back (core/multi/nccl_log.hpp parses it). Set before NCCL starts;
// a user's own NCCL_DEBUG is left alone (their NCCL_DEBUG_FILE, if any, is
// read; without one the output goes to their terminal and nothing is
// parsed). Engine-internal.
#pragma once

#include <string>

#include "core/multi/nccl_log.hpp"

namespace accel::engine {

class NcclDebugCapture {
 public:
  /// Sets NCCL_DEBUG / NCCL_DEBUG_FILE for this process (dir/nccl.r<rank>.<pid>.log).
  void configure(const std::string& dir, int rank);
  /// What the file holds so far; `note()` says why it is empty when it is.
  multi::NcclLogSummary read() const;
  const std::string& note() const { return note_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string note_;
};

}  // namespace accel::engine
