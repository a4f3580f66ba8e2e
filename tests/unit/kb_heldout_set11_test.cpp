// Held-out set 11 (tests/fixtures/explain_heldout/set11/, collected
// 2026-12-04): 33 public threads from generic searches that reach mainstream
// stacks through a situation or a workload (after an update, docker, conda,
// two GPUs, a model family, LoRA training, ...), labelled by a helper that wrote
// no kb entry. Scored once fresh: 12/33, 14/33 after correcting two labels
// that missed an existing entry (score-untuned*.txt); four wording-breadth
// writers working blind at the same time added nothing
// (score-after-writers.txt). After entries for its misses, mostly other
// wordings of known families, and five relabels: 22/33, fix 7/15
// (score-after-tuning.txt; no longer a fresh figure). Kept as a regression
// test: every reading below must stay as it is until the kb reads more; a
// newly read case is moved out of the lists by hand.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set11) {
  testing::score_set(
      "set11",
      {"ollama-16667", "omarchy-3242", "oneclickllms-2", "llamacpppy-645", "leapfrogai-489", "ortgenai-488",
       "habana-1240", "ollama-11975", "stabilitymatrix-1624", "comfyinstaller-6", "sdnext-3918"},
      {"omarchy-3242", "llamacpppy-645", "ollama-11975", "stabilitymatrix-1624", "forge-2919",
       "comfyinstaller-6", "llamacookbook-32", "sdnext-3918"},
      33);
}

}  // namespace
}  // namespace accel
