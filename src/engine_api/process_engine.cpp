#include "engine_api/process_engine.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "engine_api/python_engine.hpp"
#include "platform/interrupt.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

namespace {

using std::chrono::milliseconds;

milliseconds to_ms(double seconds) { return milliseconds(static_cast<long long>(seconds * 1000)); }

/// The last `n` lines of `text`, for an error message.
std::string last_lines(const std::string& text, std::size_t n) {
  std::size_t pos = text.size();
  while (pos > 0 && text[pos - 1] == '\n') --pos;
  std::size_t start = pos;
  for (std::size_t lines = 0; start > 0 && lines < n; --start) {
    if (text[start - 1] == '\n' && ++lines == n) break;
  }
  return text.substr(start, pos - start);
}

/// A running `<engine> serve` that has sent its hello.
class Session {
 public:
  Session(const std::vector<std::string>& command, const json& request) {
    const std::string path = command.empty() ? std::string() : command.front();
    std::vector<std::string> argv = command;
    argv.push_back("serve");
    try {
      proc_.emplace(platform::Subprocess::spawn(argv, 64 * 1024, platform::ChildStderr::tee));
    } catch (const platform::SubprocessError& e) {
      throw EngineError(fmt::format("cannot start the engine {}: {}", path, e.what()));
    }
    proc_->write_stdin_and_close(request.dump() + "\n");
    const json hello = next(to_ms(120), "its greeting");
    if (parse_event_name(hello.value("event", "")) != EngineEvent::hello) {
      throw EngineError(
          fmt::format("the engine {} did not greet first (it sent '{}'): is it an accel-doctor "
                      "engine?",
                      path, hello.value("event", "")));
    }
    const int v = hello.value("protocol", 0);
    if (v != kEngineProtocolVersion) {
      throw EngineError(fmt::format(
          "the engine {} speaks protocol {}, this accel-doctor speaks {}: build both from the same source "
          "(make doctor)",
          path, v, kEngineProtocolVersion));
    }
  }

  /// The next protocol object (lines that are not JSON objects are skipped).
  /// Throws EngineError on silence past `timeout` (the engine is killed) or
  /// when the engine ends; "error" events are returned like any other.
  json next(milliseconds timeout, const char* waiting_for) {
    std::optional<json> j = try_next(timeout);
    if (j) return *j;
    if (interrupted_) throw EngineError("interrupted");
    if (timed_out_) {
      throw EngineError(fmt::format("the engine sent nothing for {} s while we waited for {}; it was stopped",
                                    timeout.count() / 1000, waiting_for));
    }
    throw EngineError(fmt::format("the engine ended ({}) before {}{}", exit_.describe(), waiting_for,
                                  tail().empty() ? "" : ": " + last_lines(tail(), 3)));
  }

  /// As next(), but nullopt on silence, end or an interrupt (then
  /// timed_out(), interrupted() or exit() say which). Waits in short slices
  /// so Ctrl-C stops the engine within a fraction of a second.
  std::optional<json> try_next(milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (platform::interrupted()) {
        interrupted_ = true;
        exit_ = proc_->kill();
        return std::nullopt;
      }
      const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
      std::string line;
      const auto rr = proc_->read_line(line, std::clamp(left, milliseconds(1), milliseconds(250)));
      if (rr == platform::Subprocess::ReadResult::timeout) {
        if (left > milliseconds(250)) continue;  // a slice, not the deadline
        timed_out_ = true;
        exit_ = proc_->kill();
        return std::nullopt;
      }
      if (rr == platform::Subprocess::ReadResult::eof) {
        exit_ = proc_->wait(milliseconds(5000));
        return std::nullopt;
      }
      json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_object() && j.contains("event")) return j;
    }
  }

  void finish() { proc_->wait(milliseconds(10000)); }
  bool timed_out() const { return timed_out_; }
  bool interrupted() const { return interrupted_; }
  const platform::ExitInfo& exit() const { return exit_; }
  const std::string& tail() const { return proc_->stderr_tail(); }

 private:
  std::optional<platform::Subprocess> proc_;
  bool timed_out_ = false;
  bool interrupted_ = false;
  platform::ExitInfo exit_;
};

