#include <gtest/gtest.h>
#include <filesystem>
#include <fstream>

#include "core/idx.hpp"
#include "platform/process.hpp"

using namespace accel;
namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> iota_bytes(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 7);
  return v;
}

void expect_error(const std::string& bytes, std::uint32_t magic, const std::string& fragment) {
  try {
    parse_idx(bytes, magic, "f");
    ADD_FAILURE() << "no error; expected '" << fragment << "'";
  } catch (const IdxError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() /
                     ("accel-idx-test-" + name + "-" + std::to_string(accel::platform::process_id()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

void write_file(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

/// A small MNIST-shaped split: `n` images of 28x28 and `n` labels.
void write_mnist(const fs::path& dir, std::uint32_t n, std::uint32_t labels_n, std::uint8_t bad_label = 0) {
  write_file(dir / "train-images-idx3-ubyte", write_idx(kIdxImagesMagic, {n, 28, 28}, iota_bytes(n * 784)));
  std::vector<std::uint8_t> labels(labels_n);
  for (std::uint32_t i = 0; i < labels_n; ++i) labels[i] = static_cast<std::uint8_t>(i % 10);
  if (bad_label && labels_n) labels[labels_n - 1] = bad_label;
  write_file(dir / "train-labels-idx1-ubyte", write_idx(kIdxLabelsMagic, {labels_n}, labels));
}

}  // namespace

TEST(Idx, RoundTrip) {
  const auto data = iota_bytes(3 * 4 * 5);
  const std::string file = write_idx(kIdxImagesMagic, {3, 4, 5}, data);
  EXPECT_EQ(file.size(), 4u + 12u + 60u);
  // The magic is big-endian: 00 00 08 03.
  EXPECT_EQ(file.substr(0, 4), std::string("\x00\x00\x08\x03", 4));
  const IdxArray a = parse_idx(file, kIdxImagesMagic, "f");
  EXPECT_EQ(a.dims, (std::vector<std::uint32_t>{3, 4, 5}));
  EXPECT_EQ(a.data, data);
  const IdxArray l = parse_idx(write_idx(kIdxLabelsMagic, {7}, iota_bytes(7)), kIdxLabelsMagic, "f");
  EXPECT_EQ(l.dims, (std::vector<std::uint32_t>{7}));
}

TEST(Idx, TruncatedFiles) {
  const std::string file = write_idx(kIdxImagesMagic, {2, 28, 28}, iota_bytes(2 * 784));
  expect_error(file.substr(0, file.size() - 1), kIdxImagesMagic, "truncated");
  expect_error(file.substr(0, 10), kIdxImagesMagic, "truncated header");
  expect_error(file.substr(0, 3), kIdxImagesMagic, "too short");
  expect_error("", kIdxImagesMagic, "too short");
  expect_error(file + "xy", kIdxImagesMagic, "2 trailing bytes");
}

TEST(Idx, WrongFiles) {
  const std::string labels = write_idx(kIdxLabelsMagic, {4}, iota_bytes(4));
  // A labels file where images are expected (and the other way round).
  expect_error(labels, kIdxImagesMagic, "swapped?");
  expect_error(write_idx(kIdxImagesMagic, {1, 28, 28}, iota_bytes(784)), kIdxLabelsMagic,
               "wrong magic number 0x00000803");
  // Little-endian magic, as a naive writer produces.
  expect_error(std::string("\x03\x08\x00\x00", 4) + std::string(12, '\0'), kIdxImagesMagic,
               "bytes are swapped");
  // Something else entirely (a PNG), and a gzip file.
  expect_error("\x89PNG\r\n\x1a\n....", kIdxImagesMagic, "wrong magic number");
  expect_error(std::string("\x1f\x8b\x08\x00", 4) + "compressed", kIdxImagesMagic, "gzip");
  // A zero and a corrupt dimension.
  expect_error(write_idx(kIdxImagesMagic, {0, 28, 28}, {}), kIdxImagesMagic, "dimension 0 is zero");
  expect_error(write_idx(kIdxImagesMagic, {0xffffffffu, 0xffffffffu, 2}, {}), kIdxImagesMagic, "corrupt");
  // Another element type (int32, 0x0C) with the right dimension count.
  expect_error(write_idx(0x00000C01, {2}, iota_bytes(8)), 0x00000C01, "not supported");
}

TEST(Idx, LoadsAnMnistDirectory) {
  const fs::path dir = scratch("ok");
  write_mnist(dir, 12, 12);
  const MnistSet s = load_mnist(dir.string());
  EXPECT_EQ(s.count, 12);
  EXPECT_EQ(s.rows, 28);
  EXPECT_EQ(s.cols, 28);
  EXPECT_EQ(s.images.size(), 12u * 784u);
  EXPECT_EQ(s.labels[11], 1);
  fs::remove_all(dir);
}

TEST(Idx, MnistDirectoryErrors) {
  auto expect_load_error = [](const fs::path& dir, const std::string& fragment) {
    try {
      load_mnist(dir.string());
      ADD_FAILURE() << "no error; expected '" << fragment << "'";
    } catch (const IdxError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const fs::path dir = scratch("bad");
  expect_load_error(dir / "missing", "not a directory");
  expect_load_error(dir, "train-images-idx3-ubyte not found");
  write_file(dir / "train-images-idx3-ubyte.gz", "\x1f\x8b");
  expect_load_error(dir, "gunzip");
  write_mnist(dir, 10, 9);
  expect_load_error(dir, "10 images but");
  write_mnist(dir, 10, 10, 12);
  expect_load_error(dir, "label 12 of item 9");
  // A truncated images file is named in the message.
  write_mnist(dir, 10, 10);
  const std::string full = write_idx(kIdxImagesMagic, {10, 28, 28}, iota_bytes(10 * 784));
  write_file(dir / "train-images-idx3-ubyte", full.substr(0, full.size() - 100));
  expect_load_error(dir, "train-images-idx3-ubyte: truncated");
  fs::remove_all(dir);
}
