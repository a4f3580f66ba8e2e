// Announced CPU fallbacks (core/fallback.hpp): the kb recognises the
// backend's warnings, the capture times each op, the evidence names them.
#include <gtest/gtest.h>

#include "core/fallback.hpp"
#include "kb_test_util.hpp"

using namespace accel;
using accel::testing::repo_kb;

namespace {
// torch-directml's own words (tests/../shared/fixtures/errors/dml-*), and
// the test backend's (tests/python/testdev/testdev.cpp).
const char* kDml =
    "The operator 'aten::_embedding_bag' is not currently supported on the DML backend and will fall back to "
    "run on the CPU. This may have performance implications. (Triggered internally at "
    "D:\\a\\_work\\1\\s\\pytorch-directml-plugin\\torch_directml\\csrc\\dml\\dml_cpu_fallback.cpp:17.)";
const char* kTestDev =
    "The operator 'aten::mul.out' is not currently supported on the AccelDoctorTestDevice backend and will "
    "fall back to run on the CPU. This may have performance implications.";

TraceEvent op(const std::string& name, double ts, double dur) {
  TraceEvent e;
  e.kind = TraceEvent::Kind::op;
  e.name = name;
  e.ts_us = ts;
  e.dur_us = dur;
  return e;
}
}  // namespace

TEST(Fallback, TheKbRecognisesTheAnnouncementsWithTheirOp) {
  const auto f =
      announced_fallbacks({"unrelated warning", kDml, kTestDev, kDml}, repo_kb(), MachineContext{});
  ASSERT_EQ(f.size(), 2u);  // each op once, in order
  EXPECT_EQ(f[0].op, "aten::_embedding_bag");
  EXPECT_EQ(f[1].op, "aten::mul.out");
  EXPECT_EQ(f[0].cause_id, "op_cpu_fallback");
}

TEST(Fallback, OtherWarningsAreNoFallback) {
  EXPECT_TRUE(announced_fallbacks({"UserWarning: Memory efficient kernel not used because: ..."}, repo_kb(),
                                  MachineContext{})
                  .empty());
  EXPECT_TRUE(announced_fallbacks({}, repo_kb(), MachineContext{}).empty());
}

TEST(Fallback, ProfilerNamesDropTheOverload) {
  EXPECT_EQ(profiler_op_name("aten::mul.out"), "aten::mul");
  EXPECT_EQ(profiler_op_name("aten::eye.m_out"), "aten::eye");
  EXPECT_EQ(profiler_op_name("aten::zero_"), "aten::zero_");
  EXPECT_EQ(profiler_op_name("aten::_foreach_add.List"), "aten::_foreach_add");
}

TEST(Fallback, OutermostCallsAreTimedOnce) {
  // aten::mul (functional, 100 µs) calls aten::mul (the out= variant the
  // fallback handles) which runs aten::mul on the CPU: one call of 100 µs.
  // A second, separate call of 40 µs; aten::exp 10 µs; other ops ignored.
  const std::vector<TraceEvent> events{
      op("aten::mul", 0, 100),  op("aten::mul", 5, 90),   op("aten::to", 6, 20),    op("aten::mul", 30, 30),
      op("aten::mul", 200, 40), op("aten::exp", 300, 10), op("aten::empty", 400, 5)};
  const auto t = time_fallbacks(events, {{"aten::mul.out", "op_cpu_fallback"},
                                         {"aten::exp.out", "op_cpu_fallback"},
                                         {"aten::tanh.out", "op_cpu_fallback"}});
  ASSERT_EQ(t.ops.size(), 3u);
  EXPECT_EQ(t.ops[0].calls, 2);
  EXPECT_DOUBLE_EQ(t.ops[0].time_us, 140);
  EXPECT_EQ(t.ops[1].calls, 1);
  EXPECT_DOUBLE_EQ(t.ops[1].time_us, 10);
  EXPECT_EQ(t.ops[2].calls, 0);
  EXPECT_DOUBLE_EQ(t.total_us, 150);
  EXPECT_DOUBLE_EQ(t.call_us, 405);
}

TEST(Fallback, NestedFallbacksCountOnceInTheTotal) {
  // aten::zeros (fallback) whose zero_ also falls back: 50 µs in all.
  const auto t = time_fallbacks({op("aten::zeros", 0, 50), op("aten::zero_", 10, 30)},
                                {{"aten::zeros", "c"}, {"aten::zero_", "c"}});
  EXPECT_DOUBLE_EQ(t.ops[0].time_us, 50);
  EXPECT_DOUBLE_EQ(t.ops[1].time_us, 30);
  EXPECT_DOUBLE_EQ(t.total_us, 50);
}

TEST(Fallback, EvidenceNamesTheOpsAndTheirShare) {
  ProfileEvidence p;
  p.where = Where::profiler_blind;
  const std::vector<AnnouncedFallback> ops{{"aten::mul.out", "op_cpu_fallback"}};
  const auto t = time_fallbacks({op("aten::mul", 0, 80), op("aten::empty", 80, 20)}, ops);
  mark_announced_fallback(p, ops, &t, "");
  EXPECT_EQ(to_string(p.where), "cpu_fallback");
  ASSERT_EQ(p.fallback_ops.size(), 1u);
  EXPECT_EQ(p.fallback_ops[0].op, "aten::mul.out");
  EXPECT_DOUBLE_EQ(p.fallback_cost_us, 80);
  EXPECT_DOUBLE_EQ(p.call_us, 100);
  EXPECT_NE(p.detail.find("aten::mul.out (1 call, 80"), std::string::npos) << p.detail;
  EXPECT_NE(p.detail.find("(80%)"), std::string::npos) << p.detail;
}

TEST(Fallback, UntimedFallbackSaysWhy) {
  ProfileEvidence p;
  mark_announced_fallback(p, {{"aten::mul.out", "op_cpu_fallback"}}, nullptr, "the profiler is off");
  EXPECT_EQ(to_string(p.where), "cpu_fallback");
  EXPECT_EQ(p.fallback_ops.size(), 1u);
  EXPECT_EQ(p.fallback_cost_us, 0);
  EXPECT_NE(p.detail.find("cost not measured: the profiler is off"), std::string::npos) << p.detail;
  ProfileEvidence none;
  mark_announced_fallback(none, {}, nullptr, "");
  EXPECT_TRUE(to_string(none.where).empty());
}

TEST(Fallback, BackendKernelsNameThePlugin) {
  ProfileEvidence p;
  p.where = Where::profiler_blind;
  mark_backend_kernels(p, "privateuseone:0", "torch_directml");
  EXPECT_EQ(to_string(p.where), "backend_kernels");
  EXPECT_NE(p.detail.find("torch_directml"), std::string::npos);
  EXPECT_NE(p.detail.find("privateuseone:0"), std::string::npos);
}

TEST(Fallback, FallbackOpsRoundTripThroughJson) {
  ProfileEvidence p;
  p.where = Where::cpu_fallback;
  p.fallback_ops.push_back({"aten::mul.out", "op_cpu_fallback", 2, 140.5});
  p.call_us = 200;
  const ProfileEvidence q = json(p).get<ProfileEvidence>();
  ASSERT_EQ(q.fallback_ops.size(), 1u);
  EXPECT_EQ(q.fallback_ops[0].calls, 2);
  EXPECT_DOUBLE_EQ(q.fallback_ops[0].time_us, 140.5);
  EXPECT_DOUBLE_EQ(q.call_us, 200);
}
