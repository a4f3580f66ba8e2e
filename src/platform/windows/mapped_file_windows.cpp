// Read-only file mapping on Windows: CreateFileW, CreateFileMappingW,
// MapViewOfFile. A 0-byte file cannot be mapped (CreateFileMapping fails):
// it is opened, and data() is null with size() 0, as on POSIX.
#include "platform/mapped_file.hpp"
#include "platform/windows/win_util.hpp"

namespace accel::platform {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  HANDLE file = CreateFileW(win::widen(path).c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE,
                            nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) throw MappedFileError("cannot open " + path + ": " + win::last_error());
  LARGE_INTEGER size{};
  if (!GetFileSizeEx(file, &size)) {
    const std::string why = win::last_error();
    CloseHandle(file);
    throw MappedFileError("cannot stat " + path + ": " + why);
  }
  size_ = static_cast<std::uint64_t>(size.QuadPart);
  if (size_ > 0) {
    HANDLE mapping = CreateFileMappingW(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    void* p = mapping ? MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, 0) : nullptr;
    const std::string why = p ? std::string() : win::last_error();
    // The view keeps the mapping and the file open.
    if (mapping) CloseHandle(mapping);
    CloseHandle(file);
    if (!p) throw MappedFileError("cannot map " + path + ": " + why);
    data_ = static_cast<const unsigned char*>(p);
  } else {
    CloseHandle(file);
  }
}

MappedFile::MappedFile(MappedFile&& o) noexcept : path_(std::move(o.path_)), data_(o.data_), size_(o.size_) {
  o.data_ = nullptr;
  o.size_ = 0;
}

MappedFile::~MappedFile() {
  if (data_) UnmapViewOfFile(data_);
}

}  // namespace accel::platform
