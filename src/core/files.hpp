// Whole-file reads, written once. The callers keep their own error types and
// messages (KbError, ReportError, ...): this layer only says whether the bytes
// could be read.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace accel {

/// The bytes of the file at `path`, read in binary mode (no newline
/// translation on Windows). std::nullopt when the file cannot be opened
/// (missing, a directory that the stream refuses, no permission) or a read
/// error occurs part way; errno is left as the failed call set it, so a
/// caller may report std::strerror(errno). Throws nothing but std::bad_alloc.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace accel
