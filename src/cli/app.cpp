#include "cli/app.hpp"

#include <unistd.h>
#include <sys/ioctl.h>

#include <cstdlib>
#include <iostream>

#include "core/ceilings.hpp"
#include "core/device_select.hpp"
#include "core/report/json_report.hpp"
#include "engine/environment.hpp"

namespace accel::cli {

namespace {
int terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  if (const char* cols = std::getenv("COLUMNS")) {
    const int n = std::atoi(cols);
    if (n > 20) return n;
  }
  return 120;
}
}  // namespace

App::App(GlobalOptions options, std::vector<std::string> argv)
    : options_(std::move(options)), argv_(std::move(argv)) {}

const KnowledgeBase& App::kb() {
  if (!kb_) {
    try {
      kb_ = KnowledgeBase::load_default();
    } catch (const KbError& e) {
      throw UsageError(std::string("set-up error: ") + e.what());
    }
  }
  return *kb_;
}

ConsoleStyle App::style_stdout() const {
  ConsoleStyle s;
  s.width = terminal_width();
  const char* no_color = std::getenv("NO_COLOR");
  s.color = isatty(STDOUT_FILENO) && !options_.no_color && !(no_color && *no_color);
  return s;
}

bool App::progress_enabled() const { return !options_.quiet && isatty(STDERR_FILENO); }

Environment& App::environment() {
  if (!env_) {
    status("collecting the environment…");
    env_ = engine::collect_environment(kb());
    clear_status();
  }
  return *env_;
}

const DeviceChoice& App::device_choice() {
  Environment& env = environment();
  if (!env.selection) {
    try {
      env.selection = select_device(options_.device, env.devices);
    } catch (const DeviceSelectionError& e) {
      throw UsageError(e.what());
    }
  }
  return *env.selection;
}

Report& App::report(const std::string& command) {
  if (!report_) {
    report_.emplace();
    report_->context.tool = tool_info();
    report_->context.started_at = now_rfc3339();
    report_->context.argv = argv_;
    report_->context.command = command;
  }
  return *report_;
}

void App::write_json_if_requested() {
  if (options_.json_path.empty() || !report_) return;
  report_->context.finished_at = now_rfc3339();
  if (env_) report_->context.environment = *env_;
  write_report_file(*report_, options_.json_path);
}

void App::apply_rooflines(std::vector<Result>& results, const std::vector<Result>& measured) {
  if (!peaks_loaded_) {
    peaks_loaded_ = true;
    try {
      if (const std::string dir = find_kb_dir(); !dir.empty()) peaks_ = GpuPeakTable::load(dir);
    } catch (const std::exception& e) {
      std::cerr << "accel-doctor: datasheet peaks unavailable: " << e.what() << "\n";
    }
  }
  const auto ceilings = build_ceilings(environment(), results, measured, peaks_ ? &*peaks_ : nullptr);
  annotate_rooflines(results, ceilings);
}

void App::out(const std::string& text) const {
  if (!options_.quiet) std::cout << text << std::flush;
}

void App::status(const std::string& text) const {
  if (!progress_enabled()) return;
  std::cerr << "\r\033[K" << text << std::flush;
}

void App::clear_status() const {
  if (!progress_enabled()) return;
  std::cerr << "\r\033[K" << std::flush;
}

}  // namespace accel::cli
