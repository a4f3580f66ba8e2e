#include <gtest/gtest.h>

#include "engine_api/ops.hpp"
#include "engines/torch/suites.hpp"

using namespace accel;

TEST(Ops, MatmulRunsOnCpu) {
  engine::OpsOptions o;
  o.device = "cpu";
  o.quick = true;
  o.isolate = false;
  o.filters = {"ops/linalg/matmul/fp32"};
  const auto results = engine::run_ops(o);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;
  ASSERT_TRUE(results[0].timing);
  EXPECT_GT(results[0].timing->median_us, 0);
}
