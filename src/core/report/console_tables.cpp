// The terminal reporter's result tables: operator checks, benchmarks, LLM
// and training rows, fitted to the terminal's width.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/report/console.hpp"
#include "core/report/console_detail.hpp"

#include "core/evidence_views.hpp"
#include "core/report/digest.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/roofline.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace accel {

using console_detail::bold;
using console_detail::dim;
using console_detail::display_width;
using console_detail::fit;
using console_detail::line;
using console_detail::pad;
using console_detail::rpad;
using console_detail::wrap_lines;

namespace {

/// Columns of a terminal table that fit the terminal: the last column (the
/// note) takes what is left; when the row does not fit, columns are dropped
/// lowest priority first and the shrinkable ones (names, shapes) cut, so every
/// line stays within ConsoleStyle::width (60 columns included).
struct Column {
  std::string header;
  int width;      ///< preferred width
  int min_width;  ///< may be cut down to this
  int priority;   ///< higher stays longer
  bool right = false;
};

struct Cell {
  std::string text;
  enum class Look { plain, dim, status } look = Look::plain;
  Status status = Status::ok;
};

class Table {
 public:
  /// `cols` are the fixed columns; the note column follows them.
  Table(std::vector<Column> cols, std::string note_header, const ConsoleStyle& style, int note_min = 10)
      : cols_(std::move(cols)), note_header_(std::move(note_header)), style_(style) {
    const int width = std::max(style.width, 20);
    std::vector<bool> shown(cols_.size(), true);
    auto need = [&](bool with_note) {
      int n = 0, k = 0;
      for (std::size_t i = 0; i < cols_.size(); ++i) {
        if (shown[i]) n += cols_[i].min_width + (k++ ? 1 : 0);
      }
      return n + (with_note ? note_min + 1 : 0);
    };
    while (need(true) > width) {
      int drop = -1;
      for (std::size_t i = 0; i < cols_.size(); ++i) {
        if (shown[i] && (drop < 0 || cols_[i].priority < cols_[static_cast<std::size_t>(drop)].priority)) {
          drop = static_cast<int>(i);
        }
      }
      if (drop < 0 || std::count(shown.begin(), shown.end(), true) <= 2) break;
      shown[static_cast<std::size_t>(drop)] = false;
    }
    note_ = need(true) <= width;
    // Widths: start at the minimum, grow by priority towards the preferred width.
    int left = width - need(note_);
    widths_.assign(cols_.size(), 0);
    for (std::size_t i = 0; i < cols_.size(); ++i) widths_[i] = shown[i] ? cols_[i].min_width : -1;
    std::vector<std::size_t> order(cols_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return cols_[a].priority > cols_[b].priority; });
    for (std::size_t i : order) {
      if (!shown[i] || left <= 0) continue;
      const int grow = std::min(left, cols_[i].width - cols_[i].min_width);
      widths_[i] += std::max(grow, 0);
      left -= std::max(grow, 0);
    }
    note_width_ = note_ ? note_min + std::max(left, 0) : 0;
    // The header line.
    std::vector<Cell> head;
    for (const auto& c : cols_) head.push_back({c.header});
    head.push_back({note_header_});
    out_ += bold(line_of(head, true), style_) + "\n";
  }

  void group(const std::string& title) {
    out_ += bold(fit("[" + title + "]", static_cast<std::size_t>(std::max(style_.width, 20))), style_) + "\n";
  }

  /// `cells`: one per fixed column, then the note. A note longer than its
  /// column is never cut: it wraps onto lines of its own under the note
  /// column, or, when the column is too narrow to read (a narrow terminal),
  /// the row gets a marker "[n]" and the note is listed below the table.
  void row(const std::vector<Cell>& cells) {
    if (!note_ || cells.size() <= cols_.size() ||
        display_width(cells[cols_.size()].text) <= static_cast<std::size_t>(note_width_)) {
      out_ += line_of(cells, false) + "\n";
      return;
    }
    const Cell& note = cells[cols_.size()];
    std::vector<Cell> first(cells.begin(), cells.end());
    const auto lines = split_words(note.text, static_cast<std::size_t>(note_width_));
    if (note_width_ < kMinWrappedNote && lines.size() > 2) {
      footnotes_.push_back(note);
      first.back().text = fmt::format("[{}]", footnotes_.size());
      out_ += line_of(first, false) + "\n";
      return;
    }
    first.back().text = lines.front();
    out_ += line_of(first, false) + "\n";
    const std::string lead(static_cast<std::size_t>(note_column()), ' ');
    for (std::size_t i = 1; i < lines.size(); ++i) out_ += lead + look(note, lines[i]) + "\n";
  }

