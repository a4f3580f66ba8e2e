// The knowledge base's matcher: scanning text or a stream for its entries and
// choosing the fix. Pure C++ (RE2, nlohmann json, fmt), no torch. Formats:
// docs/knowledge-base.md; the other parts: core/kb_detail.hpp.
//
// Matching is one pass over the lines: every pattern of every entry, hint and
// fact is compiled into one RE2::Set (a DFA), so the cost per line does not grow
// with the number of entries; the individual RE2 objects only run on the rare
// lines the set reports, to extract named captures. A second set holds the
// two-line ("window") patterns, matched against "previous line\ncurrent line".
// A line that continues a wrapped one is also matched joined to it.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <istream>

#include <fmt/format.h>

#include "core/kb_detail.hpp"
#include "core/strings.hpp"

namespace accel {
namespace kb_detail {

namespace {

/// Removes ANSI escape sequences (colours) in place.
void strip_ansi(std::string& s) {
  if (s.find('\x1b') == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b') {
      if (i + 1 < s.size() && s[i + 1] == '[') {
        std::size_t j = i + 2;
        while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7e)) ++j;
        i = j;  // skip the final byte too
        continue;
      }
      continue;
    }
    out.push_back(s[i]);
  }
  s.swap(out);
}

struct EntryState {
  std::size_t count = 0;         // matching lines (not pattern hits)
  std::size_t last_counted = 0;  // line number counted last
  std::vector<std::string> lines;
  std::vector<std::size_t> numbers;
  std::map<std::string, std::string> captures;
  bool unless = false;
};

class Scanner {
 public:
  Scanner(const KbData& kb, const ExplainOptions& opt)
      : kb_(kb), opt_(opt), entries_(kb.errors.size()), hints_(kb.hints.size(), false) {}

  void feed(std::string_view line, std::size_t number) {
    if (line.empty()) return;
    tools_.line(line);
    hits_of(kb_.line_set, line, line_hits_);
    for (const int idx : line_hits_)
      handle(kb_.line_set.items[static_cast<std::size_t>(idx)], line, number, kWhole);
    if (const int weight = key_line_weight(line); weight > 0) key_lines_.offer(line, number, weight);
    if (kb_.window_set.set && !prev_.empty()) {
      window_.clear();
      window_.append(prev_).push_back('\n');
      window_.append(line);
      hits_of(kb_.window_set, window_, hits_);
      for (const int idx : hits_) {
        handle(kb_.window_set.items[static_cast<std::size_t>(idx)], window_, number, prev_.size());
      }
    }
    if (is_wrapped_continuation(prev_, line)) match_wrapped(line, number);
    prev_.assign(line.data(), line.size());
    prev_number_ = number;
    prev_hits_.swap(line_hits_);
  }
  std::vector<EntryState>& entries() { return entries_; }
  const std::vector<bool>& hints() const { return hints_; }
  /// The facts the log states (the first statement of each), completed by
  /// weak facts (inferences) for those it never states.
  std::map<std::string, std::string> log_facts() const {
    std::map<std::string, std::string> out = log_facts_;
    out.insert(weak_log_facts_.begin(), weak_log_facts_.end());  // keeps existing keys
    return out;
  }
  std::vector<ToolGpu> tool_gpus() const { return tools_.gpus(); }
  std::vector<KeyLine> key_lines() const { return key_lines_.lines(); }

 private:
  void record(EntryState& st, std::string_view text, std::size_t number) {
    if (!st.numbers.empty() && st.numbers.back() == number) return;
    if (st.lines.size() >= opt_.max_lines_per_cause) return;
    std::string shown = cap_line(text, 400);
    if (std::find(st.lines.begin(), st.lines.end(), shown) != st.lines.end()) return;  // repeated line
    st.lines.push_back(std::move(shown));
    st.numbers.push_back(number);
  }

