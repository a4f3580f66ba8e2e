// The `ops` run: catalog expansion, in-process runs, and the worker process
// protocol (one JSON object per line) that isolates crashes and hangs.
#include "engine/ops.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "engine/checks/run_check.hpp"
#include "engine/profiler.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

namespace {

struct Expanded {
  const CheckDef* def;
  at::ScalarType dtype;
  CheckInfo info;
};

const char* verify_name(Verify v) {
  switch (v) {
    case Verify::reference:
      return "reference";
    case Verify::exact:
      return "exact";
    case Verify::statistical:
      return "statistical";
    case Verify::none:
      return "none";
  }
  return "none";
}

std::vector<Expanded> expand(const OpsOptions& options) {
  std::vector<Expanded> out;
  for (const auto& def : catalog(options.include_test_checks)) {
    for (const auto dtype : def.dtypes) {
      CheckInfo info;
      info.key = check_key(def, dtype);
      info.name = def.name;
      info.category = def.category;
      info.dtype = dtype_name(dtype);
      info.shape = def.shape;
      info.flops = def.flops;
      info.flops_formula = def.flops_formula;
      info.bytes_formula = def.bytes_formula;
      info.verify = verify_name(def.verify);
      if (filters_match(options.filters, info)) out.push_back({&def, dtype, std::move(info)});
    }
  }
  return out;
}

/// The kernel-name table, when the kb has one (a missing table only loses names).
const ImplementationTable* implementations() {
  static const std::optional<ImplementationTable> table = []() -> std::optional<ImplementationTable> {
    try {
      const std::string dir = find_kb_dir();
      if (dir.empty()) return std::nullopt;
      return ImplementationTable::load(dir);
    } catch (const std::exception& e) {
      std::cerr << "accel-doctor: implementation names unavailable: " << e.what() << "\n";
      return std::nullopt;
    }
  }();
  return table ? &*table : nullptr;
}

std::string trace_parts_dir(const OpsOptions& options) {
  return options.trace_path.empty() ? std::string() : options.trace_path + ".parts";
}

/// Merges the per-check traces the run left in the parts folder into --trace.
void merge_traces(const OpsOptions& options) {
  namespace fs = std::filesystem;
  const std::string dir = trace_parts_dir(options);
  if (dir.empty()) return;
  std::vector<std::pair<std::string, std::string>> parts;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(dir, ec)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f);
    std::ostringstream ss;
    ss << in.rdbuf();
    parts.emplace_back(f.stem().string(), ss.str());
  }
  fs::remove_all(dir, ec);
  if (parts.empty()) return;  // no trace from this build (no Kineto): the caller says so
  std::ofstream(options.trace_path) << merge_chrome_traces(parts);
}

RunContext make_context(const OpsOptions& options, const KnowledgeBase* kb) {
  RunContext ctx;
  ctx.profile = options.profile;
  ctx.implementations = implementations();
  ctx.trace_dir = trace_parts_dir(options);
  ctx.device = parse_device(options.device);
  ctx.quick = options.quick;
  ctx.timer = TimerOptions{};
  ctx.timer.budget_ms = 150;
  ctx.timer.max_samples = 40;
  ctx.kb = kb;
  ctx.machine = options.machine;
  return ctx;
}

std::optional<KnowledgeBase> try_load_kb() {
  try {
    return KnowledgeBase::load_default();
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: error causes unavailable: " << e.what() << "\n";
    return std::nullopt;
  }
}

/// The last few non-empty lines of a worker's stderr.
std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    if (nl > start) lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  const std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) out += lines[i] + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

Result failed_result(const CheckInfo& info, const std::string& device, Status status,
                     const std::string& headline, const std::string& stderr_tail,
                     const KnowledgeBase* kb, const MachineContext& machine) {
  Result r;
  r.key = info.key;
  r.kind = "check";
  r.name = info.name;
  r.category = info.category;
  r.dtype = info.dtype;
  r.shape = info.shape;
  r.device = device;
  r.status = status;
  r.reason = headline;
  ErrorInfo err;
  err.message = headline;
  const std::string tail = tail_lines(stderr_tail, 12);
  if (!tail.empty()) r.evidence["stderr_tail"] = tail;
  if (kb && !tail.empty()) {
    if (auto d = kb->classify(tail, machine)) {
      err.cause_id = d->id;
      err.cause = d->cause;
      err.fix = d->fix;
      err.reference = d->reference;
    }
  }
  r.error = err;
  return r;
}

