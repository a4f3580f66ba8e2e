// TF-IDF cosine similarity of short texts (core/text_similarity.hpp): the
// words it compares, and that the closest labelled document wins.
#include <gtest/gtest.h>

#include "core/text_similarity.hpp"

namespace accel {
namespace {

TEST(SimilarityWords, NumbersInsideWordsAreOneShape) {
  const std::vector<std::string> want{"sm_#", "gfx#", "cu#", "hiperrornobinaryforgpu"};
  EXPECT_EQ(similarity_words("sm_120 gfx1032 cu128 hipErrorNoBinaryForGpu"), want);
  EXPECT_EQ(similarity_words("sm_86"), similarity_words("sm_120"));
}

TEST(SimilarityWords, StopWordsNumbersAndAddressesAreDropped) {
  EXPECT_TRUE(similarity_words("the 42 of 3.5 0x00007ff47162eb00 a").empty());
  const std::vector<std::string> want{"out", "memory"};
  EXPECT_EQ(similarity_words("out of memory"), want);
  EXPECT_EQ(similarity_words("__init__"), std::vector<std::string>{"init"});
}

TEST(SimilarityIndex, TheClosestLabelWinsAndScoresAreCosines) {
  SimilarityIndex index;
  index.add(0, "CUDA out of memory. Tried to allocate 2.00 GiB");
  index.add(0, "torch.OutOfMemoryError: CUDA out of memory");
  index.add(1, "DLL load failed while importing _C: The specified module could not be found");
  index.add(2, "no kernel image is available for execution on the device");
  index.finish();
  ASSERT_EQ(index.documents(), 4u);

  const auto same = index.nearest("no kernel image is available for execution on the device", 0.0, 3);
  ASSERT_FALSE(same.empty());
  EXPECT_EQ(same.front().label, 2u);
  EXPECT_NEAR(same.front().similarity, 1.0, 1e-9);

  const auto reworded = index.nearest("RuntimeError: HIP out of memory while trying to allocate", 0.0, 3);
  ASSERT_FALSE(reworded.empty());
  EXPECT_EQ(reworded.front().label, 0u);
  EXPECT_GT(reworded.front().similarity, 0.3);
  EXPECT_LT(reworded.front().similarity, 1.0);
  // One hit per label: the best of its documents.
  for (std::size_t i = 1; i < reworded.size(); ++i) EXPECT_NE(reworded[i].label, 0u);
}

TEST(SimilarityIndex, TheThresholdAndTheLimitApply) {
  SimilarityIndex index;
  index.add(0, "alpha beta gamma");
  index.add(1, "alpha delta epsilon");
  index.add(2, "zeta eta theta");
  index.finish();
  EXPECT_TRUE(index.nearest("iota kappa", 0.0, 3).empty()) << "no shared word, no hit";
  EXPECT_TRUE(index.nearest("", 0.0, 3).empty());
  const auto all = index.nearest("alpha beta", 0.0, 3);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].label, 0u);
  EXPECT_EQ(index.nearest("alpha beta", 0.0, 1).size(), 1u);
  EXPECT_TRUE(index.nearest("alpha beta", 0.99, 3).empty());
}

TEST(SimilarityIndex, AnEmptyOrUnfinishedIndexFindsNothing) {
  SimilarityIndex index;
  EXPECT_TRUE(index.nearest("anything", 0.0, 3).empty());
  index.add(0, "something");
  EXPECT_TRUE(index.nearest("something", 0.0, 3).empty()) << "finish() not called yet";
  index.finish();
  EXPECT_EQ(index.nearest("something", 0.0, 3).size(), 1u);
}

}  // namespace
}  // namespace accel
