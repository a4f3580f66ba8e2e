// Held-out set 7 (tests/fixtures/explain_heldout/set7/, collected 2026-12-03):
// 37 public threads from new generic searches per ecosystem, labelled on the
// kb of 1cb07f1 and scored once, untuned: 21/37, fix 7/17
// (score-untuned.txt). The kb of set 6's tuning (gen6, written without seeing
// this set) read exactly the same 21. Then it became the working set (gen7,
// a fit): the kb was generalised from its 16 misses (new entries for the
// missing causes, wider wordings, HIP wording ranked to the ROCm entry), and
// 4 new:-only cases were relabelled to the new entry that states their cause
// (llamacpp-11903, miopen-743, deepspeed-535, cs1o-10): 32/37, fix 14/17
// (score-tuned.txt). Kept as a regression test: every reading below must stay
// as it is until the kb reads more. The 5 misses are read as the class of
// their message, which the log cannot narrow to the thread's cause: an AMD
// machine's 'Found no NVIDIA driver' (labelled cuda_not_available), a ZLUDA
// driver break pasted as a bare 'CUDA unknown error', and three entries whose
// ranked possibilities include the thread's cause (NCCL remote error -> an
// InfiniBand fault; a CDI hook failure -> Container Toolkit 1.17.0;
// nvidia-container-cli's libnvidia-ml -> Docker Desktop on Linux).
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set7) {
  testing::score_set("set7", {"comfy-14902", "nccl-2076", "cs1o-35"}, {"cs1o-35"}, 37);
}

}  // namespace
}  // namespace accel