  /// How error-like `line` is (core/log_key_lines.hpp); 0: not at all.
  int key_line_weight(std::string_view line) {
    const auto weigh = [&](std::string_view text) {
      hits_of(kb_.key_set, text, hits_);
      KeyLineWeight w;
      for (const int idx : hits_)
        w.add(static_cast<int>(kb_.key_set.items[static_cast<std::size_t>(idx)].owner));
      return w;
    };
    const KeyLineWeight w = weigh(line);
    return w.needs_recount() ? weigh(without_zero_counts(line)).weight() : w.weight();
  }

  /// `split`: where the previous line ends in a two-line text (a window
  /// pattern's "previous\ncurrent", a wrapped line's "previous current");
  /// kWhole for one line.
  void handle(const SetItem& item, std::string_view text, std::size_t number, std::size_t split) {
    switch (item.kind) {
      case SetItem::kEntry: {
        EntryState& st = entries_[item.owner];
        if (split != kWhole) {
          if (st.numbers.empty() || st.numbers.back() != prev_number_) {
            record(st, text.substr(0, split), prev_number_);
          }
          record(st, text.substr(split + 1), number);
        } else {
          record(st, text, number);
        }
        if (st.last_counted != number) {
          st.last_counted = number;
          ++st.count;
        }
        if (st.captures.size() < 24) extract_captures(*item.re, text, st.captures);
        break;
      }
      case SetItem::kUnless:
        entries_[item.owner].unless = true;
        break;
      case SetItem::kHint:
        hints_[item.owner] = true;
        break;
      case SetItem::kKeyLine:  // weighed per line in feed()
        break;
      case SetItem::kFact: {
        const FactPattern& fp = kb_.facts[item.owner];
        const auto states_it = [&](const std::unique_ptr<RE2>& u) {
          return !RE2::PartialMatch(sp(text), *u);
        };
        if (!std::all_of(fp.unless.begin(), fp.unless.end(), states_it)) break;
        auto& into = fp.weak ? weak_log_facts_ : log_facts_;
        extract_captures(*fp.re, text, into);
        for (const auto& [k, v] : fp.set) into.emplace(k, v);
        break;
      }
    }
  }

  /// The indices of the patterns of `ps` that match `text`, in pattern order
  /// (specific patterns capture first).
  static void hits_of(const PatternSet& ps, std::string_view text, std::vector<int>& hits) {
    hits.clear();
    RE2::Set::ErrorInfo info{};
    if (!ps.set->Match(sp(text), &hits, &info)) {
      if (info.kind == RE2::Set::kNoError) return;  // nothing matched
      // The DFA ran out of memory on this input: match pattern by pattern.
      hits.clear();
      for (std::size_t i = 0; i < ps.items.size(); ++i) {
        if (RE2::PartialMatch(sp(text), *ps.items[i].re)) hits.push_back(static_cast<int>(i));
      }
    }
    std::sort(hits.begin(), hits.end());
  }

  /// A line that looks like the rest of the previous one, wrapped by a
  /// terminal, a console library (rich indents its continuation lines) or a
  /// web page: the previous line is long and this one starts indented, in
  /// lower case or with a quote or bracket.
  static bool is_wrapped_continuation(std::string_view prev, std::string_view line) {
    if (prev.size() < kWrapMinPrevious || line.empty()) return false;
    const auto c = static_cast<unsigned char>(line.front());
    return c == ' ' || c == '\t' || std::islower(c) || c == '`' || c == '(' || c == '\'' || c == '"';
  }

  /// Entry patterns that match only across the wrap: the previous line joined
  /// to this one by a space. Patterns that match either line alone were
  /// counted already, and facts, hints and `unless` lines stay per line.
  void match_wrapped(std::string_view line, std::size_t number) {
    const std::string_view head = rtrim(prev_);
    const std::string_view tail = ltrim(line);
    if (head.empty() || tail.empty()) return;
    joined_.assign(head.data(), head.size());
    joined_.push_back(' ');
    joined_.append(tail.data(), tail.size());
    hits_of(kb_.line_set, joined_, hits_);
    for (const int idx : hits_) {
      const SetItem& item = kb_.line_set.items[static_cast<std::size_t>(idx)];
      if (item.kind != SetItem::kEntry || std::binary_search(line_hits_.begin(), line_hits_.end(), idx) ||
          std::binary_search(prev_hits_.begin(), prev_hits_.end(), idx)) {
        continue;
      }
      handle(item, joined_, number, head.size());
    }
  }

