// The session-profile parser and the placement classification on recorded
// and documented profiles (tests/fixtures/ort_profiles/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "engines/onnxruntime/profile_parse.hpp"

namespace {

using namespace accel::ort;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(ACCEL_TEST_FIXTURES) + "/ort_profiles/" + name, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OrtProfile, RecordedCpuProfile) {
  const ParsedProfile p = parse_profile(fixture("cpu-ort-1.30.0-mlp.json"));
  EXPECT_EQ(p.runs, 3);
  ASSERT_EQ(p.nodes.size(), 12u);  // 4 nodes x 3 runs
  EXPECT_EQ(p.nodes[0].node, "MatMul_0");
  EXPECT_EQ(p.nodes[0].op, "MatMul");
  EXPECT_EQ(p.nodes[0].provider, "CPUExecutionProvider");
  EXPECT_DOUBLE_EQ(p.nodes[0].dur_us, 156);
  const Placement pl = classify_placement(p, "CPUExecutionProvider");
  EXPECT_EQ(pl.where, "host");
  EXPECT_EQ(pl.target_nodes, 4);
  EXPECT_EQ(pl.cpu_nodes, 0);
  EXPECT_EQ(pl.memcpy_nodes, 0);
  // (156 + 28128 + 16 + 29) + (47 + 26 + 11 + 22) + the third run, over 3 runs.
  EXPECT_GT(pl.target_us, 9000);
}

TEST(OrtProfile, RecordedCpuProfileForADeviceTargetIsAFallback) {
  // The same events read for a DirectML target: every node ran on the CPU.
  const Placement pl =
      classify_placement(parse_profile(fixture("cpu-ort-1.30.0-mlp.json")), "DmlExecutionProvider");
  EXPECT_EQ(pl.where, "cpu_fallback");
  EXPECT_EQ(pl.cpu_nodes, 4);
  EXPECT_EQ(pl.target_nodes, 0);
  ASSERT_EQ(pl.cpu_ops.size(), 4u);
  EXPECT_EQ(pl.cpu_ops[0], "MatMul");
}

TEST(OrtProfile, RecordedFp16OnTheCpuCountsTheInsertedCasts) {
  // ONNX Runtime 1.30's CPU provider has no fp16 MatMul: it inserts Casts to
  // fp32 around it (the weight's cast is folded at load time).
  const Placement pl =
      classify_placement(parse_profile(fixture("cpu-ort-1.30.0-matmul-fp16.json")), "CPUExecutionProvider");
  EXPECT_EQ(pl.where, "host");
  EXPECT_EQ(pl.target_nodes, 3);
  EXPECT_EQ(pl.inserted_casts, 2);
  EXPECT_GT(pl.inserted_cast_us, 0);
  EXPECT_NE(pl.detail.find("2 of them Cast nodes the runtime inserted"), std::string::npos) << pl.detail;
}

TEST(OrtProfile, DirectMlFallbackCountsCpuNodesAndCopies) {
  const Placement pl =
      classify_placement(parse_profile(fixture("dml-fallback-documented.json")), "DmlExecutionProvider");
  EXPECT_EQ(pl.runs, 2);
  EXPECT_EQ(pl.where, "cpu_fallback");
  EXPECT_EQ(pl.target_nodes, 2);  // the two fused partitions
  EXPECT_EQ(pl.cpu_nodes, 1);
  ASSERT_EQ(pl.cpu_ops.size(), 1u);
  EXPECT_EQ(pl.cpu_ops[0], "NonZero");
  EXPECT_EQ(pl.memcpy_nodes, 2);
  EXPECT_EQ(pl.to_host, 1);
  EXPECT_EQ(pl.from_host, 1);
  EXPECT_DOUBLE_EQ(pl.cpu_us, 120);     // per run
  EXPECT_DOUBLE_EQ(pl.memcpy_us, 95);   // 55 + 40 per run
  EXPECT_DOUBLE_EQ(pl.target_us, 640);  // 410 + 230
  EXPECT_DOUBLE_EQ(pl.fallback_cost_us(), 215);
  EXPECT_NE(pl.detail.find("NonZero"), std::string::npos) << pl.detail;
  EXPECT_EQ(pl.nodes_by_provider.at("DmlExecutionProvider"), 2);
  EXPECT_EQ(pl.nodes_by_provider.at("CPUExecutionProvider"), 1);
}

TEST(OrtProfile, DirectMlOnDevice) {
  const Placement pl =
      classify_placement(parse_profile(fixture("dml-on-device-documented.json")), "DmlExecutionProvider");
  EXPECT_EQ(pl.where, "device_kernels");
  EXPECT_EQ(pl.runs, 3);
  EXPECT_EQ(pl.target_nodes, 1);
  EXPECT_DOUBLE_EQ(pl.target_us, 702);
  EXPECT_EQ(pl.cpu_nodes, 0);
}

TEST(OrtProfile, ShapeNodesOnTheCpuAreNotAFallback) {
  const Placement pl = classify_placement(parse_profile(fixture("cuda-shape-on-cpu-documented.json")),
                                          "CUDAExecutionProvider");
  EXPECT_EQ(pl.where, "device_kernels");
  EXPECT_EQ(pl.target_nodes, 2);
  EXPECT_EQ(pl.shape_nodes, 1);
  EXPECT_EQ(pl.cpu_nodes, 0);
}

TEST(OrtProfile, MalformedInput) {
  EXPECT_THROW(parse_profile("not json"), ProfileError);
  EXPECT_THROW(parse_profile("{\"a\": 1}"), ProfileError);
  EXPECT_THROW(parse_profile(""), ProfileError);
  // Odd events are skipped, not fatal.
  const ParsedProfile p = parse_profile(
      R"([1, "x", null, {"cat":"Node"}, {"cat":"Node","name":"A_kernel_time","args":"no"},
          {"cat":"Node","name":"B_kernel_time","dur":-5,"args":{"op_name":"Relu","provider":7}},
          {"cat":"Node","name":"C_fence_before","dur":3,"args":{"op_name":"Relu"}}])");
  ASSERT_EQ(p.nodes.size(), 1u);
  EXPECT_EQ(p.nodes[0].node, "B");
  EXPECT_EQ(p.nodes[0].provider, "");
  EXPECT_EQ(p.nodes[0].dur_us, 0);
  EXPECT_EQ(classify_placement(parse_profile("[]"), "DmlExecutionProvider").where, "no_nodes");
  // The {"traceEvents": [...]} wrapping some tools write.
  EXPECT_EQ(parse_profile(R"({"traceEvents": [{"cat":"Session","name":"model_run"}]})").runs, 1);
}

}  // namespace
