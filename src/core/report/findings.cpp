#include "core/report/findings.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/units.hpp"

namespace accel {

namespace {

std::string paint(const std::string& text, const char* code, const ConsoleStyle& style) {
  if (!style.color) return text;
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

const char* severity_code(Severity severity) {
  if (severity == Severity::critical) return "1;31";
  if (severity == Severity::warning) return "1;33";
  return "1;36";
}

std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// Greedy word wrap; continuation lines start with `indent`.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent,
                 std::size_t first_col) {
  std::string out;
  std::size_t col = first_col;
  std::size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    if (text[i] == '\n') {
      out += "\n" + indent;
      col = columns(indent);
      first = true;
      ++i;
      continue;
    }
    std::size_t end = text.find_first_of(" \n", i);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(i, end - i);
    i = end < text.size() && text[end] == ' ' ? end + 1 : end;
    if (word.empty()) continue;
    const std::size_t w = columns(word);
    if (!first && col + 1 + w > width) {
      out += "\n" + indent;
      col = columns(indent);
    } else if (!first) {
      out += ' ';
      ++col;
    }
    out += word;
    col += w;
    first = false;
  }
  return out;
}

std::string label_line(const std::string& label, const std::string& text, std::size_t width,
                       const ConsoleStyle& style) {
  const std::string indent(16, ' ');
  const std::string head = fmt::format("      {:<9} ", label);
  return paint(head, "2", style) + wrap(text, width, indent, columns(head)) + "\n";
}

}  // namespace

std::string render_findings(const std::vector<Finding>& findings, const ConsoleStyle& style) {
  if (findings.empty()) return "Findings: none: nothing in the evidence needs attention.\n";
  const std::size_t width = static_cast<std::size_t>(std::clamp(style.width, 60, 140));
  int crit = 0, warn = 0, info = 0;
  for (const auto& f : findings) {
    crit += f.severity == Severity::critical;
    warn += f.severity == Severity::warning;
    info += f.severity != Severity::critical && f.severity != Severity::warning;
  }
  std::vector<std::string> parts;
  if (crit) parts.push_back(fmt::format("{} critical", crit));
  if (warn) parts.push_back(fmt::format("{} warning{}", warn, warn == 1 ? "" : "s"));
  if (info) parts.push_back(fmt::format("{} tip{}", info, info == 1 ? "" : "s"));
  std::string out = paint("Findings", "1", style) + " (";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  out += "), most important first\n";
  int n = 0;
  for (const auto& f : findings) {
    ++n;
    std::string sev(to_string(f.severity));
    std::transform(sev.begin(), sev.end(), sev.begin(), [](unsigned char c) { return std::toupper(c); });
    const std::string head = fmt::format("\n{:>3}. ", n);
    const std::string tag = fmt::format("{:<8}", sev);
    out += head + paint(tag, severity_code(f.severity), style) + " ";
    out += paint(wrap(f.title, width, std::string(14, ' '), columns(head) - 1 + 9), "1", style) + "\n";
    if (!f.evidence.empty()) out += label_line("evidence", f.evidence, width, style);
    if (!f.why.empty()) out += label_line("why", f.why, width, style);
    if (!f.fix.empty()) out += label_line("fix", f.fix, width, style);
    if (!f.reference.empty()) out += label_line("see", f.reference, width, style);
  }
  return out;
}

std::string render_verdict(const std::string& verdict, bool needs_attention, const ConsoleStyle& style) {
  const std::size_t width = static_cast<std::size_t>(std::clamp(style.width, 60, 140));
  const std::string head = "Verdict: ";
  return paint(head, needs_attention ? "1;33" : "1;32", style) + wrap(verdict, width, "  ", head.size()) +
         "\n";
}

namespace {

std::string figure_text(const ComparedResult& r) {
  auto value = [&](double v) {
    if (r.figure == "median_us") return format_us(v);
    return format_sig3(v) + " " + r.figure;
  };
  std::string s = fmt::format("{} -> {}", value(r.a), value(r.b));
  const double pct = 100 * r.relative;
  const std::string speed = r.speedup >= 1 ? format_ratio(r.speedup) + " faster"
                                           : format_ratio(r.speedup > 0 ? 1 / r.speedup : 0) + " slower";
  s += fmt::format("  ({:+.1f}%, B {}; noise threshold {:.1f}%{})", pct, speed, 100 * r.threshold,
                   r.noisy ? ", noisy" : "");
  if (!r.floor_source.empty() && r.floor >= r.threshold) s += fmt::format(" [floor: {}]", r.floor_source);
  return s;
}

}  // namespace

std::string render_comparison(const Comparison& c, const ConsoleStyle& style) {
  std::string out;
  out += fmt::format("Comparing {} (A) with {} (B)\n", c.origin_a, c.origin_b);
  for (const auto& n : c.notes) out += "  note: " + n + "\n";
  struct Section {
    Change change;
    const char* title;
    const char* color;
  };
  const Section sections[] = {
      {Change::newly_failing, "Newly failing", "1;31"},
      {Change::slower, "Slower beyond noise", "1;31"},
      {Change::fixed, "Fixed", "1;32"},
      {Change::faster, "Faster beyond noise", "1;32"},
      {Change::status_changed, "Status changed", "1;33"},
      {Change::still_failing, "Still failing", "33"},
      {Change::new_result, "New in B", "36"},
      {Change::missing, "Missing from B", "36"},
  };
  for (const auto& s : sections) {
    std::vector<const ComparedResult*> rows;
    for (const auto& r : c.results) {
      if (r.change == s.change) rows.push_back(&r);
    }
    if (rows.empty()) continue;
    if (s.change == Change::slower || s.change == Change::faster) {
      std::stable_sort(rows.begin(), rows.end(), [](const ComparedResult* x, const ComparedResult* y) {
        return std::fabs(x->relative) > std::fabs(y->relative);
      });
    }
    out += "\n" + paint(fmt::format("{} ({})", s.title, rows.size()), s.color, style) + "\n";
    for (const auto* r : rows) {
      std::string line = "  " + r->key;
      if (!r->figure.empty()) {
        line += "  " + figure_text(*r);
      } else if (!r->status_a.empty() && !r->status_b.empty()) {
        line += fmt::format("  {} -> {}", r->status_a, r->status_b);
      } else if (!r->status_b.empty() && r->change == Change::new_result) {
        line += "  (" + r->status_b + ")";
      }
      if (!r->note.empty()) line += ": " + r->note;
      out += line + "\n";
    }
  }
  const std::size_t same = c.count(Change::same), nc = c.count(Change::not_comparable);
  out += fmt::format(
      "\nSummary: {} slower, {} newly failing, {} faster, {} fixed, {} unchanged within noise{}; {} new, {} "
      "missing\n",
      c.count(Change::slower), c.count(Change::newly_failing), c.count(Change::faster),
      c.count(Change::fixed), same, nc ? fmt::format(", {} without a common figure", nc) : "",
      c.count(Change::new_result), c.count(Change::missing));
  out += fmt::format(
      "A change counts when max(B/A, A/B) - 1 > max({:.0f}%, IQR/median of A + IQR/median of B{}); timings "
      "are "
      "medians.\n",
      100 * c.min_change,
      c.floors ? ", the between-process floor of its class (docs/noise-floors.md; lower with --repeat 3 on "
                 "both sides)"
               : "");
  out += c.regressed() ? paint("Regression: yes", "1;31", style) + "\n"
                       : paint("Regression: no", "1;32", style) + "\n";
  return out;
}

}  // namespace accel
