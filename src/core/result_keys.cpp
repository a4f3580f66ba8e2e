#include "core/result_keys.hpp"

#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace accel {

namespace {

std::vector<std::string_view> parts_of(std::string_view key) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const auto slash = key.find('/', start);
    parts.push_back(
        key.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

/// A whole non-negative decimal number, nothing else.
std::optional<int> number(std::string_view s) {
  int v = 0;
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

/// "<prefix><number>" -> number.
std::optional<int> prefixed(std::string_view s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return std::nullopt;
  return number(s.substr(prefix.size()));
}

bool any_empty(const std::vector<std::string_view>& parts, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (parts[i].empty()) return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------- ops

std::string OpsKey::str() const { return fmt::format("ops/{}/{}/{}", category, name, dtype); }

std::optional<OpsKey> OpsKey::parse(std::string_view key) {
  const auto p = parts_of(key);
  if (p.size() != 4 || p[0] != "ops" || any_empty(p, 4)) return std::nullopt;
  return OpsKey{std::string(p[1]), std::string(p[2]), std::string(p[3])};
}

// ---------------------------------------------------------------- bench

std::string BenchKey::str() const {
  return fmt::format("bench/{}/{}/{}/{}/{}", device_type, group, name, dtype, shape);
}

std::optional<BenchKey> BenchKey::parse(std::string_view key) {
  const auto p = parts_of(key);
  if (p.size() < 6 || p[0] != "bench") return std::nullopt;
  // The shape is the rest of the key.
  std::size_t at = 0;
  for (int i = 0; i < 5; ++i) at = key.find('/', at) + 1;
  return BenchKey{std::string(p[1]), std::string(p[2]), std::string(p[3]), std::string(p[4]),
                  std::string(key.substr(at))};
}

// ---------------------------------------------------------------- llm

std::string LlmKey::test_name() const {
  switch (test) {
    case Test::correctness:
      return "correctness";
    case Test::prefill:
      return fmt::format("pp{}", prompt);
    case Test::decode:
    case Test::graph:
      return fmt::format("tg{}@d{}", gen, prompt);
  }
  return "";
}

std::string LlmKey::twin() const {
  if (test == Test::correctness) return preset + "/correctness";
  return fmt::format("{}/b{}/{}{}", preset, batch, test_name(), test == Test::graph ? "/graph" : "");
}

std::string LlmKey::str() const {
  const std::string head = fmt::format("llm/{}/{}/{}/", device_type, preset, dtype);
  if (test == Test::correctness) return head + "correctness";
  return head + fmt::format("b{}/{}{}", batch, test_name(), test == Test::graph ? "/graph" : "");
}

std::optional<LlmKey> LlmKey::parse(std::string_view key) {
  const auto p = parts_of(key);
  if (p.size() < 5 || p[0] != "llm" || any_empty(p, 4)) return std::nullopt;
  LlmKey k;
  k.device_type = p[1];
  k.preset = p[2];
  k.dtype = p[3];
  if (p[4] == "correctness") {
    if (p.size() != 5) return std::nullopt;
    k.test = Test::correctness;
    return k;
  }
  const auto batch = prefixed(p[4], "b");
  if (!batch || p.size() < 6 || p.size() > 7) return std::nullopt;
  k.batch = *batch;
  if (const auto pp = prefixed(p[5], "pp")) {
    if (p.size() != 6) return std::nullopt;
    k.test = Test::prefill;
    k.prompt = *pp;
    return k;
  }
  const auto at = p[5].find("@d");
  if (at == std::string_view::npos) return std::nullopt;
  const auto gen = prefixed(p[5].substr(0, at), "tg");
  const auto prompt = number(p[5].substr(at + 2));
  if (!gen || !prompt) return std::nullopt;
  k.gen = *gen;
  k.prompt = *prompt;
  if (p.size() == 7 && p[6] != "graph") return std::nullopt;
  k.test = p.size() == 7 ? Test::graph : Test::decode;
  return k;
}

// ---------------------------------------------------------------- train

std::string TrainKey::str() const {
  const std::string head = fmt::format("train/{}/{}/{}/", device_type, model, precision);
  switch (item) {
    case Item::step:
      return head + fmt::format("b{}", batch);
    case Item::item_cost:
      return head + fmt::format("b{}/item_cost", batch);
    case Item::sweep:
      return head + "sweep";
  }
  return head;
}

std::optional<TrainKey> TrainKey::parse(std::string_view key) {
  const auto p = parts_of(key);
  if (p.size() < 5 || p.size() > 6 || p[0] != "train" || any_empty(p, 4)) return std::nullopt;
  TrainKey k;
  k.device_type = p[1];
  k.model = p[2];
  k.precision = p[3];
  if (p[4] == "sweep") {
    if (p.size() != 5) return std::nullopt;
    k.item = Item::sweep;
    return k;
  }
  const auto batch = prefixed(p[4], "b");
  if (!batch) return std::nullopt;
  k.batch = *batch;
  if (p.size() == 5) {
    k.item = Item::step;
    return k;
  }
  if (p[5] != "item_cost") return std::nullopt;
  k.item = Item::item_cost;
  return k;
}

}  // namespace accel