[[noreturn]] void throw_engine_error(const json& j) {
  throw EngineError(j.value("message", std::string("the engine refused the request")));
}

/// The longest silence a suite run may have: a worker start (twice, if the
/// first fails) and one item (engine_api/isolation.cpp), plus a margin.
double run_silence_s(double item_timeout_s) {
  return 2 * std::max(item_timeout_s, 120.0) + item_timeout_s + 60;
}

}  // namespace

std::string torch_engine_file_name() {
#if defined(_WIN32)
  return "accel-doctor-torch.exe";
#else
  return "accel-doctor-torch";
#endif
}

EngineSearch find_engine(const std::string& explicit_path, const std::string& file_name) {
  namespace fs = std::filesystem;
  EngineSearch s;
  std::error_code ec;
  if (!explicit_path.empty()) {
    s.looked_at.push_back(explicit_path);
    if (fs::is_regular_file(explicit_path, ec)) {
      s.path = explicit_path;
    } else {
      s.why_not = fmt::format("--engine {}: {}", explicit_path,
                              fs::exists(explicit_path, ec) ? "not a file" : "no such file");
    }
    return s;
  }
  const std::string self = platform::self_executable_path();
  if (self.empty()) {
    s.why_not = "this program cannot find its own path to look beside it";
    return s;
  }
  const fs::path beside = fs::path(self).parent_path() / file_name;
  s.looked_at.push_back(beside.string());
  if (fs::is_regular_file(beside, ec)) {
    s.path = beside.string();
  } else {
    s.why_not = fmt::format("no {} beside accel-doctor", file_name);
  }
  return s;
}

std::string engine_missing_message(const EngineSearch& search) {
  std::string looked;
  for (const auto& p : search.looked_at) looked += "\n  " + p;
  return fmt::format(
      "no torch engine: {}. Looked at:{}\nMeasurements (ops, bench, llm, train) run in the torch engine, "
      "accel-doctor-torch, built beside accel-doctor by `make doctor` (or `cmake --build build --target "
      "accel-doctor-torch`); or name one with --engine PATH; or use the torch of a Python environment: "
      "`python -m pip install --no-build-isolation .` from an accel-doctor clone, then --python PATH.",
      search.why_not, looked.empty() ? "\n  (nowhere)" : looked);
}

ProcessEngine::ProcessEngine(std::string path, const KnowledgeBase* kb)
    : path_(path), command_{std::move(path)}, kb_(kb) {}

ProcessEngine::ProcessEngine(std::vector<std::string> command, const KnowledgeBase* kb)
    : path_(command.empty() ? std::string() : command.front()), command_(std::move(command)), kb_(kb) {}

EngineSearch find_any_engine(const std::string& explicit_engine, const std::string& explicit_python) {
  if (!explicit_python.empty()) {
    EngineSearch s;
    s.kind = EngineHostKind::python;
    s.looked_at.push_back(explicit_python);
    const PythonProbe probe = probe_python_engine(explicit_python);
    if (probe.usable) {
      s.path = probe.executable;
      s.command = python_engine_command(probe.executable);
    } else {
      s.why_not = fmt::format("--python {}: {}", explicit_python, probe.why_not);
    }
    return s;
  }
  EngineSearch s = find_engine(explicit_engine, torch_engine_file_name());
  if (!s.path.empty()) {
    s.command = {s.path};
    return s;
  }
  if (!explicit_engine.empty()) return s;  // named: no fallback
  s.not_found.push_back(s.why_not);
  for (const char* name : {"python3", "python"}) {
    const PythonProbe probe = probe_python_engine(name);
    s.looked_at.push_back(fmt::format("{} on PATH (accel_doctor package)", name));
    if (probe.usable) {
      s.kind = EngineHostKind::python;
      s.path = probe.executable;
      s.command = python_engine_command(probe.executable);
      s.why_not.clear();
      return s;
    }
    s.not_found.push_back(fmt::format("{}: {}", name, probe.why_not));
  }
  s.why_not.clear();
  for (const auto& line : s.not_found) s.why_not += (s.why_not.empty() ? "" : "; ") + line;
  return s;
}

