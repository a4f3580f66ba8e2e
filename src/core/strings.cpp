#include "core/strings.hpp"

#include <algorithm>
#include <cctype>

namespace accel {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view ltrim(std::string_view s) {
  std::size_t b = 0;
  while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  return s.substr(b);
}

std::string_view rtrim(std::string_view s) {
  std::size_t e = s.size();
  while (e > 0 && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(0, e);
}

std::string trim(std::string_view s) { return std::string(rtrim(ltrim(s))); }

std::string_view utf8_prefix(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // a continuation byte
  return s.substr(0, cut);
}

std::string cap_line(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  return std::string(utf8_prefix(s, max_bytes)) + " [...]";
}

namespace {

char lower_char(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

/// Whether `s` at `at` holds `word`, ignoring ASCII case; `at + word.size()`
/// must not pass the end of `s`.
bool equal_ci_at(std::string_view s, std::size_t at, std::string_view word) {
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (lower_char(s[at + k]) != lower_char(word[k])) return false;
  }
  return true;
}

}  // namespace

bool contains_ci(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (equal_ci_at(haystack, i, needle)) return true;
  }
  return false;
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return prefix.size() <= s.size() && equal_ci_at(s, 0, prefix);
}

std::vector<int> parse_version(std::string_view v) {
  std::vector<int> out;
  int cur = -1;
  for (char c : v) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (c == '.' && cur >= 0) {
      out.push_back(cur);
      cur = -1;
    } else {
      break;
    }
  }
  if (cur >= 0) out.push_back(cur);
  return out;
}

int compare_versions(std::string_view a, std::string_view b) {
  auto va = parse_version(a), vb = parse_version(b);
  const std::size_t n = std::max(va.size(), vb.size());
  va.resize(n, 0);
  vb.resize(n, 0);
  if (va < vb) return -1;
  if (va > vb) return 1;
  return 0;
}

}  // namespace accel
