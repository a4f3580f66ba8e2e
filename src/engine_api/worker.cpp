// The worker side of isolation: engine_api/worker.hpp.
#include "engine_api/worker.hpp"

#include <cstdio>
#include <iostream>
#include <iterator>

#include "platform/probes.hpp"
#include "platform/process.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

std::vector<Result> run_suite(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                              bool isolate, const RunCallbacks& cb, const SuiteFactory& make_suite) {
  if (items.empty()) return {};
  if (isolate) {
    try {
      return run_isolated(items, options, cb);
    } catch (const platform::SubprocessError& e) {
      std::cerr << "accel-doctor: cannot run a worker process (" << e.what()
                << "); running in this process\n";
    }
  }
  json job = options.job;
  job["suite"] = options.suite;
  std::vector<Result> results;
  std::unique_ptr<WorkerSuite> suite;
  try {
    suite = make_suite(options.suite, job);
    suite->prepare();
  } catch (const std::exception& e) {
    for (const auto& item : items) {
      results.push_back(failed_result(item, options.device, Status::error,
                                      std::string("the device could not be prepared: ") + e.what(), "",
                                      options.kb, options.machine));
      if (cb.on_result) cb.on_result(results.back());
    }
    return results;
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (cb.on_start) cb.on_start(items[i], i, items.size());
    results.push_back(suite->run(items[i].key));
    if (cb.on_result) cb.on_result(results.back());
  }
  return results;
}

int worker_main(const SuiteFactory& make_suite) {
  // Keep the protocol channel clean: stdout becomes a private descriptor and
  // anything else printing to fd 1 (torch, vendor libraries) goes to stderr.
  std::FILE* proto = platform::take_stdout_for_protocol();
  if (!proto) return 4;
  auto send = [&](const json& j) {
    const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(s.data(), 1, s.size(), proto);
    std::fflush(proto);
  };

  const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  json job;
  try {
    job = json::parse(input);
  } catch (const json::exception& e) {
    std::cerr << "accel-doctor worker: bad job: " << e.what() << "\n";
    return 2;
  }
  std::unique_ptr<WorkerSuite> suite;
  try {
    suite = make_suite(job.value("suite", ""), job);
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor worker: " << e.what() << "\n";
    return 2;
  }
  // Initialise the device before saying ready, so an init crash is not
  // blamed on the first item.
  json info;
  try {
    info = suite->prepare();
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor worker: the device could not be prepared: " << e.what() << "\n";
    return 3;
  }
  send({{"event", "ready"}, {"info", info}});
  const auto keys = job.value("keys", std::vector<std::string>{});
  const double retire_bytes = job.value("retire_anon_bytes", 0.0);
  // At least this many items per worker, so a host whose start-up already
  // passes the budget does not restart torch for every item.
  const std::size_t retire_min_items = job.value("retire_min_items", std::size_t{8});
  for (std::size_t i = 0; i < keys.size(); ++i) {
    send({{"event", "start"}, {"key", keys[i]}});
    send({{"event", "result"}, {"result", suite->run(keys[i])}});
    // Past its memory budget, the worker hands the rest to a fresh one.
    if (retire_bytes > 0 && i + 1 < keys.size() && i + 1 >= retire_min_items) {
      const auto anon = platform::self_anonymous_rss_bytes();
      if (anon && static_cast<double>(*anon) > retire_bytes) {
        send({{"event", "retire"}, {"anon_rss_bytes", *anon}});
        break;
      }
    }
  }
  send({{"event", "done"}});
  std::fclose(proto);
  return 0;
}

}  // namespace accel::engine
