#include <gtest/gtest.h>

#include "core/stats.hpp"

using namespace accel;

TEST(Stats, QuantilesInterpolateLikeNumpy) {
  // numpy.percentile([1, 2, 3, 4], [25, 50, 75]) == [1.75, 2.5, 3.25]
  const Summary s = summarize({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
}

TEST(Stats, EmptyAndSingle) {
  EXPECT_EQ(summarize({}).n, 0u);
  const Summary one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.iqr, 0);
}

TEST(Stats, RelativeIqrFlagsNoise) {
  const Summary tight = summarize({100, 101, 99, 100, 100});
  EXPECT_LT(relative_iqr(tight), kNoisyRelativeIqr);
  const Summary loose = summarize({100, 150, 60, 120, 80});
  EXPECT_GT(relative_iqr(loose), kNoisyRelativeIqr);
}
