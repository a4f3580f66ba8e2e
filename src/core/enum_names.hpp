// Name tables of closed sets (enums written by name in JSON and on the
// command line): one table of {value, name} pairs per enum, looked up both
// ways here instead of a loop per enum. Header-only, no dependencies.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace accel {

/// The name of `v` in `table` (an array of {E, name} pairs); `missing` when
/// the table has no row for it.
template <typename E, typename Name, typename Table>
Name enum_name(const Table& table, E v, Name missing) {
  for (const auto& [e, name] : table) {
    if (e == v) return name;
  }
  return missing;
}

/// The value named `name` in `table`; nullopt for a name not in it.
template <typename E, typename Table>
std::optional<E> enum_parse(const Table& table, std::string_view name) {
  for (const auto& [e, n] : table) {
    if (std::string_view(n) == name) return e;
  }
  return std::nullopt;
}

}  // namespace accel