  static constexpr std::size_t kWhole = std::string_view::npos;
  static constexpr std::size_t kWrapMinPrevious = 40;

  const KbData& kb_;
  const ExplainOptions& opt_;
  std::vector<EntryState> entries_;
  std::vector<bool> hints_;
  std::map<std::string, std::string> log_facts_;
  std::map<std::string, std::string> weak_log_facts_;  // facts of weak patterns (FactPattern::weak)
  ToolOutputReader tools_;
  KeyLineKeeper key_lines_;
  std::vector<int> hits_, line_hits_, prev_hits_;
  std::string prev_, window_, joined_;
  std::size_t prev_number_ = 0;
};

struct Chosen {
  const Variant* v;
  bool applies;
  int support = 0;  // conditions of the fix already true on this machine (ranks listed possibilities)
};

/// How many of a condition's parts are already true here: a possibility
/// whose conditions are partly met (the vendor matches, a hint was seen) is
/// more likely than one about which nothing is known.
int support(const json& cond, const EvalContext& c) {
  if (!cond.is_object()) return 0;
  int n = 0;
  for (const auto& [key, value] : cond.items()) {
    if (key == "all" || key == "any") {
      for (const auto& sub : value) n += support(sub, c);
    } else if (key != "not" && key != "os_not" && eval_key(key, value, c) == Tri::T) {
      // (os_not is true whenever the OS is unknown: no evidence either way)
      ++n;
    }
  }
  return n;
}

std::optional<Diagnosis> build_diagnosis(const KbData& kb, const ErrorEntry& e, EntryState& st,
                                         const MachineFacts& facts) {
  EvalContext c{kb, facts, st.captures};
  if (!facts.gfx.empty()) {
    const auto it = kb.gfx.find(facts.gfx);
    if (it != kb.gfx.end()) c.gfx = &it->second;
  }
  if (!facts.sm.empty()) {
    const auto it = kb.sm.find(facts.sm);
    if (it != kb.sm.end()) c.sm = &it->second;
  }
  if (!facts.torch_cuda.empty()) {
    for (const auto& d : kb.drivers) {
      if (compare_versions(d.cuda, facts.torch_cuda) <= 0) c.driver_min = &d;
    }
  }
  // The facts rule the entry out (a message both vendors print, on the other vendor's machine).
  if (!e.unless_when.is_null() && eval(e.unless_when, c) == Tri::T) return std::nullopt;
  std::vector<Variant> scratch;
  const auto& variants = kb.variants_of(e, scratch);
  std::vector<Chosen> regular_true, regular_unknown, fallback_true, fallback_unknown;
  for (const auto& v : variants) {
    // An entry with possibilities: its unconditional fixes are candidates
    // the log cannot choose between (listed, ranked in file order).
    const bool candidate = e.possibilities && (v.when.is_null() || v.when.empty());
    const Tri t = candidate ? Tri::U : eval(v.when, c);
    if (t == Tri::F) continue;
    auto& bucket = v.fallback ? (t == Tri::T ? fallback_true : fallback_unknown)
                              : (t == Tri::T ? regular_true : regular_unknown);
    bucket.push_back({&v, t == Tri::T, t == Tri::U ? support(v.when, c) : 0});
  }
  if (e.evidence && regular_true.empty()) return std::nullopt;  // the facts say nothing wrong
  std::vector<Chosen> shown;
  bool listing = false;
  if (!regular_true.empty()) {
    shown = regular_true;
  } else if (!regular_unknown.empty()) {
    listing = true;
    shown = regular_unknown;
    for (auto& x : fallback_true) shown.push_back({x.v, false});
    for (auto& x : fallback_unknown) shown.push_back({x.v, false});
    for (auto& x : shown) x.applies = false;
    // Most likely first: more of its conditions already true (stable: file order otherwise).
    std::stable_sort(shown.begin(), shown.end(),
                     [](const Chosen& a, const Chosen& b) { return a.support > b.support; });
  } else if (!fallback_true.empty()) {
    shown = fallback_true;
  } else if (!fallback_unknown.empty()) {
    listing = true;
    shown = fallback_unknown;
    for (auto& x : shown) x.applies = false;
  }

  Diagnosis d;
  d.id = e.id;
  d.title = render(e.title, c);
  d.cause = render(e.cause, c);
  d.reference = e.reference;
  d.status = e.status;
  d.severity = e.severity;
  d.score = e.priority;
  d.match_count = st.count;
  d.matched_lines = std::move(st.lines);
  d.line_numbers = std::move(st.numbers);
  d.details = st.captures;
  d.check_where = e.check_where;
  d.sources = e.sources;
  d.context_needed = listing;
  for (const auto& x : shown) {
    FixOption o;
    o.when = x.v->when.is_null() && !listing ? "" : render(x.v->label, c);
    o.text = render(x.v->fix, c);
    o.applies = x.applies;
    o.check = render(x.v->check, c);
    d.fixes.push_back(std::move(o));
  }
  if (!listing) {
    for (const auto& x : shown) {
      if (!x.v->cause.empty()) {
        d.cause = render(x.v->cause, c);
        break;
      }
    }
  }
  if (d.fixes.empty()) d.fixes.push_back({"", render(e.fix, c), true});
  if (listing) {
    d.fix = e.possibilities ? "Several causes print this; the most likely first:"
                            : "Which fix applies depends on the machine:";
    for (const auto& o : d.fixes) {
      d.fix += o.when == "otherwise" ? fmt::format("\n- otherwise: {}", o.text)
                                     : fmt::format("\n- if {}: {}", o.when, o.text);
      if (!o.check.empty()) d.fix += fmt::format(" (To tell: {})", o.check);
    }
  } else if (d.fixes.size() == 1) {
    d.fix = d.fixes.front().text;
  } else {
    for (std::size_t i = 0; i < d.fixes.size(); ++i) {
      if (i) d.fix += "\n";
      d.fix += "- " + d.fixes[i].text;
    }
  }
  return d;
}

