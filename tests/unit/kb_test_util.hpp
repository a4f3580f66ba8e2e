// Shared helpers of the knowledge-base tests.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/kb.hpp"
#include "platform/process.hpp"

namespace accel::testing {

/// The kb directory the tests read: $ACCEL_TEST_KB_DIR when set (to test
/// another checkout's kb/, a git worktree's, with this build), else this
/// source tree's kb/ (ACCEL_KB_DIR).
inline std::string repo_kb_dir() {
  const char* env = std::getenv("ACCEL_TEST_KB_DIR");
  return env && *env ? std::string(env) : std::string(ACCEL_KB_DIR);
}

/// The repository's kb, loaded once (repo_kb_dir()).
inline const KnowledgeBase& repo_kb() {
  static const KnowledgeBase kb = KnowledgeBase::load(repo_kb_dir());
  return kb;
}

inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

inline bool contains_ci(const std::string& haystack, const std::string& needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Everything a user would read about a list of diagnoses.
inline std::string all_text(const std::vector<Diagnosis>& ds) {
  std::string out;
  for (const auto& d : ds) {
    out += d.id + "\n" + d.title + "\n" + d.cause + "\n" + d.fix + "\n" + d.reference + "\n";
    for (const auto& f : d.fixes) out += f.when + "\n" + f.text + "\n";
  }
  return out;
}

inline bool has_id(const std::vector<Diagnosis>& ds, const std::string& id) {
  for (const auto& d : ds) {
    if (d.id == id) return true;
  }
  return false;
}

/// A test with its own small kb directory: write() its files, then load it.
class KbTempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("accel_kb_test_" + std::to_string(accel::platform::process_id()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string load_error() {
    try {
      KnowledgeBase::load(dir_.string());
    } catch (const KbError& e) {
      return e.what();
    }
    return {};
  }
  std::filesystem::path dir_;
};

}  // namespace accel::testing
