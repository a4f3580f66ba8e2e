// The terminal reporter's shared text helpers (console_detail.hpp).
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/report/console_detail.hpp"

namespace accel::console_detail {

std::string bold(const std::string& s, const ConsoleStyle& style) {
  return style.color ? "\033[1m" + s + "\033[0m" : s;
}

std::string dim(const std::string& s, const ConsoleStyle& style) {
  return style.color ? "\033[2m" + s + "\033[0m" : s;
}

/// Cuts `s` to `width` display columns (UTF-8 aware: counts code points).
std::string fit(const std::string& s, std::size_t width) {
  std::size_t cols = 0, i = 0, prev = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    if (cols + 1 > width) {
      // Drop the last character that fitted, on its first byte, for the "…".
      return width > 0 ? s.substr(0, prev) + "…" : "";
    }
    prev = i;
    i += len;
    ++cols;
  }
  return s;
}

std::size_t display_width(const std::string& s) {
  std::size_t cols = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++cols;
  }
  return cols;
}

std::string pad(const std::string& s, std::size_t width) {
  const std::string f = fit(s, width);
  const std::size_t w = display_width(f);
  return f + std::string(w < width ? width - w : 0, ' ');
}

std::string rpad(const std::string& s, std::size_t width) {
  const std::string f = fit(s, width);
  const std::size_t w = display_width(f);
  return std::string(w < width ? width - w : 0, ' ') + f;
}

/// Wraps every line longer than `width` columns (ANSI escapes take none) at
/// spaces, continuing 4 columns deeper than the line's own indent; a word
/// longer than a line is cut into pieces ending in "…".
std::string wrap_lines(const std::string& text, int width) {
  const std::size_t w = static_cast<std::size_t>(std::max(width, 20));
  auto visible = [](const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\033') {
        while (i < s.size() && s[i] != 'm') ++i;
        continue;
      }
      n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    }
    return n;
  };
  std::string out;
  auto emit = [&](std::string line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(start, nl - start);
    start = nl + 1;
    if (visible(line) <= w) {
      out += line + (nl < text.size() ? "\n" : "");
      continue;
    }
    const std::size_t indent = std::min(line.find_first_not_of(' '), w / 2);
    // Continuation lines start under the value of a "label   value" line,
    // else 4 columns deeper than the line.
    std::size_t value_col = indent + 4;
    const std::size_t gap = line.find("  ", indent);
    if (gap != std::string::npos) {
      const std::size_t value = line.find_first_not_of(' ', gap);
      if (value != std::string::npos && value <= w / 2) value_col = value;
    }
    const std::string lead(std::min(value_col, w / 2), ' ');
    std::string cur(indent, ' ');
    std::size_t cur_w = indent;
    bool has_word = false;
    std::size_t pos = indent;
    while (pos <= line.size()) {
      std::size_t sp = line.find(' ', pos);
      if (sp == std::string::npos) sp = line.size();
      std::string word = line.substr(pos, sp - pos);
      pos = sp + 1;
      if (word.empty()) {  // a run of spaces: keep it (aligned columns)
        if (has_word) {
          cur += ' ';
          ++cur_w;
        }
        continue;
      }
      std::size_t ww = visible(word);
      if (has_word && cur_w + 1 + ww > w) {
        emit(cur);
        cur = lead;
        cur_w = lead.size();
        has_word = false;
      }
      while (cur_w + (has_word ? 1 : 0) + ww > w) {
        const std::size_t room = w - std::min(w, cur_w + (has_word ? 1 : 0));
        if (room < 2) {
          emit(cur);
          cur = lead;
          cur_w = lead.size();
          has_word = false;
          continue;
        }
        const std::string part = fit(word, room);
        emit(cur + (has_word ? " " : "") + part);
        word = word.substr(part.size() - 3);  // continue after the "…" (3 bytes)
        ww = visible(word);
        cur = lead;
        cur_w = lead.size();
        has_word = false;
      }
      cur += (has_word ? " " : "") + word;
      cur_w += ww + (has_word ? 1 : 0);
      has_word = true;
    }
    if (nl < text.size()) {
      emit(cur);
    } else {
      while (!cur.empty() && cur.back() == ' ') cur.pop_back();
      out += cur;
    }
  }
  return out;
}

std::string or_missing(const std::string& value, const NotCollected& nc, const std::string& field) {
  if (!value.empty()) return value;
  const auto it = nc.find(field);
  if (it != nc.end()) return "could not collect (" + it->second + ")";
  return "could not collect";
}

void line(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("  {:<22} {}\n", label, value);
}

}  // namespace accel::console_detail
