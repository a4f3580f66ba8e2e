// Shared helpers of the rules, compare, redact and multi tests: the report fixtures
// (tests/fixtures/reports/, README there says which are recorded and which
// edited) and the repository's kb.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/kb.hpp"
#include "core/rules/rules.hpp"

namespace accel::testing {

inline std::string report_fixture_path(const std::string& name) {
  return std::string(ACCEL_TEST_FIXTURES) + "/reports/" + name;
}

inline Report load_report(const std::string& name) { return read_report_file(report_fixture_path(name)); }

inline const KnowledgeBase& rules_kb() {
  static const KnowledgeBase kb = KnowledgeBase::load(ACCEL_KB_DIR);
  return kb;
}

inline const RuleData& rules_data() {
  static const RuleData data = RuleData::load(ACCEL_KB_DIR);
  return data;
}

inline DiagnoseOptions rules_options() {
  DiagnoseOptions o;
  o.kb = &rules_kb();
  o.data = &rules_data();
  return o;
}

inline std::vector<Finding> run_rules(const Report& r) { return diagnose(r, rules_options()); }

inline std::string ids(const std::vector<Finding>& fs) {
  std::string s;
  for (const auto& f : fs) s += f.id + "(" + std::string(to_string(f.severity)) + ") ";
  return s;
}

/// Findings whose id equals `id` or starts with it when it ends in '.'.
inline std::vector<Finding> with_id(const std::vector<Finding>& fs, const std::string& id) {
  std::vector<Finding> out;
  for (const auto& f : fs) {
    const bool prefix = !id.empty() && id.back() == '.';
    if (prefix ? f.id.rfind(id, 0) == 0 : f.id == id) out.push_back(f);
  }
  return out;
}

inline bool has(const std::vector<Finding>& fs, const std::string& id) { return !with_id(fs, id).empty(); }

/// The one finding with `id` (a copy: callers often pass a temporary list).
inline Finding only(const std::vector<Finding>& fs, const std::string& id) {
  const auto found = with_id(fs, id);
  EXPECT_EQ(found.size(), 1u) << "findings with id " << id << " among " << ids(fs);
  return found.empty() ? Finding{} : found.front();
}

inline bool mentions(const Finding& f, const std::string& text) {
  const std::string all = f.title + "\n" + f.evidence + "\n" + f.why + "\n" + f.fix + "\n" + f.reference;
  return all.find(text) != std::string::npos;
}

inline EnvVar env_var(const std::string& name, const std::string& value) { return EnvVar{name, value, ""}; }

/// A multi row in the shape the engine writes it (status ok), for the multi
/// rules and tables.
inline Result multi_row(const std::string& key, const std::string& category, const std::string& name,
                        const std::string& device = "") {
  Result r;
  r.key = key;
  r.kind = ResultKind::multi;
  r.category = category;
  r.name = name;
  r.status = Status::ok;
  r.device = device;
  return r;
}

}  // namespace accel::testing

// The tests that include this header call the helpers by their short names.
namespace accel {
using testing::env_var;
using testing::has;
using testing::ids;
using testing::load_report;
using testing::mentions;
using testing::multi_row;
using testing::only;
using testing::run_rules;
using testing::with_id;
}  // namespace accel
