// Held-out set mined-mpsxpu (tests/fixtures/explain_heldout/mined-mpsxpu/,
// docs/validation/2026-12-02c-explain-mined-mpsxpu.md): 75 public threads of
// Apple MPS / Metal, Intel XPU / IPEX / SYCL, OpenVINO GPU and TensorFlow / JAX
// GPU discovery; 57 working cases tuned on, 18 blind ones scored once after
// the kb changes and left as they were.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

using testing::score_set;

TEST(KbHeldOut, MinedMpsXpu) {
  // markovian-9 (blind, fix only): the thread's resolution was a torch
  // nightly; the fix says "torch to 2.1 or newer (pip install -U torch)".
  score_set("mined-mpsxpu", {}, {"markovian-9"}, 75);
}

}  // namespace
}  // namespace accel
