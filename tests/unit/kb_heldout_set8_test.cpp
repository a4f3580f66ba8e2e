// Held-out set 8 (tests/fixtures/explain_heldout/set8/, collected 2026-12-03):
// 55 public threads from new generic searches per ecosystem and per
// application (it leans to stacks the kb covers thinly: Horovod, Colab,
// PaddlePaddle, the TensorFlow DirectML plugin, torch_xla, MLX apps), labelled
// on the kb of 16cc001 by a helper that wrote no kb entry; 24 cases are
// causes without an entry. Scored once: the kb of 16cc001 read 12/55, fix
// 3/23 (score-untuned.txt); the kb after that day's breadth work (written
// without seeing this set) 14/55, fix 3/23 (score-after-session.txt). Kept as
// a regression test: every reading below must stay as it is until the kb
// reads more; a newly read case is moved out of the lists by hand.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set8) {
  testing::score_set("set8", {"a1111-7638", "mmdet-3398", "d2-5009"}, {"mmdet-3398", "d2-5009"}, 55);
}

}  // namespace
}  // namespace accel
