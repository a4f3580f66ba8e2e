// Held-out set 12 (tests/fixtures/explain_heldout/set12/, collected
// 2026-12-04): 46 public threads from queries drawn at random (a stack from
// issue 15's list x a generic word, fixed seed; each query's results taken in
// a drawn order, not by rank), labelled by two helpers that wrote no kb entry.
// Scored once fresh: 23/46, fix 8/22 (score-untuned.txt). After entries for
// its misses and eleven relabels to the new entries' ids: 41/46, fix 19/22
// (score-after-tuning.txt; no longer a fresh figure). Kept as a regression
// test: every reading below must stay as it is until the kb reads more; a
// newly read case is moved out of the lists by hand.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set12) {
  testing::score_set(
      "set12", {"groundingdinoonnxrun-2", "pytorch-119370", "pytorch-182719", "llamacpppy-971", "cupy-906"},
      {"groundingdinoonnxrun-2", "llamacpppy-971", "cupy-906"}, 46);
}

}  // namespace
}  // namespace accel
