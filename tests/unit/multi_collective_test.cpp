// core/multi/collective.hpp and link_bound.hpp: nccl-tests' bandwidths,
// the sizes, the expected values (checked against collectives simulated
// here in plain C++) and the bounds of PCIe and NVLink links.
#include <gtest/gtest.h>

#include <cmath>

#include "core/multi/collective.hpp"
#include "core/multi/link_bound.hpp"

namespace accel::multi {
namespace {

TEST(MultiCollective, NamesRoundTrip) {
  for (const auto c : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                       Collective::broadcast, Collective::send_recv}) {
    EXPECT_EQ(parse_collective(to_string(c)), c);
  }
  EXPECT_EQ(parse_collective("AllReduce"), Collective::all_reduce);
  EXPECT_EQ(parse_collective("sendrecv"), Collective::send_recv);
  EXPECT_FALSE(parse_collective("alltoall"));
  EXPECT_EQ(group_collectives().size(), 4u);
}

TEST(MultiCollective, BusFactorsAreNcclTests) {
  // doc/PERFORMANCE.md "Summary".
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_gather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::send_recv, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(Collective::all_reduce, 1), 0.0);
}

TEST(MultiCollective, BandwidthOfAKnownRun) {
  // 1 GiB all-reduce over 8 ranks in 10 ms: algbw = 107.374 GB/s, busbw x 1.75.
  const double s = 1024.0 * 1024 * 1024;
  const auto b = bandwidth(Collective::all_reduce, s, 10000, 8);
  EXPECT_NEAR(b.algbw_gbps, s / 0.01 / 1e9, 1e-9);
  EXPECT_NEAR(b.busbw_gbps, b.algbw_gbps * 1.75, 1e-9);
  EXPECT_EQ(bandwidth(Collective::all_reduce, s, 0, 8).algbw_gbps, 0);
}

TEST(MultiCollective, ShapesRoundAsNcclTests) {
  // all-gather of S = 1 MiB fp32 over 3 ranks: per-rank 87381 elements -> 87380 (multiple of 4).
  const auto g = collective_shape(Collective::all_gather, 1 << 20, 4, 3);
  EXPECT_EQ(g.input_elements, 87380);
  EXPECT_EQ(g.output_elements, 87380 * 3);
  EXPECT_DOUBLE_EQ(g.size_bytes, 87380.0 * 3 * 4);
  const auto rs = collective_shape(Collective::reduce_scatter, 1 << 20, 2, 4);  // bf16: multiple of 8
  EXPECT_EQ(rs.output_elements, 131072);
  EXPECT_EQ(rs.input_elements, 131072 * 4);
  const auto ar = collective_shape(Collective::all_reduce, 4096, 4, 7);
  EXPECT_EQ(ar.input_elements, 1024);
  EXPECT_DOUBLE_EQ(ar.size_bytes, 4096);
  EXPECT_THROW(collective_shape(Collective::all_reduce, 0, 4, 2), std::invalid_argument);
  EXPECT_THROW(collective_shape(Collective::all_reduce, 64, 4, 0), std::invalid_argument);
}

/// The collectives done by hand on small buffers: expected_value must agree.
TEST(MultiCollective, ExpectedValuesMatchASimulation) {
  for (const int n : {2, 3, 5}) {
    const std::int64_t m = 7;  // per-rank elements
    std::vector<std::vector<double>> in(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      for (std::int64_t i = 0; i < m * n; ++i) in[static_cast<std::size_t>(r)].push_back(pattern_value(r, i));
    }
    for (int r = 0; r < n; ++r) {
      for (std::int64_t i = 0; i < m; ++i) {
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += in[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)];
        EXPECT_EQ(expected_value(Collective::all_reduce, r, i, n, m), sum);
        EXPECT_EQ(expected_value(Collective::broadcast, r, i, n, m), in[0][static_cast<std::size_t>(i)]);
        EXPECT_EQ(expected_value(Collective::send_recv, r, i, n, m),
                  in[static_cast<std::size_t>((r + n - 1) % n)][static_cast<std::size_t>(i)]);
        // reduce-scatter: rank r's block r of the n*m inputs, summed.
        double rs = 0;
        for (int k = 0; k < n; ++k)
          rs += in[static_cast<std::size_t>(k)][static_cast<std::size_t>(r * m + i)];
        EXPECT_EQ(expected_value(Collective::reduce_scatter, r, i, n, m * n), rs);
      }
      // all-gather: the n inputs of m elements, concatenated.
      for (std::int64_t i = 0; i < m * n; ++i) {
        EXPECT_EQ(expected_value(Collective::all_gather, r, i, n, m),
                  in[static_cast<std::size_t>(i / m)][static_cast<std::size_t>(i % m)]);
      }
    }
  }
}

