// kb/gpus.json's `llc` fact (gpu_cache.hpp).
#include "core/gpu_cache.hpp"

#include <fmt/format.h>

#include "core/kb.hpp"

namespace accel {

std::string CacheFact::describe() const {
  constexpr std::uint64_t kMiB = 1ull << 20;
  if (bytes % kMiB == 0) return fmt::format("{} MiB {}", bytes / kMiB, level);
  return fmt::format("{} KiB {}", bytes / 1024, level);
}

std::optional<CacheFact> parse_cache_fact(const json& row, const std::string& where) {
  if (!row.contains("llc") || row.at("llc").is_null()) return std::nullopt;
  const json& c = row.at("llc");
  const std::string at = where + ": llc";
  if (!c.is_object()) throw KbError(at + ": expected an object {bytes, level, source}");
  CacheFact f;
  if (!c.contains("bytes") || !c.at("bytes").is_number_unsigned() ||
      c.at("bytes").get<std::uint64_t>() == 0) {
    throw KbError(at + ": 'bytes' must be a positive integer");
  }
  f.bytes = c.at("bytes").get<std::uint64_t>();
  if (!c.contains("level") || !c.at("level").is_string()) throw KbError(at + ": 'level' must be a string");
  f.level = c.at("level").get<std::string>();
  if (f.level != "L2" && f.level != "Infinity Cache") {
    throw KbError(fmt::format("{}: level '{}' is not L2 or Infinity Cache", at, f.level));
  }
  const json* s = c.contains("source") ? &c.at("source") : nullptr;
  if (!s || !s->is_object() || !s->contains("title") || !s->at("title").is_string() || !s->contains("url") ||
      !s->at("url").is_string()) {
    throw KbError(at + ": needs a 'source' object with a title and a url");
  }
  f.source_title = s->at("title").get<std::string>();
  f.source_url = s->at("url").get<std::string>();
  return f;
}

}  // namespace accel
