// Offload targets inside a binary's fat binary: the clang offload bundles that
// hipcc puts in a .hip_fatbin section. Format (clang/lib/Driver/OffloadBundler.cpp):
//   "__CLANG_OFFLOAD_BUNDLE__", uint64 entry count, then per entry uint64
//   offset, uint64 size, uint64 id length, id ("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-").
// Compressed bundles ("CCOB", clang --offload-compress, ROCm >= 6.2) keep their
// ids inside the compressed data and are not read here.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>

#include "platform/detail.hpp"

namespace accel::platform {

namespace {

constexpr char kMagic[] = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::size_t kMagicLen = sizeof kMagic - 1;

std::uint64_t le64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

/// Reads the ids of the bundle whose magic starts at `pos`.
void read_bundle_ids(std::ifstream& in, std::uint64_t pos, std::set<std::string>& targets) {
  in.clear();
  in.seekg(static_cast<std::streamoff>(pos + kMagicLen));
  char buf[24];
  if (!in.read(buf, 8)) return;
  const std::uint64_t entries = le64(buf);
  if (entries == 0 || entries > 4096) return;  // not a bundle header after all
  for (std::uint64_t i = 0; i < entries; ++i) {
    if (!in.read(buf, 24)) return;
    const std::uint64_t id_len = le64(buf + 16);
    if (id_len == 0 || id_len > 1024) return;
    std::string id(static_cast<std::size_t>(id_len), '\0');
    if (!in.read(&id[0], static_cast<std::streamsize>(id_len))) return;
    const std::string key = "amdgcn-amd-amdhsa-";
    const auto at = id.find(key);
    if (at == std::string::npos) continue;  // the host entry
    std::string target = id.substr(at + key.size());
    while (!target.empty() && target.front() == '-')
      target.erase(0, 1);  // "--gfx90a" (hipv4) or "-gfx906" (hip)
    if (detail::starts_with(target, "gfx")) targets.insert(target);
  }
}

}  // namespace

std::vector<std::string> offload_targets_in_file(const std::string& path) {
  std::set<std::string> targets;
  try {
    std::ifstream scan(path, std::ios::binary);
    std::ifstream header(path, std::ios::binary);
    if (!scan || !header) return {};
    constexpr std::size_t kChunk = 8 << 20;
    std::vector<char> buf(kChunk + kMagicLen);
    std::size_t carry = 0;   // bytes kept from the previous chunk
    std::uint64_t base = 0;  // file offset of buf[0]
    while (true) {
      scan.read(buf.data() + carry, static_cast<std::streamsize>(kChunk));
      const std::size_t got = static_cast<std::size_t>(scan.gcount());
      const std::size_t len = carry + got;
      if (len < kMagicLen) break;
      const std::string_view view(buf.data(), len);
      for (std::size_t at = view.find(kMagic); at != std::string_view::npos; at = view.find(kMagic, at + 1)) {
        read_bundle_ids(header, base + at, targets);
      }
      if (got == 0) break;
      // Keep the tail that could hold the start of a magic split across chunks.
      carry = std::min(len, kMagicLen - 1);
      std::memmove(buf.data(), buf.data() + len - carry, carry);
      base += len - carry;
    }
  } catch (...) {
    return {};
  }
  return {targets.begin(), targets.end()};
}

}  // namespace accel::platform