  /// The table, then the notes that did not fit their column.
  std::string str() const {
    std::string out = out_;
    if (!footnotes_.empty()) {
      std::string notes;
      for (std::size_t i = 0; i < footnotes_.size(); ++i) {
        notes += fmt::format("[{}] {}\n", i + 1, footnotes_[i].text);
      }
      out += wrap_lines(notes, std::max(style_.width, 20));
    }
    return out;
  }

 private:
  std::string look(const Cell& c, const std::string& text) const {
    if (c.look == Cell::Look::dim) return dim(text, style_);
    if (c.look == Cell::Look::status) return colorize_status(c.status, text, style_);
    return text;
  }

  std::string line_of(const std::vector<Cell>& cells, bool header) const {
    std::string s;
    bool first = true;
    for (std::size_t i = 0; i < cols_.size() && i < cells.size(); ++i) {
      if (widths_[i] < 0) continue;
      const auto w = static_cast<std::size_t>(widths_[i]);
      const std::string text = cols_[i].right ? rpad(cells[i].text, w) : pad(cells[i].text, w);
      s += (first ? "" : " ") + (header ? text : look(cells[i], text));
      first = false;
    }
    if (note_ && cells.size() > cols_.size()) {
      const Cell& note = cells[cols_.size()];
      std::string text = fit(note.text, static_cast<std::size_t>(note_width_));
      if (header) text = fit(note_header_, static_cast<std::size_t>(note_width_));
      if (!text.empty()) s += " " + (header ? text : look(note, text));
    }
    return s;
  }

  /// A note column narrower than this lists the notes that would take more
  /// than two lines below the table.
  static constexpr int kMinWrappedNote = 24;

  /// The display column where the note starts.
  int note_column() const {
    int col = 0;
    bool first = true;
    for (std::size_t i = 0; i < cols_.size(); ++i) {
      if (widths_[i] < 0) continue;
      col += widths_[i] + (first ? 0 : 1);
      first = false;
    }
    return col + 1;
  }

  /// Greedy word wrap to `width` columns; a word longer than a line is split.
  static std::vector<std::string> split_words(const std::string& text, std::size_t width) {
    std::vector<std::string> lines;
    std::string cur;
    std::size_t cur_w = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
      std::size_t sp = text.find(' ', pos);
      if (sp == std::string::npos) sp = text.size();
      std::string word = text.substr(pos, sp - pos);
      pos = sp + 1;
      if (word.empty()) continue;
      while (display_width(word) > width) {  // split on code-point boundaries
        if (!cur.empty()) {
          lines.push_back(cur);
          cur.clear();
          cur_w = 0;
        }
        std::size_t cols = 0, i = 0;
        while (i < word.size() && cols < width) {
          ++i;
          while (i < word.size() && (static_cast<unsigned char>(word[i]) & 0xC0) == 0x80) ++i;
          ++cols;
        }
        lines.push_back(word.substr(0, i));
        word = word.substr(i);
      }
      const std::size_t ww = display_width(word);
      if (ww == 0) continue;
      if (!cur.empty() && cur_w + 1 + ww > width) {
        lines.push_back(cur);
        cur.clear();
        cur_w = 0;
      }
      cur += (cur.empty() ? "" : " ") + word;
      cur_w += ww + (cur_w ? 1 : 0);
    }
    if (!cur.empty() || lines.empty()) lines.push_back(cur);
    return lines;
  }

  std::vector<Column> cols_;
  std::string note_header_;
  ConsoleStyle style_;
  std::vector<Cell> footnotes_;
  std::vector<int> widths_;
  bool note_ = true;
  int note_width_ = 0;
  std::string out_;
};