std::vector<Diagnosis> finish(const KbData& kb, Scanner& sc, const MachineContext& ctx,
                              MachineFacts* facts_out) {
  MachineFacts facts = parse_context(kb, ctx);
  merge_tool_gpus(kb, sc.tool_gpus(), facts);
  merge_log_facts(kb, sc.log_facts(), facts);
  for (std::size_t i = 0; i < kb.hints.size(); ++i) {
    if (sc.hints()[i]) facts.hints.push_back(kb.hints[i].id);
  }
  // Only an entry that is reported suppresses others: an evidence entry
  // whose facts say nothing wrong does not hide the reading it refines.
  std::vector<Diagnosis> out;
  std::set<std::string> suppressed;
  auto& states = sc.entries();
  for (std::size_t i = 0; i < kb.errors.size(); ++i) {
    auto& st = states[i];
    if (st.count == 0 || st.unless) continue;
    if (auto d = build_diagnosis(kb, kb.errors[i], st, facts)) {
      for (const auto& s : kb.errors[i].suppresses) suppressed.insert(s);
      out.push_back(std::move(*d));
    }
  }
  out.erase(
      std::remove_if(out.begin(), out.end(), [&](const Diagnosis& d) { return suppressed.count(d.id) > 0; }),
      out.end());
  std::stable_sort(out.begin(), out.end(), [](const Diagnosis& a, const Diagnosis& b) {
    if (a.score != b.score) return a.score > b.score;
    const std::size_t la = a.line_numbers.empty() ? 0 : a.line_numbers.front();
    const std::size_t lb = b.line_numbers.empty() ? 0 : b.line_numbers.front();
    return la < lb;
  });
  if (facts_out) *facts_out = std::move(facts);
  return out;
}

