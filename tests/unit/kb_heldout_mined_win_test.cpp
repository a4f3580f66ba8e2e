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
  // ort-6183 (blind): "only ['CPUExecutionProvider'] is available" in prose.
  // zludacomfy-56 (blind), a title "Error loading cublas64_11.dll" without a
  // WinError, is read since gen-core's DLL wordings (a DLL named after a
  // failure word). Fix misses: sdnext-2139
  // (blind) names the old pytorch-directml and the thread's answer was Python
  // 3.10. dml-665, comfy-4845 and the fixes of comfy-7826, sdamdgpu-634,
  // fooocus-3737 and fooocus-1466 are read since kb-cuda applied this set's
  // proposals to torch.json and cuda.json.
  score_set("mined-win", {"ort-6183"}, {"ort-6183", "sdnext-2139"}, 72);
}

}  // namespace
}  // namespace accel
