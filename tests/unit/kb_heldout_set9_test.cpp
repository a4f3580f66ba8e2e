// Held-out set 9 (tests/fixtures/explain_heldout/set9/, collected 2026-12-03
// evening): 55 public threads from new generic searches per ecosystem and per
// application, labelled on the kb of ae88736 by a helper that wrote no kb
// entry, while three others broadened the kb without seeing it. It leans to
// stacks the kb does not cover (CUDA-extension builds, Vulkan/ncnn/MLC,
// OpenCL, DGL, Numba, Edge TPU, TFLite, tfjs); 37 cases are causes without an
// entry. Scored once: the kb of ae88736 and the kb after that evening's
// breadth work both read 16/55, fix 1/32 (score-untuned.txt,
// score-after-session.txt). On 2026-12-04, after entries for the families it
// exposed (written from other threads) and 10 relabels, 26/55, fix 6/32
// (score-after-families.txt; no longer a fresh figure). Kept as a regression
// test: every reading below must stay as it is until the kb reads more; a
// newly read case is moved out of the lists by hand.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set9) {
  testing::score_set(
      "set9", {"mamba-467",    "switchtoolbox-657", "whispercpp-878",   "whispernet-211", "jade-82",
               "krita-695",    "krita-359",         "krita-399",        "video2x-718",    "upscayl-581",
               "gromacspy-22", "autogptq-115",      "autogptq-249",     "tf-44597",       "tfserving-1316",
               "numba-9906",   "pytorch3d-25",      "facerec-358",      "edgetpu-11",     "mlcllm-40",
               "mlcllm-1551",  "mlcllm-68",         "insightface-2295", "isaacsim-794",   "tfjs-4310",
               "tfjs-1589",    "scn-164",           "centerpoint-347",  "trelliswin-5"},
      {"mamba-467",        "switchtoolbox-657", "whispercpp-878", "whispernet-211",  "jade-82",
       "krita-695",        "krita-359",         "krita-399",      "video2x-718",     "upscayl-581",
       "gromacspy-22",     "autogptq-115",      "autogptq-249",   "tf-44597",        "tfserving-1316",
       "numba-5868",       "pytorch3d-25",      "edgetpu-11",     "mlcllm-40",       "mlcllm-1551",
       "insightface-2295", "isaacsim-794",      "scn-164",        "centerpoint-347", "trelliswin-5",
       "easydiff-1522"},
      55);
}

}  // namespace
}  // namespace accel