std::string timing_cell(const std::optional<Timing>& t) {
  if (!t) return "-";
  const double rel = t->median_us > 0 ? 100.0 * t->iqr_us / t->median_us : 0;
  return fmt::format("{} ±{:.0f}%{}", format_us(t->median_us), rel, t->noisy ? "!" : "");
}

/// Short form of where the work ran (profiler evidence).
std::string where_cell(const Result& r) {
  if (!r.profile) return "-";
  switch (r.profile->where) {
    case Where::device_kernels:
      return "kernels";
    case Where::cpu_fallback:
      return "FALLBACK";
    case Where::no_device_work:
      return "no-work";
    case Where::profiler_blind:
      return "blind";
    case Where::backend_kernels:
      return "device";
    case Where::host:
      return "host";
    case Where::none:
    case Where::unavailable:
      break;
  }
  return "?";
}

std::string note_for(const Result& r) {
  if (r.profile && r.profile->where == Where::cpu_fallback) return r.profile->detail;
  if (r.error) {
    if (!r.error->cause.empty()) return r.error->cause;
    return r.error->message;
  }
  if (!r.reason.empty()) return r.reason;
  if (!r.warnings.empty())
    return fmt::format("{} warning{}: {}", r.warnings.size(), r.warnings.size() > 1 ? "s" : "",
                       r.warnings.front());
  if (r.profile && !r.profile->implementation.empty()) {
    std::string s;
    for (const auto& [role, impl] : r.profile->implementation) {
      if (role == "aten") continue;
      s += (s.empty() ? "" : ", ") + role + ": " + impl;
    }
    return s;
  }
  return "";
}

/// A line under a table whose device times were taken without device
/// events or a stream synchronisation (a plugin device): how they were
/// timed and what that means for the figures. "" otherwise.
std::string timing_method_note(const std::vector<Result>& results) {
  std::string devices;
  for (const auto& r : results) {
    if (!r.timing || r.timing->method != "host_clock_scalar_copy") continue;
    if (devices.find(r.device) == std::string::npos) devices += (devices.empty() ? "" : ", ") + r.device;
  }
  if (devices.empty()) return "";
  return fmt::format(
      "device times on {}: host clock around a synchronising scalar copy (the backend has no timing events "
      "and no stream synchronisation), so each figure includes the launch overhead and one small copy per "
      "sample\n",
      devices);
}

}  // namespace

std::string render_checks_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  // Keep the catalog order of categories as they first appear.
  std::vector<std::string> categories;
  for (const auto& r : results) {
    if (std::find(categories.begin(), categories.end(), r.category) == categories.end()) {
      categories.push_back(r.category);
    }
  }
  // Narrow terminals drop the CPU time first, then the speed-up, where it ran
  // and the device time; the name is cut before anything else goes.
  Table t({{"check", 26, 16, 100},
           {"dtype", 5, 5, 90},
           {"status", 11, 11, 95},
           {"ran", 8, 8, 60},
           {"device median±IQR", 17, 14, 70, true},
           {"CPU median±IQR", 17, 14, 40, true},
           {"speed-up", 8, 8, 50, true},
           {"of bound", 8, 7, 45, true}},
          "note", style);
  for (const auto& cat : categories) {
    t.group(cat);
    for (const auto& r : results) {
      if (r.category != cat) continue;
      // % of the roofline bound; "!" marks a figure above the peak: a cached
      // working set under a DRAM roof (the timing is valid, the % says
      // nothing) or a likely timing error (docs/roofline.md, the 105% rule).
      std::string bound = "-";
      std::string note = note_for(r);
      if (r.roofline && r.roofline->percent_of_bound > 0) {
        // Capped so the '!' of an absurd figure (a missing synchronisation
        // can give 10000%) survives the column's width.
        const double pct = r.roofline->percent_of_bound;
        bound = pct >= 1000 ? std::string(">999%") : fmt::format("{:.0f}%", pct);
        if (r.roofline->above_peak) bound += "!";
        if (r.roofline->above_peak && r.status == Status::ok) {
          const char* why = above_peak_from_cache(r) ? "above the DRAM roof: data in caches"
                                                     : "above the peak: likely a timing error";
          note = note.empty() ? why : std::string(why) + "; " + note;
        }
      }
      t.row({{r.name},
             {r.dtype},
             {std::string(to_string(r.status)), Cell::Look::status, r.status},
             {where_cell(r)},
             {timing_cell(r.timing)},
             {timing_cell(r.cpu_timing)},
             {r.speedup ? format_ratio(*r.speedup) : "-"},
             {bound},
             {note, Cell::Look::dim}});
    }
  }
  return t.str() + timing_method_note(results);
}