json job_json(const OpsOptions& options, const std::vector<std::string>& keys) {
  return json{{"device", options.device},
              {"quick", options.quick},
              {"profile", options.profile},
              {"trace_path", options.trace_path},
              {"include_test_checks", options.include_test_checks},
              {"keys", keys},
              {"machine",
               {{"os", options.machine.os},
                {"arch", options.machine.arch},
                {"backend", options.machine.backend},
                {"gpu", options.machine.gpu},
                {"versions", options.machine.versions}}}};
}

std::vector<Result> run_in_process(const OpsOptions& options, const std::vector<Expanded>& checks,
                                   const OpsCallbacks& cb) {
  auto kb = try_load_kb();
  RunContext ctx = make_context(options, kb ? &*kb : nullptr);
  if (ctx.profile && !ctx.device.is_cpu()) ctx.profiler_blind = profiler_self_check(ctx.device);
  std::vector<Result> results;
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (cb.on_start) cb.on_start(checks[i].info, i, checks.size());
    results.push_back(run_check(*checks[i].def, checks[i].dtype, ctx));
    if (cb.on_result) cb.on_result(results.back());
  }
  return results;
}

std::vector<Result> run_isolated(const OpsOptions& options, const std::vector<Expanded>& checks,
                                 const OpsCallbacks& cb) {
  using namespace std::chrono;
  auto kb = try_load_kb();
  const KnowledgeBase* kbp = kb ? &*kb : nullptr;
  const std::string exe = platform::self_executable_path();
  std::vector<Result> results;
  std::size_t next = 0;  // first check without a result
  int start_failures = 0;
  const auto check_limit = milliseconds(static_cast<long long>(options.check_timeout_s * 1000));
  const auto startup_limit = std::max(check_limit, milliseconds(120000));

  auto record = [&](Result r) {
    if (cb.on_result) cb.on_result(r);
    results.push_back(std::move(r));
    ++next;
  };

  // Bound the respawns: a worker that keeps dying between checks must not
  // loop forever.
  std::size_t spawns = 0;
  const std::size_t max_spawns = checks.size() + 3;
  while (next < checks.size()) {
    if (++spawns > max_spawns) {
      while (next < checks.size()) {
        record(failed_result(checks[next].info, options.device, Status::skipped,
                             "not run: the worker kept dying between checks", "", kbp,
                             options.machine));
      }
      break;
    }
    std::vector<std::string> keys;
    for (std::size_t i = next; i < checks.size(); ++i) keys.push_back(checks[i].info.key);
    platform::Subprocess worker = platform::Subprocess::spawn({exe, "__worker"});
    worker.write_stdin_and_close(job_json(options, keys).dump() + "\n");

    bool ready = false;
    std::optional<std::size_t> current;  // index of the running check
    bool done = false;
    while (!done) {
      std::string line;
      const auto limit = current ? check_limit : startup_limit;
      const auto rr = worker.read_line(line, limit);
      if (rr == platform::Subprocess::ReadResult::line) {
        json msg;
        try {
          msg = json::parse(line);
        } catch (const json::exception&) {
          continue;  // not protocol (should not happen: the worker guards stdout)
        }
        const std::string event = msg.value("event", "");
        if (event == "ready") {
          ready = true;
          start_failures = 0;
        } else if (event == "start") {
          const std::string key = msg.value("key", "");
          current = next;
          if (checks[next].info.key != key) {
            // Out of step: trust the worker's key.
            for (std::size_t i = next; i < checks.size(); ++i) {
              if (checks[i].info.key == key) current = i;
            }
          }
          if (cb.on_start) cb.on_start(checks[*current].info, *current, checks.size());
        } else if (event == "result") {
          try {
            record(msg.at("result").get<Result>());
          } catch (const std::exception& e) {
            record(failed_result(checks[next].info, options.device, Status::error,
                                 fmt::format("worker sent an unreadable result: {}", e.what()), "",
                                 kbp, options.machine));
          }
          current.reset();
        } else if (event == "done") {
          done = true;
        }
        continue;
      }
      if (rr == platform::Subprocess::ReadResult::timeout) {
        worker.kill();
        if (current) {
          record(failed_result(checks[*current].info, options.device, Status::hung,
                               fmt::format("no result within {:.0f} s; the worker was killed",
                                           options.check_timeout_s),
                               worker.stderr_tail(), kbp, options.machine));
        } else {
          ++start_failures;
          if (start_failures >= 2 || ready) {
            while (next < checks.size()) {
              record(failed_result(checks[next].info, options.device, Status::hung,
                                   "the worker did not start within its time limit",
                                   worker.stderr_tail(), kbp, options.machine));
            }
          }
        }
        break;
      }
      // EOF: the worker is gone.
      const auto exit = worker.wait(milliseconds(5000));
      if (current) {
        record(failed_result(checks[*current].info, options.device, Status::crashed,
                             fmt::format("the worker process died ({})", exit.describe()),
                             worker.stderr_tail(), kbp, options.machine));
      } else if (!done && next < checks.size()) {
        ++start_failures;
        if (start_failures >= 2) {
          const std::string headline =
              fmt::format("the worker died ({}) before running a check, twice: the device or "
                          "torch fails to initialise",
                          exit.describe());
          while (next < checks.size()) {
            record(failed_result(checks[next].info, options.device, Status::crashed, headline,
                                 worker.stderr_tail(), kbp, options.machine));
          }
        }
      }
      break;
    }
    if (done) {
      worker.wait(milliseconds(10000));
      // A worker that says done without results for every key is treated as
      // having skipped them (should not happen).
      while (next < checks.size()) {
        record(failed_result(checks[next].info, options.device, Status::skipped,
                             "the worker finished without running this check", worker.stderr_tail(),
                             kbp, options.machine));
      }
    }
  }
  return results;
}

}  // namespace

