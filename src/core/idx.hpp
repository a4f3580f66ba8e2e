// The IDX file format of the MNIST data set (LeCun, Cortes, Burges:
// http://yann.lecun.com/exdb/mnist/): a 4-byte big-endian magic number
// 0x0000TTNN (TT: element type, NN: number of dimensions), NN big-endian
// uint32 dimensions, then the elements in row-major order, big-endian.
//   train-images-idx3-ubyte  magic 0x00000803: uint8 [count, 28, 28]
//   train-labels-idx1-ubyte  magic 0x00000801: uint8 [count], values 0..9
// This parser is torch-free and validates what a loader needs (magic,
// dimensions against the file size, labels against the images) so that a
// truncated, compressed or wrong file gives a clear error, never garbage.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace accel {

struct IdxError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::uint32_t kIdxImagesMagic = 0x00000803;  ///< uint8, 3 dimensions
inline constexpr std::uint32_t kIdxLabelsMagic = 0x00000801;  ///< uint8, 1 dimension

/// One IDX array of unsigned bytes (the only element type MNIST uses).
struct IdxArray {
  std::uint32_t magic = 0;
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;  ///< row-major, size = product of dims
};

/// Parses the IDX bytes in `bytes` (a whole file), requiring `expected_magic`.
/// Throws IdxError naming `origin` for: a file shorter than its header, a
/// gzip file (not decompressed), a wrong magic number (also when it is
/// byte-swapped), a zero or absurd dimension, data shorter ("truncated") or
/// longer ("trailing bytes") than the dimensions say.
IdxArray parse_idx(const std::string& bytes, std::uint32_t expected_magic, const std::string& origin);

/// Reads and parses a file; IdxError when it cannot be read or is invalid.
IdxArray read_idx_file(const std::string& path, std::uint32_t expected_magic);

/// Serialises an IDX array of unsigned bytes (for tests and tools).
std::string write_idx(std::uint32_t magic, const std::vector<std::uint32_t>& dims,
                      const std::vector<std::uint8_t>& data);

/// An MNIST split as read from its two IDX files.
struct MnistSet {
  std::int64_t count = 0;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::uint8_t> images;  ///< [count, rows, cols], 0..255
  std::vector<std::uint8_t> labels;  ///< [count], 0..9
  std::string images_path, labels_path;
};

/// Loads `<split>-images-idx3-ubyte` and `<split>-labels-idx1-ubyte` from
/// `dir` (also accepts the `<split>-images.idx3-ubyte` spelling some mirrors
/// use). `split` is "train" or "t10k". Throws IdxError when a file is
/// missing (naming the .gz variant when only that exists), invalid, when
/// the counts disagree, or when a label is not 0..9.
MnistSet load_mnist(const std::string& dir, const std::string& split = "train");

}  // namespace accel