json ProcessEngine::call(EngineRequest request, const json& options, EngineEvent reply_event,
                         double timeout_s) {
  Session s(command_,
            {{"protocol", kEngineProtocolVersion}, {"request", request_name(request)}, {"options", options}});
  const std::string waiting = fmt::format("its answer to '{}'", request_name(request));
  const json j = s.next(to_ms(timeout_s), waiting.c_str());
  const auto event = parse_event_name(j.value("event", ""));
  if (event == EngineEvent::error) throw_engine_error(j);
  if (event != reply_event) {
    throw EngineError(fmt::format("the engine answered '{}' with '{}', expected '{}'", request_name(request),
                                  j.value("event", ""), event_name(reply_event)));
  }
  s.finish();
  return j;
}

std::vector<Result> ProcessEngine::run(SuiteId suite, const json& options, double event_timeout_s,
                                       const std::string& device, const MachineContext& machine,
                                       const RunCallbacks& cb) {
  if (platform::interrupted()) return {};  // Ctrl-C came before this run: nothing to start
  Session s(command_, {{"protocol", kEngineProtocolVersion},
                       {"request", request_name(EngineRequest::run)},
                       {"suite", suite_name(suite)},
                       {"options", options}});
  std::vector<Result> streamed;
  std::vector<ItemInfo> planned;
  std::optional<ItemInfo> current;
  while (true) {
    const std::optional<json> j = s.try_next(to_ms(event_timeout_s));
    if (!j) break;
    const auto event = parse_event_name(j->value("event", ""));
    if (event == EngineEvent::error) throw_engine_error(*j);
    if (event == EngineEvent::plan) {
      planned = j->value("items", std::vector<ItemInfo>{});
    } else if (event == EngineEvent::start) {
      current = j->value("item", ItemInfo{});
      if (cb.on_start)
        cb.on_start(*current, j->value("index", std::size_t{0}), j->value("total", std::size_t{0}));
    } else if (event == EngineEvent::result) {
      try {
        streamed.push_back(j->at("result").get<Result>());
      } catch (const json::exception&) {
        continue;  // an unreadable result: the final list or the end of the run accounts for it
      }
      if (cb.on_result) cb.on_result(streamed.back());
      current.reset();
    } else if (event == EngineEvent::done) {
      s.finish();
      try {
        return j->at("results").get<std::vector<Result>>();
      } catch (const json::exception&) {
        return streamed;
      }
    }
  }
  // Interrupted (Ctrl-C): what was measured stays; the rest is not run.
  // The engine itself died or fell silent: keep what it sent; the item it
  // was running gets the blame, with the engine's last words explained.
  if (s.interrupted()) {
    if (current) planned.insert(planned.begin(), *current);
  } else if (current) {
    const Status status = s.timed_out() ? Status::hung : Status::crashed;
    const std::string headline =
        s.timed_out() ? fmt::format("the engine sent nothing for {:.0f} s and was stopped", event_timeout_s)
                      : fmt::format("the engine process died ({})", s.exit().describe());
    streamed.push_back(failed_result(*current, device, status, headline, s.tail(), kb_, machine));
    if (cb.on_result) cb.on_result(streamed.back());
  } else if (streamed.empty() && !s.timed_out() && !s.interrupted()) {
    throw EngineError(fmt::format("the engine ended ({}) before running anything{}", s.exit().describe(),
                                  s.tail().empty() ? "" : ": " + last_lines(s.tail(), 3)));
  }
  // The planned items it never reached are in the report too, as not run.
  const std::string ended = s.interrupted() ? std::string("interrupted")
                            : s.timed_out()
                                ? std::string("the engine fell silent and was stopped")
                                : fmt::format("the engine ended ({}) before this item", s.exit().describe());
  for (const auto& item : planned) {
    const bool has =
        std::any_of(streamed.begin(), streamed.end(), [&](const Result& r) { return r.key == item.key; });
    if (has) continue;
    Result r = start_result(item.key, item.kind, &item, "");
    r.device = device;
    r.status = Status::skipped;
    r.reason = "not run: " + ended;
    streamed.push_back(r);
    if (cb.on_result) cb.on_result(streamed.back());
  }
  return streamed;
}

