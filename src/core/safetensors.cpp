#include "core/safetensors.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include "core/json.hpp"

namespace accel {

std::size_t safetensors_dtype_size(const std::string& dtype) {
  static const std::map<std::string, std::size_t> kSizes{
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
      {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"I64", 8},     {"U64", 8}, {"F64", 8},
  };
  const auto it = kSizes.find(dtype);
  if (it == kSizes.end()) throw SafetensorsError(fmt::format("unknown safetensors dtype '{}'", dtype));
  return it->second;
}

SafetensorsHeader parse_safetensors_header(const unsigned char* data, std::uint64_t available,
                                           std::uint64_t file_size, const std::string& origin) {
  if (file_size < 8 || available < 8) {
    throw SafetensorsError(
        fmt::format("{}: too short to be a safetensors file ({} bytes)", origin, file_size));
  }
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | data[i];
  constexpr std::uint64_t kMaxHeader = 100ull << 20;
  if (n > kMaxHeader) {
    throw SafetensorsError(
        fmt::format("{}: header length {} is implausible (over 100 MB): not a safetensors file", origin, n));
  }
  if (8 + n > file_size || 8 + n > available) {
    throw SafetensorsError(
        fmt::format("{}: truncated: the header says {} bytes but the file has {}", origin, 8 + n, file_size));
  }
  json j;
  try {
    j = json::parse(reinterpret_cast<const char*>(data) + 8, reinterpret_cast<const char*>(data) + 8 + n);
  } catch (const json::parse_error& e) {
    throw SafetensorsError(fmt::format("{}: the header is not valid JSON: {}", origin, e.what()));
  }
  if (!j.is_object()) throw SafetensorsError(fmt::format("{}: the header is not a JSON object", origin));
  SafetensorsHeader h;
  h.data_start = 8 + n;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (const auto& [name, v] : j.items()) {
    if (name == "__metadata__") {
      if (v.is_object()) {
        for (const auto& [k, mv] : v.items()) {
          if (mv.is_string()) h.metadata[k] = mv.get<std::string>();
        }
      }
      continue;
    }
    SafetensorsEntry e;
    e.name = name;
    try {
      e.dtype = v.at("dtype").get<std::string>();
      e.shape = v.at("shape").get<std::vector<int64_t>>();
      const auto offsets = v.at("data_offsets").get<std::vector<std::uint64_t>>();
      if (offsets.size() != 2) throw SafetensorsError("data_offsets must have two numbers");
      e.begin = h.data_start + offsets[0];
      e.end = h.data_start + offsets[1];
    } catch (const json::exception& ex) {
      throw SafetensorsError(
          fmt::format("{}: tensor '{}' has a malformed entry: {}", origin, name, ex.what()));
    }
    std::uint64_t elems = 1;
    for (const auto d : e.shape) {
      if (d < 0)
        throw SafetensorsError(fmt::format("{}: tensor '{}' has a negative dimension", origin, name));
      elems *= static_cast<std::uint64_t>(d);
    }
    std::size_t elem_size = 0;
    try {
      elem_size = safetensors_dtype_size(e.dtype);
    } catch (const SafetensorsError& ex) {
      throw SafetensorsError(fmt::format("{}: tensor '{}': {}", origin, name, ex.what()));
    }
    if (e.end < e.begin || e.end - e.begin != elems * elem_size) {
      throw SafetensorsError(fmt::format("{}: tensor '{}' has {} bytes for shape [{}] of {} ({} expected)",
                                         origin, name, e.end - e.begin, fmt::join(e.shape, ", "), e.dtype,
                                         elems * elem_size));
    }
    if (e.end > file_size) {
      throw SafetensorsError(
          fmt::format("{}: truncated: tensor '{}' ends at byte {} but the file has {} bytes", origin, name,
                      e.end, file_size));
    }
    spans.emplace_back(e.begin, e.end);
    h.tensors.emplace(name, std::move(e));
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    if (spans[i].first < spans[i - 1].second) {
      throw SafetensorsError(fmt::format("{}: two tensors overlap in the file", origin));
    }
  }
  return h;
}

std::string write_safetensors(
    const std::map<std::string, std::tuple<std::string, std::vector<int64_t>, std::string>>& tensors) {
  json header = json::object();
  std::string body;
  for (const auto& [name, t] : tensors) {
    const auto& [dtype, shape, bytes] = t;
    header[name] = {
        {"dtype", dtype}, {"shape", shape}, {"data_offsets", {body.size(), body.size() + bytes.size()}}};
    body += bytes;
  }
  header["__metadata__"] = {{"format", "pt"}};
  std::string h = header.dump();
  while ((8 + h.size()) % 8) h += ' ';  // the spec pads the header to 8 bytes
  std::string out(8, '\0');
  std::uint64_t n = h.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out + h + body;
}

}  // namespace accel
