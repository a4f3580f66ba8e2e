// core/strings.hpp and core/files.hpp: the helpers that replaced the private
// copies (lower, trim, contains_ci, starts_with_ci, whole-file reads).
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "core/files.hpp"
#include "core/strings.hpp"

namespace accel {
namespace {

TEST(Strings, LowerIsAsciiOnly) {
  EXPECT_EQ(lower("GFX1032:Xnack-"), "gfx1032:xnack-");
  // Bytes outside ASCII (UTF-8 of "Ä") pass through unchanged.
  EXPECT_EQ(lower("\xC3\x84Z"), "\xC3\x84z");
  EXPECT_EQ(lower(""), "");
}

TEST(Strings, TrimDropsLeadingAndTrailingWhiteSpaceOnly) {
  EXPECT_EQ(trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(trim("   "), "");
  EXPECT_EQ(trim("x,"), "x,");
}

struct CiCase {
  std::string_view text, word;
  bool contains, starts;
};

TEST(Strings, ContainsCiAndStartsWithCi) {
  const CiCase cases[] = {
      {"xxdirectml.DLLyy", "DirectML.dll", true, false},
      {"AMD Radeon RX 6650 XT", "radeon", true, false},
      {"DirectML", "DirectML.dll", false, false},
      {"onnxruntime CPU provider only", "directml", false, false},
      {"LibOMP140.x86_64.dll", "libomp", true, true},
      {"pid_12_luid", "PID_", true, true},
      {"vcruntime140.dll", "libomp", false, false},
      {"lib", "libomp", false, false},
      {"anything", "", true, true},
      {"", "", true, true},
      // Embedded NUL bytes (a DLL's contents) are ordinary bytes.
      {std::string_view("\0\0DIRECTML.DLL\0", 15), "DirectML.dll", true, false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(contains_ci(c.text, c.word), c.contains) << c.text << " / " << c.word;
    EXPECT_EQ(starts_with_ci(c.text, c.word), c.starts) << c.text << " / " << c.word;
  }
}

TEST(Files, ReadFileReturnsTheExactBytes) {
  const auto path = std::filesystem::temp_directory_path() / "accel_strings_test_read_file.bin";
  const std::string bytes("a\r\nb\0c\n", 7);
  {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
  }
  const auto text = read_file(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, bytes);
}

TEST(Files, ReadFileOfAMissingFileIsNulloptWithErrno) {
  const auto path = std::filesystem::temp_directory_path() / "accel_strings_test_no_such_file.json";
  std::filesystem::remove(path);
  errno = 0;
  EXPECT_FALSE(read_file(path).has_value());
  EXPECT_EQ(errno, ENOENT);
}

TEST(Strings, Utf8PrefixAndCapLineNeverSplitACharacter) {
  const std::string e_acute = "\xc3\xa9";
  EXPECT_EQ(utf8_prefix("abc", 10), "abc");
  EXPECT_EQ(utf8_prefix("ab" + e_acute, 3), "ab") << "the cut would fall inside the character";
  EXPECT_EQ(utf8_prefix("ab" + e_acute, 4), "ab" + e_acute);
  EXPECT_EQ(cap_line("abcdef", 6), "abcdef");
  EXPECT_EQ(cap_line("ab" + e_acute + "cd", 3), "ab [...]");
}

}  // namespace
}  // namespace accel
