#include "core/report/progress.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace accel {

namespace {

std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

/// The first `width` columns of `s`, with "…" when cut.
std::string cut(const std::string& s, std::size_t width) {
  if (columns(s) <= width) return s;
  if (width == 0) return "";
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    if (n + 1 >= width) break;
    out += s.substr(i, len);
    i += len;
    ++n;
  }
  return out + "…";
}

}  // namespace

std::optional<double> progress_eta_s(const ProgressState& st) {
  if (st.done == 0 || st.total == 0 || st.done > st.total) return std::nullopt;
  const double finished_s = std::max(0.0, st.elapsed_s - st.current_s);
  const double per_item = finished_s / static_cast<double>(st.done);
  return std::max(0.0, per_item * static_cast<double>(st.total - st.done) - st.current_s);
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string format_progress_line(const ProgressState& st, int width, bool unicode) {
  const std::size_t w = static_cast<std::size_t>(std::max(width, 10));
  std::string counts, times;
  if (st.total > 0) {
    const double frac = std::min(1.0, static_cast<double>(st.done) / static_cast<double>(st.total));
    counts = fmt::format("{}/{} {:.0f}%", st.done, st.total, 100 * frac);
    times = format_duration(st.elapsed_s);
    if (st.done >= st.total) {
      // finished: the time it took
    } else if (auto eta = progress_eta_s(st)) {
      times += " ~" + format_duration(*eta) + " left";
    } else if (st.done < st.total) {
      times += " estimating…";
    }
  }
  std::string item = st.current;
  if (!item.empty() && st.current_s >= 5) item += " (" + format_duration(st.current_s) + ")";

  // Without the bar: "counts times  item". The bar takes what is left once
  // the item has 32 columns, up to 20, and only when at least 8 remain for it.
  const std::string fixed = counts.empty() ? "" : counts + " " + times + "  ";
  std::string bar;
  if (st.total > 0) {
    const long room = static_cast<long>(w) - static_cast<long>(columns(fixed)) -
                      static_cast<long>(std::min<std::size_t>(columns(item), 32)) - 3;
    const long cells = std::min(20L, room);
    if (cells >= 8) {
      const double frac = std::min(1.0, static_cast<double>(st.done) / static_cast<double>(st.total));
      const long full = std::lround(frac * static_cast<double>(cells));
      bar = "[";
      for (long i = 0; i < cells; ++i) bar += i < full ? (unicode ? "█" : "#") : (unicode ? "░" : "-");
      bar += "] ";
    }
  }
  std::string line = bar + fixed;
  if (columns(line) >= w) return cut(line, w);
  return line + cut(item, w - columns(line));
}

}  // namespace accel
