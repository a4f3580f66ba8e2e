// The held-out scorer of the explain tests (issue 15): one set of public
// threads (tests/fixtures/explain_heldout/<dir>/cases.json and cases/*.txt)
// read through the repository's kb with no machine context, what
// `explain FILE --json` prints and score.py scores.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <set>
#include <string>

#include <re2/re2.h>

#include "core/json.hpp"
#include "kb_test_util.hpp"

namespace accel::testing {

// Scores one held-out set: every case's top cause, and where the thread has a
// resolution, that the fix names it. `misses`: cases not read yet (they must
// stay unread until removed from the list); `fix_misses` likewise for fixes.
inline void score_set(const std::string& dir, const std::set<std::string>& misses,
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

}  // namespace accel::testing