std::string render_bench_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::vector<std::string> groups;
  for (const auto& r : results) {
    const std::string g = r.category;
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  Table t({{"benchmark", 22, 14, 100},
           {"dtype", 5, 5, 90},
           {"shape", 16, 10, 40},
           {"device", 7, 6, 50},
           {"median±IQR", 17, 14, 60, true},
           {"figure", 16, 13, 95, true},
           {"of bound", 9, 8, 80, true}},
          "note", style);
  for (const auto& g : groups) {
    t.group(g);
    for (const auto& r : results) {
      if (r.category != g) continue;
      std::string figure = "-";
      if (auto it = r.metrics.find("tflops"); it != r.metrics.end()) {
        figure = format_tflops(it->second);
      } else if (auto it2 = r.metrics.find("gbps"); it2 != r.metrics.end()) {
        figure = format_gbps(it2->second);
      } else if (auto it3 = r.metrics.find("us_per_op"); it3 != r.metrics.end()) {
        figure = format_us(it3->second) + "/op";
      }
      std::string pct = "-";
      if (r.roofline && r.roofline->percent_of_bound > 0) {
        pct = fmt::format("{:.0f}%{}", r.roofline->percent_of_bound, r.roofline->above_peak ? "!" : "");
      }
      std::string note = r.status == Status::ok ? "" : std::string(to_string(r.status)) + ": " + r.reason;
      if (note.empty() && r.roofline && r.roofline->above_peak)
        note = "above the peak: likely a timing error";
      if (note.empty() && r.timing && r.timing->noisy) note = "noisy (IQR > 10% of median)";
      t.row(
          {{r.name},
           {r.dtype},
           {r.shape},
           {r.device},
           {timing_cell(r.timing)},
           {figure},
           {pct},
           r.status == Status::ok ? Cell{note, Cell::Look::dim} : Cell{note, Cell::Look::status, r.status}});
    }
  }
  return t.str() + render_gpu_busy(results, ResultKind::bench, style);
}

