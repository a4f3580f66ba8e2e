// core/strings.hpp and core/files.hpp: the helpers that replaced the private
// copies (lower, trim, contains_ci, starts_with_ci, whole-file reads).
#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

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

TEST(Strings, ContainsCi) {
  EXPECT_TRUE(contains_ci("xxdirectml.DLLyy", "DirectML.dll"));
  EXPECT_TRUE(contains_ci("AMD Radeon RX 6650 XT", "radeon"));
  EXPECT_FALSE(contains_ci("DirectML", "DirectML.dll"));
  EXPECT_FALSE(contains_ci("onnxruntime CPU provider only", "directml"));
  EXPECT_TRUE(contains_ci("anything", ""));
  EXPECT_TRUE(contains_ci("", ""));
  // Embedded NUL bytes (a DLL's contents) are ordinary bytes.
  EXPECT_TRUE(contains_ci(std::string_view("\0\0DIRECTML.DLL\0", 15), "DirectML.dll"));
}

TEST(Strings, StartsWithCi) {
  EXPECT_TRUE(starts_with_ci("LibOMP140.x86_64.dll", "libomp"));
  EXPECT_TRUE(starts_with_ci("pid_12_luid", "PID_"));
  EXPECT_FALSE(starts_with_ci("vcruntime140.dll", "libomp"));
  EXPECT_FALSE(starts_with_ci("lib", "libomp"));
  EXPECT_TRUE(starts_with_ci("x", ""));
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

}  // namespace
}  // namespace accel
