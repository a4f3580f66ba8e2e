// Held-out set mined-win (tests/fixtures/explain_heldout/mined-win/, 72 public
// Windows / DirectML / ONNX Runtime / UI-app threads): 54 working cases tuned
// on, 18 blind ones scored once after the kb changes
// (docs/validation/2026-12-02c-explain-mined-win.md). Kept as a regression
// test: a kb change that loses one of these readings fails here.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

using testing::score_set;

TEST(KbHeldOut, MinedWin) {
  // zludacomfy-56 (blind): only a title "Error loading cublas64_11.dll" without
  // a WinError or "or one of its dependencies"; dml-665: torch-directml's CPU
  // fallback warning printed in lower case (op_cpu_fallback's pattern is
  // case-sensitive, torch.json); ort-6183 (blind): "only
  // ['CPUExecutionProvider'] is available" in prose; comfy-4845: "Torch not
  // being compiled with CUDA enabled" (torch.json's pattern wants "not
  // compiled"). Fix misses: sdnext-2139 (blind) names the old pytorch-directml
  // and the thread's answer was Python 3.10; comfy-7826 (an RTX 50xx needs
  // cu128, torch.json), sdamdgpu-634 (the AMD fork's --use-directml /
  // --use-zluda, torch.json), fooocus-3737 and fooocus-1466 (no NVIDIA GPU in
  // the machine, cuda.json).
  score_set(
      "mined-win", {"zludacomfy-56", "dml-665", "ort-6183", "comfy-4845"},
      {"ort-6183", "comfy-4845", "sdnext-2139", "comfy-7826", "sdamdgpu-634", "fooocus-3737", "fooocus-1466"},
      72);
}

}  // namespace
}  // namespace accel
