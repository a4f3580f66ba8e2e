// Held-out set mined-amd (tests/fixtures/explain_heldout/mined-amd/, 53 public
// ROCm/HIP, MIOpen/rocBLAS, WSL/container, Windows HIP SDK and llama.cpp /
// Ollama / LM Studio threads): 40 working cases tuned on, 13 blind ones scored
// once after the kb changes (10/13, fixes 8/11), then three post-blind
// additions (docs/validation/2026-12-02c-explain-mined-amd.md). Kept as a
// regression test: a kb change that loses one of these readings fails here.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

using testing::score_set;

TEST(KbHeldOut, MinedAmd) {
  // No known misses: invokeai-3967, ollama-2934 and therock-7952 (blind
  // misses) and the fixes of ollama-2934, strixtb-75 and therock-7952 are read
  // since the post-blind changes named in the record.
  score_set("mined-amd", {}, {}, 53);
}

}  // namespace
}  // namespace accel