/// Splits text into lines on \n, \r\n and bare \r (progress bars), feeding each.
template <typename Fn>
void for_each_line(std::string_view text, Fn&& fn) {
  std::size_t start = 0, number = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n' || text[i] == '\r') {
      ++number;
      fn(text.substr(start, i - start), number);
      if (i < text.size() && text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
}

}  // namespace

}  // namespace kb_detail

using kb_detail::finish;
using kb_detail::for_each_line;
using kb_detail::Scanner;
using kb_detail::strip_ansi;

std::vector<Diagnosis> KnowledgeBase::explain(std::string_view text, const MachineContext& ctx) const {
  const ExplainOptions opt;
  Scanner sc(*impl_, opt);
  std::string line;
  for_each_line(text, [&](std::string_view l, std::size_t n) {
    if (l.size() > opt.max_line_bytes) l = l.substr(0, opt.max_line_bytes);
    if (l.find('\x1b') != std::string_view::npos) {
      line.assign(l.data(), l.size());
      strip_ansi(line);
      sc.feed(line, n);
    } else {
      sc.feed(l, n);
    }
  });
  return finish(*impl_, sc, ctx, nullptr);
}

ExplainResult KnowledgeBase::explain_stream(std::istream& in, const MachineContext& ctx,
                                            const ExplainOptions& options) const {
  ExplainResult result;
  Scanner sc(*impl_, options);
  std::string line;
  line.reserve(std::min<std::size_t>(options.max_line_bytes, 1 << 16));
  bool skipping = false;  // the current line passed max_line_bytes
  bool after_cr = false;  // swallow the \n of \r\n
  std::size_t number = 0;
  std::size_t control = 0;  // control bytes (not tab or ESC) and NULs in the current line
  std::size_t nuls = 0;     // NULs in the current line
  auto flush = [&] {
    ++number;
    // UTF-16LE text (a PowerShell `>` redirect): every other byte a NUL.
    if (nuls > 0 && nuls * 5 >= line.size() * 2) {
      line.erase(std::remove(line.begin(), line.end(), '\0'), line.end());
      control -= nuls;
      nuls = 0;
    }
    // A line of binary data (an executable, a core file: strings between NULs)
    // is not a log line; the knowledge base's own patterns inside
    // accel-doctor's binary would otherwise "recognise" every cause.
    const bool binary_line = nuls > 0 || control * 20 > line.size();
    if (!binary_line) {
      strip_ansi(line);
      sc.feed(line, number);
    }
    line.clear();
    control = 0;
    nuls = 0;
    skipping = false;
  };
  std::vector<char> buf(1 << 16);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got == 0) break;
    result.bytes += got;
    for (std::size_t i = 0; i < got; ++i) {
      const char ch = buf[i];
      if (ch == '\n' || ch == '\r') {
        if (ch == '\n' && after_cr) {
          after_cr = false;
          continue;
        }
        after_cr = ch == '\r';
        flush();
        continue;
      }
      after_cr = false;
      if (ch == '\0') {
        result.binary = true;
        ++nuls;
      }
      const auto uch = static_cast<unsigned char>(ch);
      if ((uch < 0x20 && ch != '\t' && ch != '\x1b') || uch == 0x7f) ++control;
      if (skipping) continue;
      if (line.size() >= options.max_line_bytes) {
        skipping = true;
        ++result.long_lines;
        continue;
      }
      line.push_back(ch);
    }
  }
  if (!line.empty() || skipping) flush();
  result.lines = number;
  result.diagnoses = finish(*impl_, sc, ctx, &result.facts);
  result.key_lines = sc.key_lines();
  if (result.diagnoses.empty()) result.near_matches = kb_detail::near_matches(*impl_, result.key_lines);
  return result;
}

std::optional<Diagnosis> KnowledgeBase::classify(std::string_view message, const MachineContext& ctx) const {
  auto all = explain(message, ctx);
  for (auto& d : all) {  // a harmless warning in the text is not the cause of a failure
    if (d.severity != "info") return std::move(d);
  }
  return std::nullopt;
}

}  // namespace accel
