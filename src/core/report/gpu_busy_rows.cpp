#include "core/report/gpu_busy_rows.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/gpu_busy.hpp"
#include "core/report/console.hpp"
#include "core/report/html.hpp"

namespace accel {

std::vector<GpuBusyRow> gpu_busy_rows(const std::vector<Result>& results, ResultKind kind) {
  std::vector<GpuBusyRow> rows;
  for (const auto& r : results) {
    if (!r.gpu_busy || r.kind == ResultKind::check) continue;
    if (kind != ResultKind::none && r.kind != kind) continue;
    const GpuBusy& b = *r.gpu_busy;
    GpuBusyRow row;
    row.key = r.key;
    row.busy = row.engines = row.samples = "-";
    const GpuBusyDevice* d = busiest_gpu(b, 1);
    if (!d) {
      row.gpu = "-";
      row.note = b.not_measured.empty() ? "no sample" : b.not_measured;
      rows.push_back(std::move(row));
      continue;
    }
    row.gpu = fmt::format("{} ({})", d->name.empty() ? "GPU" : d->name, d->id);
    row.busy = fmt::format("median {:.0f}% (max {:.0f}%)", d->median_percent, d->max_percent);
    std::string engines;
    for (const auto& e : d->engines) {
      engines += fmt::format("{}{} {:.0f}/{:.0f}%", engines.empty() ? "" : ", ", e.engine, e.median_percent,
                             e.max_percent);
    }
    row.engines = engines.empty() ? "-" : engines;
    row.samples = fmt::format("{} x {:.0f} ms", d->samples, b.period_ms);
    if (d->samples < kGpuBusyMinSamples) {
      row.note = fmt::format("under {} samples: too short to judge", kGpuBusyMinSamples);
    } else {
      row.low = d->median_percent < kGpuBusyLowPercent;
      if (row.low) row.note = "GPU mostly idle";
    }
    if (b.devices.size() > 1) {
      row.note +=
          fmt::format("{}{} GPUs sampled, busiest shown", row.note.empty() ? "" : "; ", b.devices.size());
    }
    row.percent = d->percent;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string render_gpu_busy(const std::vector<Result>& results, ResultKind kind, const ConsoleStyle& style) {
  const auto rows = gpu_busy_rows(results, kind);
  if (rows.empty()) return "";
  const std::string title = "GPU busy while measuring (sampled by accel-doctor, whole item):";
  const auto heading = [&](const std::string& t) { return style.color ? "\x1b[1m" + t + "\x1b[0m" : t; };
  if (kind == ResultKind::bench) {
    // Dozens of rows, many not meant to fill the GPU (copies, launch latency): one line.
    std::vector<double> medians;
    std::string why;
    for (const auto& r : rows) {
      if (r.busy == "-") {
        if (why.empty()) why = r.note;
        continue;
      }
      for (const auto& res : results) {
        if (res.key == r.key && res.gpu_busy) {
          if (const auto* d = busiest_gpu(*res.gpu_busy, 1)) medians.push_back(d->median_percent);
          break;
        }
      }
    }
    if (medians.empty()) return "\n" + heading(title) + "\n  " + (why.empty() ? "no sample" : why) + "\n";
    std::sort(medians.begin(), medians.end());
    return "\n" + heading(title) + "\n" +
           wrap_to_width(
               fmt::format("  {} device rows sampled: their medians range {:.0f}% to {:.0f}% (each row: "
                           "--format md, --html or the JSON)\n",
                           medians.size(), medians.front(), medians.back()),
               style.width);
  }
  std::string body;
  // Rows without samples for the same reason (no source on this machine) say it once.
  std::map<std::string, int> unmeasured;
  for (const auto& r : rows) unmeasured[r.note] += r.busy == "-" ? 1 : 0;
  std::set<std::string> said;
  for (const auto& r : rows) {
    if (r.busy == "-") {
      const int n = unmeasured[r.note];
      if (n == 1) {
        body += fmt::format("  {}: {}\n", r.key, r.note);
      } else if (said.insert(r.note).second) {
        body += fmt::format("  {} rows: {}\n", n, r.note);
      }
      continue;
    }
    body += fmt::format("  {}: {} on {}; {}; {}{}\n", r.key, r.busy, r.gpu, r.engines, r.samples,
                        r.note.empty() ? "" : " (" + r.note + ")");
  }
  return "\n" + heading(title) + "\n" + wrap_to_width(body, style.width);
}

namespace {

/// An inline SVG polyline of percentages (0-100), oldest left.
std::string sparkline_svg(const std::vector<double>& percent) {
  if (percent.size() < 2) return "";
  constexpr double w = 120, h = 24;
  std::string points;
  for (std::size_t i = 0; i < percent.size(); ++i) {
    const double x = w * static_cast<double>(i) / static_cast<double>(percent.size() - 1);
    const double y = h - h * std::clamp(percent[i], 0.0, 100.0) / 100.0;
    points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x, y);
  }
  return fmt::format(
      "<svg class=\"spark\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"busy per sample, 0 to 100%\"><rect width=\"{0}\" height=\"{1}\" fill=\"none\" "
      "stroke=\"#ccc\"/><polyline fill=\"none\" stroke=\"currentColor\" points=\"{2}\"/></svg>",
      w, h, points);
}

}  // namespace

std::string render_gpu_busy_html(const std::vector<Result>& results) {
  const auto rows = gpu_busy_rows(results);
  if (rows.empty()) return "";
  std::string out =
      "<section id=\"gpu-busy\"><h2>GPU busy while measuring</h2>\n<p>Sampled by accel-doctor from each "
      "item's start to its result (the whole item, warm-up included); the busiest GPU is shown.</p>\n"
      "<div class=\"scroll\"><table class=\"data\"><thead><tr><th>item</th><th>GPU</th><th>busy</th>"
      "<th>per sample</th><th>engines (median/max)</th><th>samples</th><th>note</th></tr></thead><tbody>\n";
  for (const auto& r : rows) {
    out += "<tr><td><code>" + html_escape(r.key) + "</code></td><td>" + html_escape(r.gpu) + "</td><td" +
           (r.low ? " class=\"st-mismatch\"" : "") + ">" + html_escape(r.busy) + "</td><td>" +
           sparkline_svg(r.percent) + "</td><td>" + html_escape(r.engines) + "</td><td class=\"num\">" +
           html_escape(r.samples) + "</td><td>" + html_escape(r.note) + "</td></tr>\n";
  }
  out += "</tbody></table></div>\n</section>\n";
  return out;
}

}  // namespace accel
