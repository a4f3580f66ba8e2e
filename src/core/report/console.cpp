// The terminal reporter (core/report/console.hpp): colours, the summary line,
// the exit reason and the problem lists. The tables are console_tables.cpp,
// the `env` report console_env.cpp, the shared helpers console_text.cpp.
#include "core/report/console.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/report/console_detail.hpp"

#include "core/report/digest.hpp"
#include "core/stats.hpp"
#include "core/units.hpp"

namespace accel {

using console_detail::bold;
using console_detail::fit;
using console_detail::line;
using console_detail::wrap_lines;

namespace {

const char* ansi_for(Status s) {
  switch (s) {
    case Status::ok:
      return "\033[32m";
    case Status::unavailable:
    case Status::skipped:
      return "\033[33m";
    default:
      return "\033[31m";
  }
}

}  // namespace

std::string wrap_to_width(const std::string& text, int width) { return wrap_lines(text, width); }

bool color_allowed(bool is_tty, bool no_color_option, const char* no_color_env) {
  return is_tty && !no_color_option && !(no_color_env && *no_color_env);
}

std::string colorize_status(Status status, const std::string& text, const ConsoleStyle& style) {
  if (!style.color) return text;
  return std::string(ansi_for(status)) + text + "\033[0m";
}

std::string checks_summary_line(const std::vector<Result>& results, const std::string& device) {
  std::map<Status, int> counts;
  int warnings = 0;
  std::vector<double> speedups;
  for (const auto& r : results) {
    counts[r.status]++;
    warnings += static_cast<int>(r.warnings.size());
    if (r.speedup && r.status == Status::ok) speedups.push_back(*r.speedup);
  }
  std::string s = fmt::format("Summary: {}/{} ok on {}", counts[Status::ok], results.size(), device);
  auto add = [&](Status st, const char* one, const char* many) {
    const int n = counts[st];
    if (n) s += fmt::format(" | {} {}", n, n == 1 ? one : many);
  };
  add(Status::error, "error", "errors");
  add(Status::mismatch, "mismatch", "mismatches");
  add(Status::off_device, "off device", "off device");
  add(Status::crashed, "crashed", "crashed");
  add(Status::hung, "hung", "hung");
  add(Status::unavailable, "unavailable", "unavailable");
  add(Status::skipped, "skipped", "skipped");
  if (warnings) s += fmt::format(" | {} torch warning{} (listed below)", warnings, warnings == 1 ? "" : "s");
  if (!speedups.empty()) {
    s += fmt::format(" | median speed-up {} vs CPU", format_ratio(summarize(speedups).median));
  }
  return s;
}

std::string render_exit_reason(const std::string& command, const std::vector<Result>& results,
                               bool listed_above, const ConsoleStyle& style) {
  std::vector<const Result*> failed;
  for (const auto& r : results) {
    if (is_failure(r.status)) failed.push_back(&r);
  }
  if (failed.empty()) return "";
  const char* what = command == "ops" ? "checks" : command == "bench" ? "benchmarks" : "results";
  std::string out = fmt::format("{} exits 1: {} of {} {} failed{}\n", command, failed.size(), results.size(),
                                what, listed_above ? " (listed above)" : ":");
  if (!listed_above) {
    constexpr std::size_t kMax = 12;
    for (std::size_t i = 0; i < failed.size() && i < kMax; ++i) {
      const Result& r = *failed[i];
      std::string why = r.reason;
      if (r.error) {
        why = r.error->cause.empty() ? r.error->message : r.error->cause + " (" + r.error->message + ")";
      }
      out += fmt::format("{} {} [{}]: {}\n", colorize_status(r.status, "●", style), r.key,
                         to_string(r.status), why);
    }
    if (failed.size() > kMax)
      out += fmt::format("  and {} more (the JSON report has them all)\n", failed.size() - kMax);
  }
  return wrap_lines(out, style.width);
}

namespace {

/// "a, b, c and 4 more"
std::string list_keys(const std::vector<std::string>& keys, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < keys.size() && i < max; ++i) out += (i ? ", " : "") + keys[i];
  if (keys.size() > max) out += fmt::format(" and {} more", keys.size() - max);
  return out;
}

}  // namespace