EngineEnvironment ProcessEngine::environment() {
  return call(EngineRequest::environment, json::object(), EngineEvent::environment, 300)
      .at("environment")
      .get<EngineEnvironment>();
}

std::vector<CheckInfo> ProcessEngine::list_checks(const OpsOptions& o) {
  return call(EngineRequest::list_checks, json(o), EngineEvent::checks, 120)
      .at("checks")
      .get<std::vector<CheckInfo>>();
}

std::vector<ItemInfo> ProcessEngine::list_benchmarks(const BenchOptions& o) {
  return call(EngineRequest::list_benchmarks, json(o), EngineEvent::items, 120)
      .at("items")
      .get<std::vector<ItemInfo>>();
}

LlmPlan ProcessEngine::plan_llm(const LlmOptions& o) {
  const json j = call(EngineRequest::plan_llm, json(o), EngineEvent::plan, 120);
  LlmPlan p;
  p.resolved = j.at("resolved").get<LlmOptions>();
  p.items = j.value("items", std::vector<ItemInfo>{});
  p.attention_problem = j.value("attention_problem", "");
  p.sdpa_backend_problem = j.value("sdpa_backend_problem", "");
  return p;
}

TrainPlan ProcessEngine::plan_train(const TrainOptions& o) {
  const json j = call(EngineRequest::plan_train, json(o), EngineEvent::plan, 120);
  TrainPlan p;
  p.resolved = j.at("resolved").get<TrainOptions>();
  p.items = j.value("items", std::vector<ItemInfo>{});
  p.model_descriptions = j.value("model_descriptions", std::vector<std::string>{});
  return p;
}

std::vector<Result> ProcessEngine::run_ops(const OpsOptions& o, const RunCallbacks& cb) {
  return run(SuiteId::ops, json(o), run_silence_s(o.check_timeout_s), o.device, o.machine, cb);
}

std::vector<Result> ProcessEngine::run_bench(const BenchOptions& o, const RunCallbacks& cb) {
  return run(SuiteId::bench, json(o), run_silence_s(o.item_timeout_s), o.device, o.machine, cb);
}

std::vector<Result> ProcessEngine::run_llm(const LlmOptions& o, const RunCallbacks& cb) {
  return run(SuiteId::llm, json(o), run_silence_s(o.item_timeout_s), o.device, o.machine, cb);
}

std::vector<Result> ProcessEngine::run_train(const TrainOptions& o, const RunCallbacks& cb) {
  return run(SuiteId::train, json(o), run_silence_s(o.item_timeout_s), o.device, o.machine, cb);
}

std::vector<ItemInfo> ProcessEngine::list_multi(const MultiOptions& o) {
  return call(EngineRequest::list_multi, json(o), EngineEvent::items, 120)
      .at("items")
      .get<std::vector<ItemInfo>>();
}

std::vector<Result> ProcessEngine::run_multi(const MultiOptions& o, const RunCallbacks& cb) {
  const std::string device = o.devices.empty() ? std::string() : o.devices.front();
  return run(SuiteId::multi, json(o), run_silence_s(o.item_timeout_s), device, o.machine, cb);
}

}  // namespace accel::engine