bool filters_match(const std::vector<std::string>& filters, const CheckInfo& check) {
  if (filters.empty()) return true;
  for (const auto& f : filters) {
    if (f.empty()) continue;
    if (f == check.category || f == check.name || f == check.dtype || f == check.key) return true;
    if (check.key.find(f) != std::string::npos) return true;
  }
  return false;
}

std::vector<CheckInfo> list_checks(const OpsOptions& options) {
  std::vector<CheckInfo> out;
  for (auto& e : expand(options)) out.push_back(std::move(e.info));
  return out;
}

std::vector<Result> run_ops(const OpsOptions& options, const OpsCallbacks& callbacks) {
  const auto checks = expand(options);
  if (checks.empty()) return {};
  if (const std::string dir = trace_parts_dir(options); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }
  std::vector<Result> results;
  if (!options.isolate) {
    results = run_in_process(options, checks, callbacks);
  } else {
    try {
      results = run_isolated(options, checks, callbacks);
    } catch (const platform::SubprocessError& e) {
      std::cerr << "accel-doctor: cannot isolate checks (" << e.what() << "); running in-process\n";
      results = run_in_process(options, checks, callbacks);
    }
  }
  merge_traces(options);
  return results;
}

int worker_main() {
  // Keep the protocol channel clean: stdout becomes a private descriptor and
  // anything else printing to fd 1 (torch, vendor libraries) goes to stderr.
  const int proto_fd = dup(STDOUT_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  FILE* proto = fdopen(proto_fd, "w");
  if (!proto) return 4;
  auto send = [&](const json& j) {
    const std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::fwrite(s.data(), 1, s.size(), proto);
    std::fflush(proto);
  };

  std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  json job;
  try {
    job = json::parse(input);
  } catch (const json::exception& e) {
    std::cerr << "accel-doctor worker: bad job: " << e.what() << "\n";
    return 2;
  }
  OpsOptions options;
  options.device = job.value("device", "cpu");
  options.quick = job.value("quick", false);
  options.include_test_checks = job.value("include_test_checks", false);
  options.profile = job.value("profile", true);
  options.trace_path = job.value("trace_path", "");
  const auto& m = job["machine"];
  if (m.is_object()) {
    options.machine = {m.value("os", ""), m.value("arch", ""), m.value("backend", ""),
                       m.value("gpu", ""), m.value("versions", "")};
  }
  const auto keys = job.value("keys", std::vector<std::string>{});

  std::map<std::string, const Expanded*> by_key;
  OpsOptions all = options;
  all.filters.clear();
  const auto expanded = expand(all);
  for (const auto& e : expanded) by_key[e.info.key] = &e;

  auto kb = try_load_kb();
  RunContext ctx = make_context(options, kb ? &*kb : nullptr);
  // Initialise the device before saying ready, so an init crash is not
  // blamed on the first check.
  if (!ctx.device.is_cpu()) {
    (void)at::empty({1}, at::TensorOptions().device(ctx.device));
    synchronize(ctx.device);
    if (ctx.profile) ctx.profiler_blind = profiler_self_check(ctx.device);
  }
  send({{"event", "ready"}, {"profiler_blind", ctx.profiler_blind}});
  for (const auto& key : keys) {
    send({{"event", "start"}, {"key", key}});
    const auto it = by_key.find(key);
    Result r;
    if (it == by_key.end()) {
      r.key = key;
      r.kind = "check";
      r.status = Status::skipped;
      r.reason = "no such check in this build";
    } else {
      r = run_check(*it->second->def, it->second->dtype, ctx);
    }
    send({{"event", "result"}, {"result", r}});
  }
  send({{"event", "done"}});
  std::fclose(proto);
  return 0;
}

}  // namespace accel::engine
