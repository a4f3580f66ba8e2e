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
  testing::score_set(
      "set8", {"a1111-7638",    "yoloscpp-31",    "ort-23612",        "jax-25822",    "silk-71",
               "cactus-1343",   "tf-808",         "kobold-610",       "lmstudio-943", "cupy-987",
               "chainergqn-7",  "paddleclas-268", "geti-572",         "mmdet-3398",   "yolov8trt-226",
               "llamafile-384", "fooocus-2370",   "fooocus-1227",     "colab-2751",   "colab-985",
               "unsloth-1760",  "ollama-15748",   "voicechanger-225", "d2-5009",      "localai-5063",
               "localai-2394",  "xla-2035",       "xla-9725",         "triton-5863",  "nerfstudio-1219",
               "jan-7968",      "ollama-15477",   "lmstudio-1356",    "tfdml-367",    "tfdml-331",
               "tfdml-352",     "comfy-6497",     "facewin-125",      "horovod-748",  "horovod-398",
               "horovod-90"},
      {"yoloscpp-31",   "ort-23612",  "cactus-1343",   "tf-808",      "kobold-610",
       "geti-572",      "mmdet-3398", "yolov8trt-226", "ollama-4486", "fooocus-2370",
       "ollama-15748",  "d2-5009",    "xla-2035",      "xla-9725",    "jan-7968",
       "lmstudio-1356", "tfdml-367",  "tfdml-331",     "comfy-6497",  "facewin-125"},
      55);
}

}  // namespace
}  // namespace accel
