#include "cli/phases.hpp"

#include <fmt/format.h>

#include "core/repeat.hpp"
#include "core/report/console.hpp"

namespace accel::cli {

engine::RunCallbacks progress_callbacks(const App& app) {
  engine::RunCallbacks cb;
  cb.on_start = [&app](const engine::ItemInfo& item, std::size_t i, std::size_t n) {
    app.item_started(item.key, i, n);
  };
  cb.on_result = [&app](const Result& r) { app.item_finished(r); };
  return cb;
}

std::vector<Result> run_repeated(
    App& app, const std::function<std::vector<Result>(const engine::RunCallbacks&)>& once) {
  const int n = std::max(1, app.options().repeat);
  if (n == 1) return once(progress_callbacks(app));
  std::vector<std::vector<Result>> runs;
  for (int i = 0; i < n; ++i) {
    engine::RunCallbacks cb;
    cb.on_start = [&app, i, n](const engine::ItemInfo& item, std::size_t k, std::size_t total) {
      app.item_started(fmt::format("run {}/{}: {}", i + 1, n, item.key), k, total);
    };
    runs.push_back(once(cb));
  }
  return merge_repeated_runs(runs);
}

int finish_command(App& app, Report& report, const std::vector<Result>& results, bool problems_listed) {
  bool failed = false;
  for (const auto& r : results) failed = failed || is_failure(r.status);
  if (failed) {
    app.out("\n" + render_exit_reason(report.context.command, results, problems_listed, app.style_stdout()));
  }
  report.results.insert(report.results.end(), results.begin(), results.end());
  app.write_json_if_requested();
  return failed ? kExitFindings : kExitHealthy;
}

}  // namespace accel::cli
