// Pasted tool output: the GPUs of rocminfo, hipInfo, dxdiag /t and
// nvidia-smi, and how explain completes the machine facts with them.
#include <gtest/gtest.h>

#include <sstream>

#include "core/kb_tool_output.hpp"
#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::read_file;
using testing::repo_kb;

std::string fixture(const std::string& name) {
  return read_file(std::string(ACCEL_TEST_FIXTURES) + "/tool_output/" + name);
}

TEST(ToolOutput, RocminfoListsEveryGpuAgentButNotTheCpu) {
  const auto g = read_tool_output(fixture("rocminfo_7900xtx_igpu.txt"));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].tool, "rocminfo");
  EXPECT_EQ(g[0].arch, "gfx1100");
  EXPECT_EQ(g[0].name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(g[1].arch, "gfx1036");  // the ISA block's amdgcn name does not replace it
  EXPECT_EQ(g[1].name, "AMD Radeon Graphics");
}

TEST(ToolOutput, HipInfoTakesGcnArchNameWithoutFeatures) {
  const auto g = read_tool_output(fixture("hipinfo_vega.txt"));
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].tool, "hipInfo");
  EXPECT_EQ(g[0].name, "Radeon RX Vega");
  EXPECT_EQ(g[0].arch, "gfx900");
}

TEST(ToolOutput, DxdiagCardsKeepTheirOwnDriverNotTheSoundDevices) {
  const auto g = read_tool_output(fixture("dxdiag_two_cards.txt"));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "AMD Radeon(TM) Graphics");
  EXPECT_EQ(g[0].driver, "31.0.21912.14");
  EXPECT_EQ(g[1].name, "AMD Radeon RX 6700 XT");
  EXPECT_EQ(g[1].driver, "31.0.24027.1012");
}

TEST(ToolOutput, NvidiaSmiTableQueryAndList) {
  const auto table = read_tool_output(fixture("nvidia_smi_table.txt"));
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].name, "NVIDIA GeForce ...");  // nvidia-smi cuts long names
  EXPECT_EQ(table[1].name, "NVIDIA A40");
  EXPECT_EQ(table[1].driver, "525.116.04");
  const auto q = read_tool_output(fixture("nvidia_smi_q.txt"));
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q[0].name, "NVIDIA GeForce GTX 1080");
  EXPECT_EQ(q[0].driver, "550.54.14");
  const auto l = read_tool_output(fixture("nvidia_smi_L.txt"));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1].name, "NVIDIA GeForce RTX 4090");
}

TEST(ToolOutput, PlainLogsNameNoGpu) {
  EXPECT_TRUE(
      read_tool_output("RuntimeError: HIP error: invalid device function\nName: something\n").empty());
}

ExplainResult explain_text(const std::string& text, const MachineContext& ctx = {}) {
  std::istringstream in(text);
  return repo_kb().explain_stream(in, ctx);
}

TEST(ToolOutput, ExplainSeesTheIgpuNextToTheDgpuInRocminfo) {
  const auto r = explain_text("RuntimeError: HIP error: invalid device function\n" +
                              fixture("rocminfo_7900xtx_igpu.txt"));
  EXPECT_EQ(r.facts.gfx, "gfx1100");  // the discrete GPU is the primary target
  ASSERT_EQ(r.facts.gfx_targets.size(), 2u);
  EXPECT_EQ(r.facts.gfx_targets[1], "gfx1036");
  EXPECT_TRUE(r.facts.igpu.value_or(false));
  EXPECT_TRUE(r.facts.dgpu.value_or(false));
  EXPECT_EQ(r.facts.vendor, "amd");
}

TEST(ToolOutput, ExplainMapsDxdiagNamesToTargets) {
  const auto r = explain_text(fixture("dxdiag_two_cards.txt"));
  EXPECT_EQ(r.facts.gfx, "gfx1031");  // RX 6700 XT through kb/arch.json gpu_names
  EXPECT_TRUE(r.facts.igpu.value_or(false));
}

TEST(ToolOutput, ExplainTakesNvidiaSmiNamesAndDriver) {
  const auto r = explain_text(fixture("nvidia_smi_L.txt") + fixture("nvidia_smi_table.txt"));
  EXPECT_EQ(r.facts.sm, "sm_86");  // RTX 3090
  EXPECT_EQ(r.facts.driver, "525.116.04");
}

TEST(ToolOutput, TheContextWins) {
  MachineContext c;
  c.arch = "gfx1030";
  const auto r = explain_text(fixture("rocminfo_7900xtx_igpu.txt"), c);
  EXPECT_EQ(r.facts.gfx, "gfx1030");
}

}  // namespace
}  // namespace accel
