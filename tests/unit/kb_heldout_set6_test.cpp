// Held-out set 6 (tests/fixtures/explain_heldout/set6/, collected 2026-12-02):
// 79 public threads sampled by new generic searches per ecosystem, never read
// by a kb writer. Checkpoint on the kb of 8ddd132: 38/79; after the relabel of
// 2026-12-03 (README) scored once on the kb of 1cb07f1: right cause 41/79,
// fix matching the resolution 11/40 (score-final.txt). Kept as a regression
// test: every reading below must stay as it is until the kb reads more.
// The 38 misses: 14 cases whose cause the kb has no entry for (new:-only,
// README), and 24 whose cause it has but whose text here it does not read as
// that cause (score-final.txt lists each case's top reading).
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set6) {
  testing::score_set(
      "set6", {"pytorch-17334",  "amuse-41",       "rocmlegacy-151",     "pytorch-60477",
               "rocmtf-20",      "miopen-47",      "rocmlegacy-3840",    "sdnext-4405",
               "llamacpp-25836", "sdcpp-2012",     "tfdml-41",           "directml-329",
               "ort-8907",       "ort-4132",       "ort-10770",          "pytorchscripts-19",
               "pytorch-69200",  "kronfluence-41", "gpustack-363",       "vllm-17939",
               "vllm-20743",     "llamacpppy-509", "ollama-9181",        "ollama-6604",
               "ollama-4531",    "ollamamusa-22",  "comfyexamples-30",   "xformers-971",
               "mvdream-5",      "lifestream-85",  "lightning-12774",    "llamafactory-1213",
               "ipex-560",       "sdnext-1144",    "neuralprophet-1572", "dia-75",
               "pytorch-130543", "ollama-12116"},
      {"pytorch-17334",  "amdgpu-340",   "rocmlegacy-151", "rocmtf-20",      "rocmlegacy-3840", "sdnext-4405",
       "llamacpp-25836", "sdcpp-2012",   "tfdml-41",       "ort-8907",       "ort-4132",        "ort-10770",
       "pytorch-69200",  "gpustack-363", "vllm-17939",     "llamacpppy-509", "ollama-9181",     "ollama-6604",
       "xformers-971",   "mvdream-5",    "deeponto-3",     "ipex-560",       "ipex-653",        "sdnext-1144",
       "amdgpu-351",     "freeu-21",     "comfy-10468",    "pytorch-130543", "ollama-12116"},
      79);
}

}  // namespace
}  // namespace accel
