// What NCCL (and RCCL, its ROCm port) says it chose, from its own debug
// output (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET; each line
// "host:pid:tid [dev] NCCL INFO ..."). The formats are NCCL's (src/init.cc,
// src/transport/{p2p,shm,net}.cc, src/transport/net_socket.cc,
// src/graph/paths.cc of https://github.com/NVIDIA/nccl):
//   NCCL version 2.21.5+cuda12.4                 (RCCL: "RCCL version ...")
//   Using network Socket | IB | <plugin name>
//   NET/Socket : Using [0]eth0:10.0.0.1<0>
//   NCCL_P2P_DISABLE set by environment to 1.
//   Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
//   Channel 00 : 0[0] -> 1[1] via SHM/direct/direct
//   Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0
//   Could not enable P2P between dev 0(=19000) and dev 1(=1a000)
//   NCCL WARN <anything>
// Pure text in, summary out; never throws.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"

namespace accel::multi {

/// How data went from one rank to another, as NCCL reported it.
struct NcclTransport {
  int from_rank = -1;
  int to_rank = -1;
  std::string kind;    ///< "P2P", "SHM", "NET" (the first part of the detail)
  std::string detail;  ///< "P2P/CUMEM/read", "SHM/direct/direct", "NET/Socket/0", "NET/IB/0/GDRDMA"
  int channels = 0;    ///< channel lines seen for this pair and detail
};

struct NcclLogSummary {
  std::string library;                              ///< "NCCL" or "RCCL" ("" when no version line)
  std::string version;                              ///< "2.21.5+cuda12.4"
  std::string network;                              ///< "Socket", "IB", a plugin's name
  std::vector<std::string> socket_interfaces;       ///< "eth0:10.0.0.1"
  std::map<std::string, std::string> env_settings;  ///< NCCL_* NCCL said it read from the environment
  std::vector<NcclTransport> transports;            ///< unique (from, to, detail), first seen first
  std::vector<std::string> p2p_failures;  ///< "Could not enable P2P ..." / "P2P is disabled ..." lines
  std::vector<std::string> warnings;      ///< NCCL WARN texts, unique, at most 20
  std::vector<std::string> hosts;         ///< host names of the line prefixes, unique

  bool empty() const { return version.empty() && transports.empty() && warnings.empty(); }
  /// True when a transport between the two ranks went through the network
  /// plugin's socket transport ("NET/Socket").
  bool uses_sockets() const;
  /// The transports from `rank` to `peer` (either direction when `either`),
  /// "P2P/CUMEM/read" joined by ", "; "" when none.
  std::string between(int rank, int peer, bool either = true) const;
};

NcclLogSummary parse_nccl_log(std::string_view text);

ACCEL_JSON_DECLARE(NcclTransport)
ACCEL_JSON_DECLARE(NcclLogSummary)

}  // namespace accel::multi
