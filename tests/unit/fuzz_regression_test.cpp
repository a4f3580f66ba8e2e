// Every stored fuzz crash input (tests/fuzz/crashes/<harness>/) and every
// committed seed (tests/fuzz/seeds/<harness>/) fed to its harness: a parser
// bug the fuzzers found stays fixed in the ordinary (and sanitizer) unit tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "../fuzz/harnesses.hpp"

namespace fs = std::filesystem;

namespace {
int replay(const fs::path& root) {
  int fed = 0;
  for (const auto& h : accel::fuzz::kHarnesses) {
    const fs::path dir = root / h.name;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      SCOPED_TRACE(e.path().string());
      EXPECT_NO_THROW(h.fn(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
      ++fed;
    }
  }
  return fed;
}
}  // namespace

TEST(FuzzRegression, StoredCrashInputs) { replay(fs::path(ACCEL_FUZZ_DIR) / "crashes"); }

TEST(FuzzRegression, Seeds) { EXPECT_GT(replay(fs::path(ACCEL_FUZZ_DIR) / "seeds"), 0); }

TEST(FuzzRegression, EmptyAndTinyInputs) {
  for (const auto& h : accel::fuzz::kHarnesses) {
    SCOPED_TRACE(h.name);
    for (const std::string s :
         {std::string(), std::string(1, '\0'), std::string("\n"), std::string(9, '\xff')}) {
      EXPECT_NO_THROW(h.fn(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
    }
  }
}
