// Held-out sets 1-4 (tests/fixtures/explain_heldout/, public threads with
// their expected cause): each part was scored once before the kb changes it
// led to (docs/validation/2026-12-01-explain-heldout*.md). Kept as a
// regression test: a kb change that loses one of these readings fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <set>

#include <re2/re2.h>

#include "core/json.hpp"
#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::repo_kb;

// Scores one held-out set: every case's top cause, and where the thread has a
// resolution, that the fix names it. `misses`: cases not read yet (they must
// stay unread until removed from the list); `fix_misses` likewise for fixes.
void score_set(const std::string& dir, const std::set<std::string>& misses,
               const std::set<std::string>& fix_misses, std::size_t min_cases) {
  const std::string kSet = std::string(ACCEL_TEST_FIXTURES) + "/explain_heldout/" + dir;
  const auto& kKnownMisses = misses;
  std::ifstream in(kSet + "/cases.json");
  ASSERT_TRUE(in) << kSet;
  const json cases = json::parse(in);
  ASSERT_GE(cases.size(), min_cases);
  std::size_t right = 0, fix_cases = 0, fix_ok = 0;
  for (const auto& c : cases) {
    const std::string name = c.at("name").get<std::string>();
    std::ifstream log(kSet + "/cases/" + name + ".txt", std::ios::binary);
    ASSERT_TRUE(log) << name;
    const auto r = repo_kb().explain_stream(log, MachineContext{});
    const auto expect = c.at("expect_ids").get<std::set<std::string>>();
    const bool ok = !r.diagnoses.empty() && expect.count(r.diagnoses.front().id) > 0;
    right += ok;
    // The fix names the thread's resolution (score.py's "fix matching").
    if (c.contains("fix_mentions") && c.at("fix_mentions").is_array()) {
      ++fix_cases;
      const Diagnosis* d = nullptr;
      for (const auto& x : r.diagnoses) {
        if (expect.count(x.id)) {
          d = &x;
          break;
        }
      }
      bool good = d != nullptr;
      const std::string text = d ? diagnosis_to_json(*d).dump() : "";
      for (const auto& m : c.at("fix_mentions")) {
        good = good && RE2::PartialMatch(text, RE2("(?i)" + m.get<std::string>()));
      }
      fix_ok += good;
      if (fix_misses.count(name)) {
        EXPECT_FALSE(good) << name << "'s fix names the resolution now: remove it from the fix misses";
      } else {
        EXPECT_TRUE(good) << name << ": the fix does not name the thread's resolution";
      }
    }
    if (kKnownMisses.count(name)) {
      EXPECT_FALSE(ok) << name << " is read now: remove it from kKnownMisses";
    } else {
      EXPECT_TRUE(ok) << name << ": top " << (r.diagnoses.empty() ? "-" : r.diagnoses.front().id);
    }
  }
  EXPECT_EQ(right + kKnownMisses.size(), cases.size());
  std::cout << "held-out " << dir << ": right cause " << right << "/" << cases.size()
            << ", fix matching the resolution " << fix_ok << "/" << fix_cases << "\n";
}

TEST(KbHeldOut, Set1) {
  // Set 1 (tuned after its first score, see 2026-12-01-explain-heldout.md): the
  // excerpt of dml-396 stops before its error line; torchmcubes-18's
  // 'compute_' has no architecture number; llama-cpp-python-880's fix does not
  // say to rebuild with explicit CUDA paths.
  score_set(".", {"dml-396", "r2-torchmcubes-18"}, {"dml-396", "llamacpp-python-880"}, 50);
}

TEST(KbHeldOut, Set2) {
  // "ImportError: undefined symbol" alone names no library.
  score_set("set2", {"d-fa-854"}, {}, 90);
}

TEST(KbHeldOut, Set3) {
  // Set 3 (2026-12-01-explain-heldout-3.md): 57 working cases tuned on, 19
  // blind ones scored once after the changes and left as they were.
  // llamacpp-17542's recorded expectation disagrees with CUDA's meaning of
  // error 803 (explain's reading); boltz-250 (blind) is the Lightning message
  // without its exception name; pytorch-139425's fix (blind) does not say that
  // torch >= 2.5 needs macOS 13 for MPS.
  score_set("set3", {"llamacpp-17542", "boltz-250"}, {"pytorch-139425", "boltz-250"}, 76);
}

TEST(KbHeldOut, Set4) {
  // Set 4 (2026-12-02-explain-heldout-4.md): 44 working cases tuned on, 15
  // blind ones scored once after the changes and left as they were.
  // ollama-3497 (working) has no line that says the GPU was skipped (a title
  // naming gfx802 and harmless discovery lines); therock-6869 (blind) is
  // ROCm's "device kernel image is invalid" worded "CUDA error:"; nccl-1838's
  // fix (blind) does not name NCCL_CUMEM_HOST_ENABLE=0.
  score_set("set4", {"ollama-3497", "therock-6869"}, {"nccl-1838"}, 59);
}

}  // namespace
}  // namespace accel
