#include "core/idx.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "core/files.hpp"

namespace accel {

namespace {

std::uint32_t read_be32(const std::string& b, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + 3]));
}

void append_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::uint32_t byteswap32(std::uint32_t v) {
  return ((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >> 8) & 0xff00) | (v >> 24);
}

std::string describe_magic(std::uint32_t magic) {
  if (magic == kIdxImagesMagic) return "an IDX images file (uint8, 3 dimensions)";
  if (magic == kIdxLabelsMagic) return "an IDX labels file (uint8, 1 dimension)";
  return fmt::format("magic 0x{:08x}", magic);
}

/// Largest dimension product accepted (4 GiB of elements): guards against
/// overflow and absurd headers before any allocation.
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 32;

}  // namespace

IdxArray parse_idx(const std::string& bytes, std::uint32_t expected_magic, const std::string& origin) {
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    throw IdxError(fmt::format("{}: is gzip-compressed; decompress it first (gunzip {})", origin, origin));
  }
  if (bytes.size() < 4) {
    throw IdxError(fmt::format("{}: too short for an IDX file ({} bytes, the magic number alone is 4)",
                               origin, bytes.size()));
  }
  const std::uint32_t magic = read_be32(bytes, 0);
  if (magic != expected_magic) {
    std::string hint;
    if (byteswap32(magic) == expected_magic) {
      hint = " (the bytes are swapped: the file was written little-endian; IDX is big-endian)";
    } else if (magic == kIdxImagesMagic || magic == kIdxLabelsMagic) {
      hint = fmt::format(" (it is {}; were the images and labels files swapped?)", describe_magic(magic));
    }
    throw IdxError(fmt::format("{}: wrong magic number 0x{:08x}, expected 0x{:08x} ({}){}", origin, magic,
                               expected_magic, describe_magic(expected_magic), hint));
  }
  const std::uint32_t type = (magic >> 8) & 0xff;
  if (type != 0x08) {
    throw IdxError(
        fmt::format("{}: element type 0x{:02x} is not supported (only 0x08, unsigned bytes)", origin, type));
  }
  const std::uint32_t ndims = magic & 0xff;
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(ndims);
  if (bytes.size() < header) {
    throw IdxError(fmt::format("{}: truncated header: {} dimensions need {} bytes, the file has {}", origin,
                               ndims, header, bytes.size()));
  }
  IdxArray a;
  a.magic = magic;
  std::uint64_t elements = 1;
  for (std::uint32_t i = 0; i < ndims; ++i) {
    const std::uint32_t d = read_be32(bytes, 4 + 4 * static_cast<std::size_t>(i));
    if (d == 0) throw IdxError(fmt::format("{}: dimension {} is zero", origin, i));
    elements *= d;
    if (elements > kMaxElements) {
      throw IdxError(fmt::format("{}: dimensions describe more than {} elements; the header is corrupt",
                                 origin, kMaxElements));
    }
    a.dims.push_back(d);
  }
  const std::uint64_t expected = header + elements;
  if (bytes.size() < expected) {
    throw IdxError(
        fmt::format("{}: truncated: the header says {} elements ({} bytes in all), the file has {} bytes",
                    origin, elements, expected, bytes.size()));
  }
  if (bytes.size() > expected) {
    throw IdxError(fmt::format("{}: {} trailing bytes after the {} elements the header describes", origin,
                               bytes.size() - expected, elements));
  }
  a.data.assign(reinterpret_cast<const std::uint8_t*>(bytes.data()) + header,
                reinterpret_cast<const std::uint8_t*>(bytes.data()) + expected);
  return a;
}

IdxArray read_idx_file(const std::string& path, std::uint32_t expected_magic) {
  const auto bytes = read_file(path);  // nullopt: cannot be opened, or a read error part way
  if (!bytes) throw IdxError(fmt::format("{}: cannot be read", path));
  return parse_idx(*bytes, expected_magic, path);
}

std::string write_idx(std::uint32_t magic, const std::vector<std::uint32_t>& dims,
                      const std::vector<std::uint8_t>& data) {
  std::string out;
  append_be32(out, magic);
  for (auto d : dims) append_be32(out, d);
  out.append(reinterpret_cast<const char*>(data.data()), data.size());
  return out;
}

MnistSet load_mnist(const std::string& dir, const std::string& split) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw IdxError(fmt::format("{}: not a directory", dir));
  auto find = [&](const std::string& what, const std::string& idx) {
    for (const std::string& name :
         {split + "-" + what + "-" + idx + "-ubyte", split + "-" + what + "." + idx + "-ubyte"}) {
      const fs::path p = fs::path(dir) / name;
      if (fs::is_regular_file(p)) return p.string();
    }
    const std::string want = split + "-" + what + "-" + idx + "-ubyte";
    if (fs::is_regular_file(fs::path(dir) / (want + ".gz"))) {
      throw IdxError(fmt::format("{}: only {}.gz is there; decompress it first (gunzip -k {}.gz)", dir, want,
                                 (fs::path(dir) / want).string()));
    }
    throw IdxError(fmt::format("{}: {} not found (the MNIST {} {} file)", dir, want, split, what));
  };
  MnistSet s;
  s.images_path = find("images", "idx3");
  s.labels_path = find("labels", "idx1");
  IdxArray images = read_idx_file(s.images_path, kIdxImagesMagic);
  IdxArray labels = read_idx_file(s.labels_path, kIdxLabelsMagic);
  if (images.dims[0] != labels.dims[0]) {
    throw IdxError(fmt::format("{} has {} images but {} has {} labels", s.images_path, images.dims[0],
                               s.labels_path, labels.dims[0]));
  }
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] > 9) {
      throw IdxError(fmt::format("{}: label {} of item {} is not a digit 0..9", s.labels_path,
                                 static_cast<int>(labels.data[i]), i));
    }
  }
  s.count = images.dims[0];
  s.rows = images.dims[1];
  s.cols = images.dims[2];
  s.images = std::move(images.data);
  s.labels = std::move(labels.data);
  return s;
}

}  // namespace accel
