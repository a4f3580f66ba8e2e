// A read-only memory-mapped file (weights are mapped, not read, so an 8B
// model does not need 16 GB of host copies).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace accel::platform {

struct MappedFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class MappedFile {
 public:
  /// Maps `path` read-only; throws MappedFileError with the OS reason.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;

  const unsigned char* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  const unsigned char* data_ = nullptr;
  std::uint64_t size_ = 0;
};

}  // namespace accel::platform