std::string render_check_problems(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  // Unavailable checks with the same cause are one entry: the catalog's
  // fp16/bf16 rows on a CPU torch would repeat one cause and fix dozens of
  // times (1,164 lines for a full CPU run, 2026-11-30).
  struct Unavailable {
    const Result* first;
    std::vector<std::string> keys;
  };
  std::vector<std::pair<std::string, Unavailable>> unavailable;
  // The group of an unavailable check with a known cause and no warnings; "" for any other.
  auto group_of = [](const Result& r) {
    const bool groupable =
        r.status == Status::unavailable && r.error && !r.error->cause.empty() && r.warnings.empty();
    return groupable ? r.error->cause_id + "\n" + r.error->cause : std::string();
  };
  auto find_group = [&](const std::string& group) {
    return std::find_if(unavailable.begin(), unavailable.end(),
                        [&](const auto& g) { return g.first == group; });
  };
  for (const auto& r : results) {
    const std::string group = group_of(r);
    if (group.empty()) continue;
    auto it = find_group(group);
    if (it == unavailable.end()) it = unavailable.insert(unavailable.end(), {group, Unavailable{&r, {}}});
    it->second.keys.push_back(r.key);
  }
  for (const auto& [group, g] : unavailable) {
    if (g.keys.size() < 2) continue;
    const Result& r = *g.first;
    out += fmt::format("{} {} checks [unavailable] on {}: {}\n", colorize_status(r.status, "●", style),
                       g.keys.size(), r.device, r.error->cause);
    out += fmt::format("    checks:  {}\n", list_keys(g.keys, 6));
    out += fmt::format("    e.g.:    {}\n", r.error->message);
    if (!r.error->fix.empty()) out += fmt::format("    fix:     {}\n", r.error->fix);
    if (!r.error->reference.empty()) out += fmt::format("    see:     {}\n", r.error->reference);
  }
  auto grouped = [&](const Result& r) {
    const std::string group = group_of(r);
    const auto it = group.empty() ? unavailable.end() : find_group(group);
    return it != unavailable.end() && it->second.keys.size() >= 2;
  };
  for (const auto& r : results) {
    const bool fallback = r.profile && r.profile->where == Where::cpu_fallback;
    const bool problem = (r.status != Status::ok && r.status != Status::skipped) || fallback;
    if (!problem && r.warnings.empty()) continue;
    if (grouped(r)) continue;
    const std::string message = r.reason.empty() && r.error ? r.error->message : r.reason;
    out += fmt::format("{} {} [{}] on {}{}\n", colorize_status(r.status, "●", style), bold(r.key, style),
                       fallback && r.status == Status::ok ? "cpu_fallback" : to_string(r.status), r.device,
                       message.empty() ? "" : ": " + message);
    if (r.error) {
      if (!r.reason.empty() && r.reason != r.error->message)
        out += fmt::format("    message: {}\n", r.error->message);
      if (!r.error->cause.empty()) out += fmt::format("    cause:   {}\n", r.error->cause);
      if (!r.error->fix.empty()) out += fmt::format("    fix:     {}\n", r.error->fix);
      if (!r.error->reference.empty()) out += fmt::format("    see:     {}\n", r.error->reference);
      if (r.evidence.contains("stderr_tail")) {
        out += "    stderr (last lines):\n";
        std::string tail = r.evidence["stderr_tail"].get<std::string>();
        std::size_t start = 0;
        while (start < tail.size()) {
          auto nl = tail.find('\n', start);
          if (nl == std::string::npos) nl = tail.size();
          out +=
              "      " +
              fit(tail.substr(start, nl - start), static_cast<std::size_t>(std::max(20, style.width - 6))) +
              "\n";
          start = nl + 1;
        }
      }
    }
    if (fallback) out += fmt::format("    ran on the CPU: {}\n", r.profile->detail);
    for (const auto& w : r.warnings) out += fmt::format("    warning: {}\n", w);
  }
  return wrap_lines(out, style.width);
}

std::string render_check_problems_brief(const std::vector<Result>& results, const ConsoleStyle& style) {
  std::string out;
  struct Group {
    std::vector<std::string> keys;
  };
  std::vector<std::pair<std::string, Group>> unavailable;  // by cause, first-seen order
  for (const auto& r : results) {
    const bool fallback = r.profile && r.profile->where == Where::cpu_fallback;
    const std::string message = r.reason.empty() && r.error ? r.error->message : r.reason;
    if (r.status == Status::unavailable) {
      std::string cause = r.error && !r.error->cause.empty() ? r.error->cause : message;
      auto it = std::find_if(unavailable.begin(), unavailable.end(),
                             [&](const auto& g) { return g.first == cause; });
      if (it == unavailable.end()) it = unavailable.insert(unavailable.end(), {cause, Group{}});
      it->second.keys.push_back(r.key);
      continue;
    }
    if ((r.status == Status::ok || r.status == Status::skipped) && !fallback) continue;
    out += fmt::format(
        "{} {} [{}]: {}\n", colorize_status(r.status, "●", style), r.key,
        fallback && r.status == Status::ok ? "cpu_fallback" : to_string(r.status),
        fit(fallback && r.status == Status::ok ? r.profile->detail : message,
            static_cast<std::size_t>(std::max(30, style.width - 12 - static_cast<int>(r.key.size())))));
  }
  for (const auto& [cause, g] : unavailable) {
    out += fmt::format("{} {} unavailable: {} ({})\n", colorize_status(Status::unavailable, "●", style),
                       g.keys.size(), cause, list_keys(g.keys, 3));
  }
  return wrap_lines(out, style.width);
}

}  // namespace accel
