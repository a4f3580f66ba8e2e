#include "core/kb_directml.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "core/kb.hpp"

namespace accel {

int compare_dotted_versions(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    unsigned long long x = 0, y = 0;
    while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i])))
      x = x * 10 + static_cast<unsigned>(a[i++] - '0');
    while (j < b.size() && std::isdigit(static_cast<unsigned char>(b[j])))
      y = y * 10 + static_cast<unsigned>(b[j++] - '0');
    if (x != y) return x < y ? -1 : 1;
    // Past the separator; anything that is not a dot ends the version ("1.20.1+dml").
    const bool more_a = i < a.size() && a[i] == '.', more_b = j < b.size() && b[j] == '.';
    if (!more_a && !more_b) break;
    if (more_a)
      ++i;
    else
      i = a.size();
    if (more_b)
      ++j;
    else
      j = b.size();
  }
  return 0;
}

const DirectMlVersionTable::Inbox* DirectMlVersionTable::inbox_for_build(int os_build) const {
  const Inbox* best = nullptr;
  for (const auto& e : inbox) {
    if (e.os_build <= os_build) best = &e;
  }
  return best;
}

const DirectMlVersionTable::Onnxruntime* DirectMlVersionTable::for_onnxruntime(
    const std::string& version) const {
  if (version.empty() || !std::isdigit(static_cast<unsigned char>(version.front()))) return nullptr;
  const Onnxruntime* best = nullptr;
  for (const auto& e : onnxruntime) {
    if (compare_dotted_versions(e.onnxruntime, version) <= 0) best = &e;
  }
  return best;
}

std::string DirectMlVersionTable::inbox_text() const {
  std::string s;
  for (const auto& e : inbox)
    s += fmt::format("{}{} (build {}): {}", s.empty() ? "" : "; ", e.os, e.os_build, e.directml);
  return s;
}

DirectMlVersionTable parse_directml_versions(const json& doc, const std::string& file) {
  DirectMlVersionTable t;
  t.source = doc.value("source", "");
  if (t.source.empty()) throw KbError(file + " directml_versions: needs 'source'");
  for (const auto& e : doc.at("inbox")) {
    t.inbox.push_back({e.at("os_build").get<int>(), e.at("directml").get<std::string>(), e.value("os", "")});
  }
  for (const auto& e : doc.at("onnxruntime")) {
    DirectMlVersionTable::Onnxruntime o{e.at("onnxruntime").get<std::string>(),
                                        e.at("directml").get<std::string>(), e.value("source", "")};
    if (o.source.empty())
      throw KbError(fmt::format("{} directml_versions onnxruntime {}: needs 'source'", file, o.onnxruntime));
    t.onnxruntime.push_back(std::move(o));
  }
  std::sort(t.inbox.begin(), t.inbox.end(),
            [](const auto& a, const auto& b) { return a.os_build < b.os_build; });
  std::sort(t.onnxruntime.begin(), t.onnxruntime.end(), [](const auto& a, const auto& b) {
    return compare_dotted_versions(a.onnxruntime, b.onnxruntime) < 0;
  });
  return t;
}

}  // namespace accel
