// Held-out set 5 (tests/fixtures/explain_heldout/set5/, 2026-12-02): 80 public
// threads sampled by generic searches per ecosystem, not per known family.
// Untuned 29/80; 60 working cases were then used to generalise the kb, the
// 20 blind ones (blind.txt) scored once: 14/20 (score-blind.txt). Kept as a
// regression test: every reading below must stay as it is.
// The 9 misses: one-off regressions of a nightly or develop build that the kb
// has no entry for (a1111-15874, miopen-689, migraphx-3483, pytorch-117465),
// ROCm failing under an install path with a space (ollama-8765, read as the
// generic no-kernel-image error), a popen() failure in MIOpen whose cause
// (host memory) the text does not show (miopen-312), a healthy Lightning
// start whose problem is not in the log (lightning-3355), and two old torch
// messages whose recorded cause is one of the listed possibilities, not the
// top reading (pytorch-49325, pytorch-631).
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set5) {
  testing::score_set("set5",
                     {"pytorch-49325", "pytorch-631", "a1111-15874", "miopen-312", "miopen-689",
                      "migraphx-3483", "ollama-8765", "lightning-3355", "pytorch-117465"},
                     {"pytorch-49325", "pytorch-631", "pytorch-9263", "a1111-15874", "migraphx-3483",
                      "ollama-8765", "lightning-3355", "pytorch-117465"},
                     80);
}

}  // namespace
}  // namespace accel