namespace {

/// A metric as recorded (a non-finite one too: digest.hpp's metric() drops those).
std::optional<double> raw_metric(const Result& r, const char* k) {
  const auto it = r.metrics.find(k);
  if (it == r.metrics.end()) return std::nullopt;
  return it->second;
}

/// "batch 4" -> "4": a sweep's rows differ only by their batch.
std::string batch_of(const Result& r) {
  constexpr std::string_view kPrefix = "batch ";
  return r.shape.rfind(kPrefix, 0) == 0 ? r.shape.substr(kPrefix.size()) : std::string("-");
}

/// A ceiling an LLM row's "% GEMM" (tflops) or "% BW" (gbps) is of.
std::string llm_ceiling_text(const LlmCeiling& c, bool tflops) {
  const double v = tflops ? c.tflops : c.gbps;
  return v > 0 ? fmt::format("{} {} ({})", c.key, tflops ? format_tflops(v) : format_gbps(v), c.source)
               : fmt::format("{}: {}", c.key, c.source);
}

/// Where a decode step's device time goes, by class, largest first; "" when
/// the row does not say.
std::string decode_attribution(const Result& r, const LlmEvidence& e, const std::string& label) {
  if (r.status != Status::ok || !e.device_time_per_step_us) return "";
  std::vector<std::pair<double, std::string>> classes;
  for (const auto& [k, us] : *e.device_time_per_step_us) classes.emplace_back(us, k);
  std::sort(classes.rbegin(), classes.rend());
  std::vector<std::string> parts;
  for (const auto& [us, k] : classes) parts.push_back(fmt::format("{} {}", k, format_us(us)));
  std::string line = fmt::format("  {}: {}", label, fmt::join(parts, ", "));
  if (auto busy = raw_metric(r, "device_busy_per_step_us")) {
    line += fmt::format("; busy {} of a {} step", format_us(*busy),
                        format_us(raw_metric(r, "step_time_us").value_or(0)));
  }
  if (auto idle = raw_metric(r, "device_idle_fraction")) line += fmt::format(", idle {:.0f}%", 100 * *idle);
  if (auto k = raw_metric(r, "kernels_per_step")) line += fmt::format(", {:.0f} kernels", *k);
  if (e.bottleneck) line += "\n    " + *e.bottleneck;
  return line + "\n";
}

/// The note of an ok row: its accuracy, else what bounds it.
std::string llm_ok_note(const Result& r, const LlmEvidence& e) {
  if (r.accuracy) return r.accuracy->detail;
  return e.bottleneck.value_or("");
}

}  // namespace

std::string render_llm_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  Table t({{"test", 18, 10, 100},
           {"batch", 5, 5, 85},
           {"model", 12, 8, 60},
           {"dtype", 5, 5, 70},
           {"device", 7, 6, 75},
           {"tokens/s", 10, 9, 95, true},
           {"latency", 24, 14, 50, true},
           {"roofline", 10, 9, 90, true},
           {"vs CPU", 9, 7, 80, true}},
          "note", style);
  std::string attribution, memory, problems;
  // The ceilings the rows' "% GEMM" and "% BW" are of: bench rows of the
  // same report, by key (the same prefill reads 88% against one run's
  // measured GEMM and 44% against another's: the figure is said, issue 19).
  std::vector<std::string> ceilings;
  auto add_ceiling = [&](const std::optional<LlmCeiling>& c, bool tflops) {
    if (!c) return;
    const std::string text = llm_ceiling_text(*c, tflops);
    if (std::find(ceilings.begin(), ceilings.end(), text) == ceilings.end()) ceilings.push_back(text);
  };
  for (const auto& r : results) {
    if (r.kind != ResultKind::llm) continue;  // the bench rows measured as ceilings have their own table
    const LlmEvidence e = llm_evidence(r);
    add_ceiling(e.gemm_ceiling, true);
    add_ceiling(e.bandwidth_ceiling, false);
    std::string rate = "-", lat = "-", roof = "-";
    if (auto v = raw_metric(r, "tokens_per_s")) rate = format_sig3(*v);
    if (auto v = raw_metric(r, "ttft_ms")) lat = "TTFT " + format_us(*v * 1000);
    if (auto v = raw_metric(r, "token_latency_p50_ms")) {
      lat = fmt::format("p50 {} p90 {}", format_us(*v * 1000),
                        format_us(raw_metric(r, "token_latency_p90_ms").value_or(0) * 1000));
    }
    if (auto v = raw_metric(r, "decode_roofline_pct")) roof = fmt::format("{:.0f}% BW", *v);
    if (auto v = raw_metric(r, "prefill_roofline_pct")) roof = fmt::format("{:.0f}% GEMM", *v);
    const std::string label = fmt::format("{} b{} {}", r.name, batch_of(r), r.device);
    std::string note;
    if (r.status != Status::ok) {
      note = std::string(to_string(r.status)) + " (below)";
      problems +=
          fmt::format("  {} {}: {}\n", colorize_status(r.status, std::string(to_string(r.status)), style),
                      r.key, r.reason.empty() && r.error ? r.error->message : r.reason);
    } else {
      note = llm_ok_note(r, e);
      if (r.timing && r.timing->noisy) {
        note = "noisy (IQR > 10% of median)" + std::string(note.empty() ? "" : "; ") + note;
        rate += "!";
      }
    }
    attribution += decode_attribution(r, e, label);
    if (auto b = raw_metric(r, "peak_memory_bytes"); b && r.status == Status::ok) {
      memory += fmt::format("{}{} {}", memory.empty() ? "  " : ", ", label, format_bytes(*b));
    }
    t.row({{r.name},
           {batch_of(r)},
           {r.category},
           {r.dtype},
           {r.device},
           {rate},
           {lat},
           {roof},
           {r.speedup ? format_ratio(*r.speedup) : "-"},
           r.status == Status::ok ? Cell{note, Cell::Look::dim} : Cell{note, Cell::Look::status, r.status}});
  }
  std::string out = t.str();
  if (!attribution.empty()) {
    out += "\n" + bold("Decode, device time per step by class:", style) + "\n" +
           wrap_lines(attribution, style.width);
  }
  if (!memory.empty()) {
    out += "\n" + bold("Peak device memory:", style) + "\n" + wrap_lines(memory + "\n", style.width);
  }
  if (!ceilings.empty()) {
    std::string lines;
    for (const auto& c : ceilings) lines += "  " + c + "\n";
    out += "\n" + bold("Ceilings (% GEMM and % BW are of these bench rows):", style) + "\n" +
           wrap_lines(lines, style.width);
  }
  out += render_gpu_busy(results, ResultKind::llm, style);
  if (!problems.empty()) {
    out += "\n" + bold("Not measured or failed:", style) + "\n" + wrap_lines(problems, style.width);
  }
  return out;
}

