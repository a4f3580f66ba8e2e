// Held-out set 10 (tests/fixtures/explain_heldout/set10/, collected
// 2026-12-04): 52 public threads from generic searches that reach mainstream
// stacks through a GPU model, an OS version or a release, labelled on the kb of
// 0665839 by a helper that wrote no kb entry. Scored once fresh: 29/52, fix
// 7/25 (score-untuned.txt); five writers working blind at the same time added
// nothing (score-after-writers.txt). Its misses were mostly other wordings of
// known families; after entries for them (written from other threads too) and
// three relabels, 38/52, fix 8/25, and 39/52 after set 11's round
// (score-after-tuning.txt; no longer a fresh figure). Kept as a regression
// test: every reading below must stay as it is until the kb reads more; a
// newly read case is moved out of the lists by hand.
#include <gtest/gtest.h>

#include "kb_heldout_util.hpp"

namespace accel {
namespace {

TEST(KbHeldOut, Set10) {
  testing::score_set(
      "set10",
      {"ollama-7869", "ort-12677", "xformers-1146", "rocmlibs780m-1", "dnnbench-5", "pytorch-188953",
       "whisperwebui-516", "ceres-49", "nvpatcher-145", "ollama-16007", "sygil-34", "dreamtextures-19",
       "vllm-179"},
      {"ollama-7869", "ollama-684", "ort-12677", "xformers-1146", "rocmlibs780m-1", "stemroller-102",
       "textgen-7330", "dnnbench-5", "ceres-49", "nvpatcher-145", "ollama-16007", "sygil-34",
       "dreamtextures-19", "vllm-179", "ollama-14188", "dsslm-4", "chainner-2240"},
      52);
}

}  // namespace
}  // namespace accel
