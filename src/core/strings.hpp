// The few string helpers every part of the tool needs, written once.
// ASCII only: they serve identifiers, names and log text, not prose.
#pragma once

#include <string>
#include <string_view>

namespace accel {

/// `s` with ASCII letters lower-cased.
std::string lower(std::string_view s);

/// `s` without leading and trailing white space (std::isspace).
std::string trim(std::string_view s);

/// True when `haystack` contains `needle`, ignoring ASCII case.
bool contains_ci(std::string_view haystack, std::string_view needle);

}  // namespace accel