std::string render_train_table(const std::vector<Result>& results, const ConsoleStyle& style) {
  auto rate = [](double v) { return v >= 100 ? fmt::format("{:.0f}", v) : format_sig3(v); };
  auto text = [](const json& j, const char* k) {
    return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string();
  };
  const int test_w = 13, model_w = 5, prec_w = 4, dev_w = 6, rate_w = 9, step_w = 9, h2d_w = 9, sync_w = 5,
            loss_w = 15, sp_w = 7;
  const int fixed = test_w + model_w + prec_w + dev_w + rate_w + step_w + h2d_w + sync_w + loss_w + sp_w + 10;
  const auto note_w = static_cast<std::size_t>(std::max(16, style.width - fixed));
  std::string out =
      bold(fmt::format("{} {} {} {} {} {} {} {} {} {} {}", pad("test", test_w), pad("model", model_w),
                       pad("prec", prec_w), pad("device", dev_w), rpad("samples/s", rate_w),
                       rpad("step", step_w), rpad("h2d/step", h2d_w), rpad("syncs", sync_w),
                       rpad("loss (fp32)", loss_w), rpad("vs CPU", sp_w), "note"),
           style) +
      "\n";
  std::string sweeps, costs, problems;
  for (const auto& r : results) {
    const bool sweep = r.evidence.contains("curve");
    const bool item_cost = r.metrics.count("item_cost_us") > 0;
    const std::string who = fmt::format("{} {} on {}", r.category, r.dtype, r.device);
    std::string sps = "-", step = "-", h2d = "-", syncs = "-", loss = "-", note;
    if (item_cost) {
      if (auto v = raw_metric(r, "samples_per_s_with_item")) sps = rate(*v);
      if (auto v = raw_metric(r, "step_with_item_ms")) step = format_us(*v * 1000);
      const double cost = raw_metric(r, "item_cost_us").value_or(0);
      note = fmt::format("item() {}{} {:+.1f}%", cost > 0 ? "+" : "", format_us(cost),
                         raw_metric(r, "item_cost_pct").value_or(0));
      if (r.evidence.value("item_cost_measurable", true) == false) note += " noise";
      costs += fmt::format("  {}, {}: {}\n", who, r.shape, text(r.evidence, "verdict"));
    } else {
      if (auto v = raw_metric(r, "samples_per_s")) sps = rate(*v);
      if (auto v = raw_metric(r, "step_ms"); v && !sweep) step = format_us(*v * 1000);
    }
    if (auto v = raw_metric(r, "h2d_bytes_per_step")) h2d = format_bytes(*v);
    if (auto v = raw_metric(r, "syncs_per_step")) syncs = format_sig3(*v);
    if (auto v = raw_metric(r, "loss_final")) {
      const double first = raw_metric(r, "loss_first").value_or(0);
      loss = r.dtype == "fp32"
                 ? fmt::format("{:.3f}→{:.3f}", first, *v)
                 : fmt::format("{:.3f} ({:.3f})", *v, raw_metric(r, "loss_final_fp32").value_or(0));
    }
    if (sweep) {
      const auto max_batch = raw_metric(r, "max_batch").value_or(0);
      const std::string limit = text(r.evidence, "limit");
      if (limit == "cap") {
        note = fmt::format("max >={:g}, cap (no OOM)", max_batch);
      } else if (limit == "out_of_memory" || limit == "injected_out_of_memory") {
        note = fmt::format("max {:g}, OOM at {:g}{}", max_batch, raw_metric(r, "oom_at_batch").value_or(0),
                           limit == "injected_out_of_memory" ? " INJECTED" : "");
      }
      std::string points;
      for (const auto& p : r.evidence["curve"]) {
        if (!p.is_object() || !p.contains("batch") || !p.contains("samples_per_s")) continue;
        points +=
            fmt::format("  b{} {}", p["batch"].get<std::int64_t>(), rate(p["samples_per_s"].get<double>()));
      }
      const std::string detail = text(r.evidence, "limit_detail");
      sweeps += fmt::format("  {}:{}{}\n", who, points.empty() ? " -" : points,
                            detail.empty() ? "" : " | " + detail);
    } else if (!item_cost && r.status == Status::ok) {
      if (auto v = raw_metric(r, "tflops")) {
        note = *v >= 1 ? fmt::format("{:.3g} TFLOP/s", *v) : fmt::format("{:.3g} GFLOP/s", *v * 1000);
      }
      if (r.roofline && r.roofline->percent_of_bound > 0) {
        note += fmt::format(" ({:.1f}% of peak)", r.roofline->percent_of_bound);
      }
      if (auto v = raw_metric(r, "speedup_vs_fp32")) note += fmt::format("; {} fp32", format_ratio(*v));
      if (auto v = raw_metric(r, "grad_scale")) {
        note += fmt::format("; scale {}, {:g} skipped", format_sig3(*v),
                            raw_metric(r, "skipped_steps").value_or(0));
      }
      if (auto v = raw_metric(r, "host_reads_per_step"); v && *v > 0)
        note += fmt::format("; {:g} host reads", *v);
    }
    if (r.status != Status::ok) {
      note = std::string(to_string(r.status)) + " (below)";
      problems +=
          fmt::format("  {} {}: {}\n", colorize_status(r.status, std::string(to_string(r.status)), style),
                      r.key, r.reason);
    }
    const std::string shown = fit(note, note_w);
    out += fmt::format("{} {} {} {} {} {} {} {} {} {} {}\n", pad(r.name, test_w), pad(r.category, model_w),
                       pad(r.dtype, prec_w), pad(r.device, dev_w), rpad(sps, rate_w), rpad(step, step_w),
                       rpad(h2d, h2d_w), rpad(syncs, sync_w), rpad(loss, loss_w),
                       rpad(r.speedup ? format_ratio(*r.speedup) : "-", sp_w),
                       r.status == Status::ok ? dim(shown, style) : colorize_status(r.status, shown, style));
  }
  if (!costs.empty())
    out += "\n" + bold("Cost of reading the loss on the host each step:", style) + "\n" + costs;
  if (!sweeps.empty()) out += "\n" + bold("Batch-size sweeps (samples/s by batch):", style) + "\n" + sweeps;
  out += render_gpu_busy(results, ResultKind::train, style);
  if (!problems.empty()) out += "\n" + bold("Not measured or failed:", style) + "\n" + problems;
  return out;
}

}  // namespace accel
