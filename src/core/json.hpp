// JSON glue shared by the evidence model: std::optional support for
// nlohmann::json, so optional fields serialise as null and read back as empty;
// and integers read from JSON floats are range-checked.
#pragma once

#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>

namespace nlohmann {

// nlohmann converts a JSON float to an integer field with a plain
// static_cast, undefined behaviour when the value does not fit (2e44 or -5.0
// read into a byte count: found by fuzz_report under UBSan). Every integer
// type a report or kb field uses reads through this check instead: a float
// outside the type's range is a json out_of_range error (the readers turn
// it into their clear error), one inside it truncates as before.
namespace accel_detail {
template <typename I>
struct checked_integer_serializer {
  template <typename BasicJsonType>
  static void to_json(BasicJsonType& j, I v) {
    ::nlohmann::to_json(j, v);
  }
  template <typename BasicJsonType>
  static void from_json(const BasicJsonType& j, I& v) {
    if (j.is_number_float()) {
      const double d = j.template get_ref<const typename BasicJsonType::number_float_t&>();
      // The bounds as doubles: max() + 1 is a power of two, exact in a double.
      const double lo = static_cast<double>(std::numeric_limits<I>::min());
      const double hi_excl = 2.0 * static_cast<double>(std::numeric_limits<I>::max() / 2 + 1);
      if (!std::isfinite(d) || d <= lo - 1.0 || d >= hi_excl) {
        char num[32];
        std::snprintf(num, sizeof num, "%.6g", d);
        throw detail::out_of_range::create(
            406, std::string("number ") + num + " does not fit the integer field it is read into", &j);
      }
      v = static_cast<I>(d);
      return;
    }
    ::nlohmann::from_json(j, v);
  }
};
}  // namespace accel_detail

template <>
struct adl_serializer<int> : accel_detail::checked_integer_serializer<int> {};
template <>
struct adl_serializer<unsigned> : accel_detail::checked_integer_serializer<unsigned> {};
template <>
struct adl_serializer<long> : accel_detail::checked_integer_serializer<long> {};
template <>
struct adl_serializer<unsigned long> : accel_detail::checked_integer_serializer<unsigned long> {};
template <>
struct adl_serializer<long long> : accel_detail::checked_integer_serializer<long long> {};
template <>
struct adl_serializer<unsigned long long> : accel_detail::checked_integer_serializer<unsigned long long> {};

template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& opt) {
    if (opt) {
      j = *opt;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<T>& opt) {
    if (j.is_null()) {
      opt.reset();
    } else {
      opt = j.get<T>();
    }
  }
};
}  // namespace nlohmann

namespace accel {
using json = nlohmann::json;
}

/// ACCEL_JSON_DECLARE(Type) declares a struct's JSON (de)serialisers, in the
/// struct's namespace (found by ADL); one .cpp defines them with
/// ACCEL_JSON_DEFINE(Type, field...). The behaviour is that of nlohmann's
/// NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT (a field is written under
/// its own name; a reader keeps the default for a missing field and ignores
/// unknown ones), but that macro defines the functions inline in the header,
/// so every file that reads or writes a report compiled the whole report's
/// serialisers again: declared here, src/core/redact.cpp took 8.5 CPU-s to
/// compile instead of 34 (g++ 12 -O2 -g, 2026-12-02).
#define ACCEL_JSON_DECLARE(Type)                                  \
  void to_json(::nlohmann::json& nlohmann_json_j, const Type& v); \
  void from_json(const ::nlohmann::json& nlohmann_json_j, Type& v);
#define ACCEL_JSON_DEFINE(Type, ...)                                                        \
  void to_json(::nlohmann::json& nlohmann_json_j, const Type& nlohmann_json_t) {            \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_TO, __VA_ARGS__))                \
  }                                                                                         \
  void from_json(const ::nlohmann::json& nlohmann_json_j, Type& nlohmann_json_t) {          \
    const Type nlohmann_json_default_obj{};                                                 \
    NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(NLOHMANN_JSON_FROM_WITH_DEFAULT, __VA_ARGS__)) \
  }
