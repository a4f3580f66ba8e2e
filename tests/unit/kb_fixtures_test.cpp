// Every real error case under ../shared/fixtures/errors/ (discovered at run
// time, used in place) must be classified right: a cause is recognised, the
// top diagnosis's fix names everything `expect.fix_mentions` lists, and no
// `expect.must_not_mention` string appears anywhere in the output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/json.hpp"
#include "kb_test_util.hpp"

namespace accel {
namespace {

namespace fs = std::filesystem;
using testing::contains_ci;

constexpr const char* kMissing = "shared_fixtures_missing";

std::vector<std::string> fixture_dirs() {
  std::vector<std::string> out;
  std::error_code ec;
  const fs::path root(ACCEL_SHARED_ERRORS);
  if (!fs::is_directory(root, ec)) return {kMissing};
  for (const auto& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory() && fs::exists(e.path() / "case.json") && fs::exists(e.path() / "log.txt")) {
      out.push_back(e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) return {kMissing};
  return out;
}

MachineContext context_of(const json& c) {
  MachineContext m;
  m.os = c.value("os", "");
  m.arch = c.value("arch", "");
  m.backend = c.value("backend", "");
  m.gpu = c.value("gpu", "");
  m.versions = c.value("versions", "");
  return m;
}

class ErrorFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ErrorFixture, ClassifiedRight) {
  const std::string name = GetParam();
  if (name == kMissing) {
    std::cerr << "\n*** WARNING: no error fixtures found at " << ACCEL_SHARED_ERRORS
              << " - the knowledge base is NOT being checked against real cases ***\n\n";
    GTEST_SKIP() << "shared error fixtures missing at " << ACCEL_SHARED_ERRORS;
  }
  const fs::path dir = fs::path(ACCEL_SHARED_ERRORS) / name;
  const json c = json::parse(testing::read_file((dir / "case.json").string()));
  const MachineContext ctx = context_of(c.value("context", json::object()));
  const json expect = c.value("expect", json::object());

  std::ifstream log(dir / "log.txt", std::ios::binary);
  ASSERT_TRUE(log) << "cannot read " << (dir / "log.txt");
  const ExplainResult r = testing::repo_kb().explain_stream(log, ctx);
  ASSERT_FALSE(r.diagnoses.empty()) << name << ": nothing recognised";
  const Diagnosis& top = r.diagnoses.front();
  SCOPED_TRACE(name + ": top diagnosis " + top.id + "\ncause: " + top.cause + "\nfix: " + top.fix);

  for (const auto& m : expect.value("fix_mentions", json::array())) {
    EXPECT_TRUE(contains_ci(top.fix, m.get<std::string>()))
        << "the fix does not mention '" << m.get<std::string>() << "'";
  }
  const std::string everything = testing::all_text(r.diagnoses);
  for (const auto& m : expect.value("must_not_mention", json::array())) {
    EXPECT_FALSE(contains_ci(everything, m.get<std::string>()))
        << "the output mentions '" << m.get<std::string>() << "'";
  }
  // The in-memory API agrees with the stream API.
  const auto again = testing::repo_kb().explain(testing::read_file((dir / "log.txt").string()), ctx);
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again.front().id, top.id);
  EXPECT_EQ(again.front().fix, top.fix);
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (auto& ch : n) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Shared, ErrorFixture, ::testing::ValuesIn(fixture_dirs()), test_name);

TEST(ErrorFixtures, SharedDirectoryPresent) {
  if (fixture_dirs().front() == kMissing) {
    std::cerr << "\n*** WARNING: " << ACCEL_SHARED_ERRORS << " is missing: fixture checks skipped ***\n\n";
    GTEST_SKIP() << "shared error fixtures missing at " << ACCEL_SHARED_ERRORS;
  }
  EXPECT_GE(fixture_dirs().size(), 20u);
}

}  // namespace
}  // namespace accel
