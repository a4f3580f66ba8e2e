// The last-level cache of a GPU, a fact of kb/gpus.json (`llc`): the size a
// memory benchmark's buffers must exceed (8x, issue 13) to measure device
// memory rather than the cache. The last level is the L2 on NVIDIA, Intel and
// AMD CDNA2; AMD's Infinity Cache (an L3) on RDNA2/3/4 and CDNA3.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/json.hpp"

namespace accel {

struct CacheFact {
  std::uint64_t bytes = 0;
  std::string level;  ///< "L2" or "Infinity Cache"
  std::string source_title;
  std::string source_url;
  /// "50 MiB L2" (whole MiB where it divides, else KiB).
  std::string describe() const;
};

/// The row's `llc` object ({"bytes": N, "level": "L2"|"Infinity Cache",
/// "source": {"title", "url"}}), nullopt when absent or null. Throws KbError
/// (core/kb.hpp) naming `where` when it is malformed (bytes not a positive
/// integer, another level, no source).
std::optional<CacheFact> parse_cache_fact(const json& row, const std::string& where);

}  // namespace accel
