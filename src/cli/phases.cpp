#include "cli/phases.hpp"

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
