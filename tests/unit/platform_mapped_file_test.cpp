// MappedFile on every OS (mmap; Windows: CreateFileMapping): contents, an
// empty file, a missing one.
#include <gtest/gtest.h>

#include <string>

#include "platform/mapped_file.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

TEST(MappedFile, MapsContentsEmptyFilesAndSaysWhyNot) {
  test::TempTree t("mapped");
  const std::string text = std::string("weights\0and\nbytes", 17);
  t.write("w.bin", text);
  t.write("empty.bin", "");
  {
    MappedFile m(t.path("w.bin"));
    ASSERT_EQ(m.size(), text.size());
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(m.data()), m.size()), text);
    MappedFile moved(std::move(m));
    EXPECT_EQ(moved.size(), text.size());
    EXPECT_EQ(m.data(), nullptr);
  }
  MappedFile empty(t.path("empty.bin"));
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.data(), nullptr);
  try {
    MappedFile missing(t.path("missing.bin"));
    FAIL() << "no exception";
  } catch (const MappedFileError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.bin"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace accel::platform