TEST(MultiCollective, PatternSumsStayExactInBf16) {
  // Up to 85 ranks the largest sum (3 per rank) stays within bf16's 8
  // significant bits' exact integers (256).
  EXPECT_LE(expected_value(Collective::all_reduce, 0, 2, 85, 4), 256.0);
  for (std::int64_t i = 0; i < 6; ++i) {
    const double v = pattern_value(4, i);
    EXPECT_TRUE(v == 1 || v == 2 || v == 3);
  }
}

TEST(MultiCollective, SizesAndKeys) {
  EXPECT_EQ(size_label(4096), "4KiB");
  EXPECT_EQ(size_label(1 << 20), "1MiB");
  EXPECT_EQ(size_label(1024.0 * 1024 * 1024), "1GiB");
  EXPECT_EQ(size_label(1000), "1000B");
  EXPECT_EQ(parse_size("64K"), 65536.0);
  EXPECT_EQ(parse_size("1MiB"), 1048576.0);
  EXPECT_EQ(parse_size("2g"), 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(parse_size("4096"), 4096.0);
  EXPECT_FALSE(parse_size("lots"));
  EXPECT_FALSE(parse_size("-4K"));
  EXPECT_FALSE(parse_size("4X"));
  const auto sweep = size_sweep(1024, 1 << 20);
  ASSERT_EQ(sweep.size(), 6u);
  EXPECT_EQ(sweep.front(), 1024);
  EXPECT_EQ(sweep.back(), 1 << 20);
  EXPECT_TRUE(size_sweep(8, 4).empty());
  EXPECT_EQ(collective_key("nccl", Collective::all_reduce, "bf16", 1 << 20, 8),
            "multi/nccl/all_reduce/bf16/1MiB/n8");
  EXPECT_EQ(link_key("gloo", "fp32", 4096, 1, 0), "multi/gloo/send_recv/fp32/4KiB/r1-r0");
  EXPECT_EQ(group_key("gloo", 2), "multi/gloo/group/n2");
  EXPECT_EQ(rank_key("nccl", 3), "multi/nccl/rank/r3");
}

TEST(MultiCollective, RingLinks) {
  EXPECT_TRUE(ring_links(1).empty());
  const auto two = ring_links(2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], std::make_pair(0, 1));
  EXPECT_EQ(two[1], std::make_pair(1, 0));
  const auto four = ring_links(4);
  ASSERT_EQ(four.size(), 4u);
  EXPECT_EQ(four.back(), std::make_pair(3, 0));
}

TEST(MultiLinkBound, PcieRatesAfterEncoding) {
  EXPECT_NEAR(*pcie_lane_gbps("2.5 GT/s PCIe"), 0.25, 1e-12);
  EXPECT_NEAR(*pcie_lane_gbps("8.0 GT/s PCIe"), 8.0 * 128 / 130 / 8, 1e-12);
  EXPECT_NEAR(*pcie_link_gbps("16.0 GT/s PCIe", 16), 31.5077, 1e-3);
  EXPECT_NEAR(*pcie_link_gbps("32.0 GT/s PCIe", 16), 63.0154, 1e-3);
  EXPECT_NEAR(*pcie_link_gbps("8 GT/s", 4), 3.938, 1e-3);
  EXPECT_FALSE(pcie_link_gbps("Unknown", 16));
  EXPECT_FALSE(pcie_link_gbps("16.0 GT/s PCIe", std::nullopt));
  EXPECT_EQ(pcie_generation("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation("?"), 0);
}

TEST(MultiLinkBound, NvlinkPerLink) {
  EXPECT_EQ(nvlink_link_gbps("9.0"), 25.0);
  EXPECT_EQ(nvlink_link_gbps("10.0"), 50.0);
  EXPECT_EQ(nvlink_link_gbps("8.6"), 14.0625);
  EXPECT_FALSE(nvlink_link_gbps("7.5"));  // Turing GeForce has no NVLink in the table
}

TEST(MultiLinkBound, PciAddressesNormalised) {
  EXPECT_EQ(normalize_pci_address("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(normalize_pci_address("0000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(normalize_pci_address("not an address"), "not an address");
}

}  // namespace
}  // namespace accel::multi
