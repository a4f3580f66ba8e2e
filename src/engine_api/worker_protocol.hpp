// The worker protocol's event lines (engine_api/worker.cpp writes them, one JSON
// object per line on the worker's stdout; engine_api/isolation.cpp reads them):
//   {"event": "ready", "info": {...}}
//   {"event": "start", "key": K}
//   {"event": "result", "result": {Result}}
//   {"event": "retire", "anon_rss_bytes": N}
//   {"event": "done"}
// The reader is torch-free so it can be unit-tested and fuzzed: any bytes a
// dying or confused worker writes give an event (possibly `none`), never an
// exception or a crash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/evidence.hpp"

namespace accel {

struct WorkerEvent {
  enum class Kind {
    none,  ///< not protocol (not JSON, not an object, or an unknown event)
    ready,
    start,
    result,
    unreadable_result,  ///< a "result" event whose result does not parse (`error` says why)
    retire,
    done,
  };
  Kind kind = Kind::none;
  std::string key;               ///< start: the item's key ("" when absent)
  std::optional<Result> result;  ///< result
  std::string error;             ///< unreadable_result
};

/// Parses one line the worker wrote. Never throws.
WorkerEvent parse_worker_event(std::string_view line);

}  // namespace accel
