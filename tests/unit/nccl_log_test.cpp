// core/multi/nccl_log.hpp on NCCL_DEBUG=INFO output in the formats of
// NCCL's sources (src/init.cc, src/transport/{p2p,shm,net}.cc,
// net_socket.cc, graph/paths.cc); the lines are written from those format
// strings, with host names, pids and addresses of our choosing.
#include <gtest/gtest.h>

#include "core/multi/nccl_log.hpp"

namespace accel::multi {
namespace {

constexpr const char* kTwoGpusP2p = R"(node1:4021:4021 [0] NCCL INFO Bootstrap : Using eth0:10.1.0.11<0>
node1:4021:4021 [0] NCCL INFO cudaDriverVersion 12040
node1:4021:4021 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
node1:4021:4077 [0] NCCL INFO NET/IB : No device found.
node1:4021:4077 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.11<0> [1]ib0:192.168.7.11<0>
node1:4021:4077 [0] NCCL INFO Using network Socket
node1:4021:4077 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 19000 commId 0x9a - Init START
node1:4021:4077 [0] NCCL INFO Channel 00/02 :    0   1
node1:4021:4077 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node1:4021:4077 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node1:4021:4078 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read
node1:4021:4077 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 19000 commId 0x9a - Init COMPLETE
)";

constexpr const char* kShmAndSockets = R"(a:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.
a:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0.
a:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2
a:1:2 [0] NCCL INFO Channel 00 : 0[19000] -> 1[1a000] via SHM/direct/direct
a:1:2 [0] NCCL INFO Channel 00/0 : 1[1a000] -> 2[19000] [send] via NET/Socket/0
b:7:9 [0] NCCL INFO Channel 00/0 : 1[1a000] -> 2[19000] [receive] via NET/Socket/0
a:1:2 [0] NCCL INFO Could not enable P2P between dev 0(=19000) and dev 1(=1a000)
a:1:2 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!
a:1:2 [0] NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instablity or hang!
)";

TEST(NcclLog, VersionNetworkAndP2pChannels) {
  const auto s = parse_nccl_log(kTwoGpusP2p);
  EXPECT_EQ(s.library, "NCCL");
  EXPECT_EQ(s.version, "2.21.5+cuda12.4");
  EXPECT_EQ(s.network, "Socket");
  ASSERT_EQ(s.socket_interfaces.size(), 2u);
  EXPECT_EQ(s.socket_interfaces[0], "eth0:10.1.0.11");
  EXPECT_EQ(s.socket_interfaces[1], "ib0:192.168.7.11");
  ASSERT_EQ(s.transports.size(), 2u);  // 0->1 (two channels) and 1->0
  EXPECT_EQ(s.transports[0].from_rank, 0);
  EXPECT_EQ(s.transports[0].to_rank, 1);
  EXPECT_EQ(s.transports[0].kind, "P2P");
  EXPECT_EQ(s.transports[0].detail, "P2P/CUMEM/read");
  EXPECT_EQ(s.transports[0].channels, 2);
  EXPECT_FALSE(s.uses_sockets());
  EXPECT_EQ(s.between(1, 0), "P2P/CUMEM/read");
  EXPECT_EQ(s.hosts, std::vector<std::string>{"node1"});
  EXPECT_TRUE(s.warnings.empty());
}

TEST(NcclLog, SettingsShmSocketsAndWarnings) {
  const auto s = parse_nccl_log(kShmAndSockets);
  EXPECT_EQ(s.version, "2.18.3+cuda12.2");
  EXPECT_EQ(s.env_settings.at("NCCL_P2P_DISABLE"), "1");
  EXPECT_EQ(s.env_settings.at("NCCL_SOCKET_IFNAME"), "eth0");
  ASSERT_EQ(s.transports.size(), 2u);  // [send] and [receive] of 1->2 are one pair and detail
  EXPECT_EQ(s.transports[0].detail, "SHM/direct/direct");
  EXPECT_EQ(s.transports[1].detail, "NET/Socket/0");
  EXPECT_EQ(s.transports[1].channels, 2);
  EXPECT_TRUE(s.uses_sockets());
  EXPECT_EQ(s.between(2, 1), "NET/Socket/0");
  EXPECT_EQ(s.between(2, 1, /*either=*/false), "");
  ASSERT_EQ(s.p2p_failures.size(), 1u);
  EXPECT_NE(s.p2p_failures[0].find("Could not enable P2P between dev 0"), std::string::npos);
  ASSERT_EQ(s.warnings.size(), 1u);  // repeated WARN lines count once
  EXPECT_EQ(s.hosts, (std::vector<std::string>{"a", "b"}));
}

TEST(NcclLog, RcclAndNoise) {
  const auto s = parse_nccl_log("x:1:1 [0] NCCL INFO RCCL version 2.20.5+hip6.2\nnot a NCCL line\n\n");
  EXPECT_EQ(s.library, "RCCL");
  EXPECT_EQ(s.version, "2.20.5+hip6.2");
  EXPECT_TRUE(parse_nccl_log("").empty());
  EXPECT_TRUE(parse_nccl_log("garbage\x01\x02 Channel").empty());
}

}  // namespace
}  // namespace accel::multi
