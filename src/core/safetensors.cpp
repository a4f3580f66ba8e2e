#include "core/safetensors.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/files.hpp"
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
    throw SafetensorsError(
        fmt::format("{}: the header is not valid JSON at byte {}: {}", origin, 8 + e.byte, e.what()));
  } catch (const json::exception& e) {  // out_of_range: a number too large (found by fuzz_safetensors)
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

SafetensorsHeader read_safetensors_header(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw SafetensorsError(fmt::format("{}: is a directory, not a safetensors file", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SafetensorsError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  in.seekg(0, std::ios::end);
  const std::streamoff end = in.tellg();
  if (end < 0) throw SafetensorsError(fmt::format("{}: cannot tell its size", path));
  const auto file_size = static_cast<std::uint64_t>(end);
  in.seekg(0);
  unsigned char len[8] = {};
  const std::uint64_t first = std::min<std::uint64_t>(8, file_size);
  if (!in.read(reinterpret_cast<char*>(len), static_cast<std::streamsize>(first))) {
    throw SafetensorsError(fmt::format("{}: read error in the first {} bytes", path, first));
  }
  if (file_size < 8) return parse_safetensors_header(len, file_size, file_size, path);  // throws
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  // Read no more than the file holds and than the parser accepts; it reports
  // an implausible or truncated header itself.
  const std::uint64_t want = std::min<std::uint64_t>({n, file_size - 8, 100ull << 20});
  std::string buf(8 + want, '\0');
  std::memcpy(buf.data(), len, 8);
  if (want > 0 && !in.read(buf.data() + 8, static_cast<std::streamsize>(want))) {
    throw SafetensorsError(fmt::format("{}: read error in the header (bytes 8..{})", path, 8 + want));
  }
  return parse_safetensors_header(reinterpret_cast<const unsigned char*>(buf.data()), buf.size(), file_size,
                                  path);
}

std::vector<std::string> validate_safetensors_checkpoint(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw SafetensorsError(
        fmt::format("{}: not a directory (a Hugging Face checkpoint folder holds "
                    "config.json and *.safetensors)",
                    dir));
  }
  auto read_json_object = [](const fs::path& p) {
    const auto text = read_file(p);
    if (!text) {
      throw SafetensorsError(
          fmt::format("{}: cannot read: {} (a Hugging Face checkpoint folder holds "
                      "config.json and *.safetensors)",
                      p.string(), std::strerror(errno)));
    }
    json j;
    try {
      j = json::parse(*text);
    } catch (const json::parse_error& e) {
      throw SafetensorsError(fmt::format("{}: not valid JSON at byte {}: {}", p.string(), e.byte, e.what()));
    } catch (const json::exception& e) {  // out_of_range: a number too large
      throw SafetensorsError(fmt::format("{}: not valid JSON: {}", p.string(), e.what()));
    }
    if (!j.is_object()) throw SafetensorsError(fmt::format("{}: not a JSON object", p.string()));
    return j;
  };
  read_json_object(root / "config.json");
  std::vector<fs::path> files;
  const fs::path index = root / "model.safetensors.index.json";
  if (fs::exists(index, ec)) {
    const json j = read_json_object(index);
    if (!j.contains("weight_map") || !j["weight_map"].is_object()) {
      throw SafetensorsError(
          fmt::format("{}: field 'weight_map' is missing or not an object", index.string()));
    }
    std::set<std::string> names;
    for (const auto& [k, v] : j["weight_map"].items()) {
      if (!v.is_string()) {
        throw SafetensorsError(
            fmt::format("{}: field 'weight_map.{}' is not a file name", index.string(), k));
      }
      names.insert(v.get<std::string>());
    }
    for (const auto& n : names) files.push_back(root / n);
  } else {
    for (const auto& e : fs::directory_iterator(root, ec)) {
      if (e.path().extension() == ".safetensors") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) throw SafetensorsError(fmt::format("{}: no .safetensors files", dir));
  std::vector<std::string> out;
  for (const auto& f : files) {
    read_safetensors_header(f.string());
    out.push_back(f.string());
  }
  return out;
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
