// The safetensors file format (Hugging Face): an 8-byte little-endian header
// length N, N bytes of JSON {name: {"dtype", "shape", "data_offsets": [b, e]},
// "__metadata__": {...}}, then the tensor bytes, offsets relative to the end
// of the header. Spec: https://github.com/huggingface/safetensors#format
// The JSON is parsed with nlohmann::json; this file adds the validation a
// loader needs (bounds, sizes, overlaps) so a bad or truncated file gives a
// clear error instead of reading garbage.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace accel {

struct SafetensorsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct SafetensorsEntry {
  std::string name;
  std::string dtype;  ///< "BF16", "F16", "F32", "F64", "I64", "I32", "I8", "U8", "BOOL", ...
  std::vector<int64_t> shape;
  std::uint64_t begin = 0;  ///< absolute byte offset in the file
  std::uint64_t end = 0;    ///< absolute, exclusive
};

struct SafetensorsHeader {
  std::uint64_t data_start = 0;  ///< 8 + header length
  std::map<std::string, SafetensorsEntry> tensors;
  std::map<std::string, std::string> metadata;
};

/// Bytes per element of a safetensors dtype name; throws for an unknown one.
std::size_t safetensors_dtype_size(const std::string& dtype);

/// Parses and validates the header of a file of `file_size` bytes whose
/// first bytes are `data` (at least the 8-byte length and the header).
/// Throws SafetensorsError naming `origin` on any inconsistency: header
/// larger than the file or than 100 MB, invalid JSON, unknown dtype, a
/// tensor whose byte length is not its shape times its element size, data
/// outside the file, or overlapping tensors.
SafetensorsHeader parse_safetensors_header(const unsigned char* data, std::uint64_t available,
                                           std::uint64_t file_size, const std::string& origin);

/// Reads and validates the header of the safetensors file at `path`
/// (without reading the tensor bytes): throws SafetensorsError naming the
/// path when it cannot be opened or read, or for any problem
/// parse_safetensors_header finds, truncation included (a tensor ending past
/// the end of the file names both byte counts).
SafetensorsHeader read_safetensors_header(const std::string& path);

/// Validates a Hugging Face checkpoint folder before anything is built from
/// it: `dir` is a readable folder, config.json is a JSON object,
/// model.safetensors.index.json (when present) has a weight_map naming
/// files that exist, there is at least one *.safetensors file, and every
/// such file's header is valid and the file is as long as its header says.
/// Returns the files checked; throws SafetensorsError with one clear line.
std::vector<std::string> validate_safetensors_checkpoint(const std::string& dir);

/// Serialises tensors into the safetensors layout (for tests and tools):
/// `tensors` maps name -> (dtype, shape, raw bytes).
std::string write_safetensors(
    const std::map<std::string, std::tuple<std::string, std::vector<int64_t>, std::string>>& tensors);

}  // namespace accel
