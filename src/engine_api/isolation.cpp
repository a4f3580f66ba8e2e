#include "engine_api/isolation.hpp"

#include <chrono>
#include <optional>

#include <fmt/format.h>

#include "engine_api/worker_protocol.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

namespace {

/// The last few non-empty lines of a worker's stderr, without the frames of
/// a C++ backtrace: torch prints "frame #N: ..." lines after the message, and
/// the last 12 of them hid the message itself (a bad PYTORCH_CUDA_ALLOC_CONF
/// crashed every worker with only frames to show, H200 2026-12-01).
std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(start, nl - start);
    const bool frame = line.rfind("frame #", 0) == 0 || line.rfind("Exception raised from ", 0) == 0;
    if (nl > start && !frame) lines.push_back(line);
    start = nl + 1;
  }
  const std::size_t from = lines.size() > max_lines ? lines.size() - max_lines : 0;
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) out += lines[i] + "\n";
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace

Result failed_result(const ItemInfo& item, const std::string& device, Status status,
                     const std::string& headline, const std::string& stderr_tail, const KnowledgeBase* kb,
                     const MachineContext& machine) {
  Result r;
  r.key = item.key;
  r.kind = item.kind;
  r.name = item.name;
  r.category = item.category;
  r.dtype = item.dtype;
  r.shape = item.shape;
  r.device = device;
  r.status = status;
  r.reason = headline;
  ErrorInfo err;
  err.message = headline;
  const std::string tail = tail_lines(stderr_tail, 12);
  if (!tail.empty()) r.evidence["stderr_tail"] = tail;
  if (kb && !stderr_tail.empty()) {
    if (auto d = kb->classify(stderr_tail, machine)) {
      err.cause_id = d->id;
      err.cause = d->cause;
      err.fix = d->fix;
      err.reference = d->reference;
    }
  }
  r.error = err;
  return r;
}

namespace {
std::vector<std::string>& configured_worker_command() {
  static std::vector<std::string> argv;
  return argv;
}
}  // namespace

std::vector<std::string> worker_command() {
  if (!configured_worker_command().empty()) return configured_worker_command();
  const std::string exe = platform::self_executable_path();
  if (exe.empty()) return {};
  return {exe, "__worker"};
}

void set_worker_command(std::vector<std::string> argv) { configured_worker_command() = std::move(argv); }

std::vector<Result> run_isolated(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                                 const RunCallbacks& cb) {
  using namespace std::chrono;
  const KnowledgeBase* kb = options.kb;
  const std::vector<std::string> argv =
      options.worker_command.empty() ? worker_command() : options.worker_command;
  if (argv.empty()) throw platform::SubprocessError("cannot find this program's own path to start a worker");
  std::vector<Result> results;
  std::size_t next = 0;  // first item without a result
  int start_failures = 0;
  const auto item_limit = milliseconds(static_cast<long long>(options.item_timeout_s * 1000));
  const auto startup_limit = std::max(item_limit, milliseconds(120000));

  auto record = [&](Result r) {
    if (cb.on_result) cb.on_result(r);
    results.push_back(std::move(r));
    ++next;
  };
  auto fail_rest = [&](Status status, const std::string& headline, const std::string& tail) {
    while (next < items.size()) {
      record(failed_result(items[next], options.device, status, headline, tail, kb, options.machine));
    }
  };

  // Bound the respawns: a worker that keeps dying between items must not
  // loop forever.
  std::size_t spawns = 0;
  std::size_t workers = 0;  // started so far, hand-overs included
  const std::size_t max_spawns = items.size() + 3;
  while (next < items.size()) {
    if (++spawns > max_spawns) {
      fail_rest(Status::skipped, "not run: the worker kept dying between items", "");
      break;
    }
    json job = options.job;
    job["suite"] = options.suite;
    job["retire_anon_bytes"] = options.retire_anon_bytes;
    job["retire_min_items"] = options.retire_min_items;
    job["keys"] = json::array();
    for (std::size_t i = next; i < items.size(); ++i) job["keys"].push_back(items[i].key);
    ++workers;
    platform::Subprocess worker = platform::Subprocess::spawn(argv);
    worker.write_stdin_and_close(job.dump() + "\n");

    std::optional<std::size_t> current;  // index of the running item
    bool done = false;
    bool retired = false;  // the worker handed the remaining items on
    while (!done) {
      std::string line;
      const auto rr = worker.read_line(line, current ? item_limit : startup_limit);
      if (rr == platform::Subprocess::ReadResult::line) {
        WorkerEvent ev = parse_worker_event(line);
        using K = WorkerEvent::Kind;
        if (ev.kind == K::ready) {
          start_failures = 0;
        } else if (ev.kind == K::start && next < items.size()) {
          current = next;
          for (std::size_t i = next; i < items.size(); ++i) {
            if (items[i].key == ev.key) {
              current = i;
              break;
            }
          }
          if (cb.on_start) cb.on_start(items[*current], *current, items.size());
        } else if (ev.kind == K::result && next < items.size()) {
          Result r = std::move(*ev.result);
          if (workers > 1) r.evidence["worker"] = workers;  // ran in a replacement worker
          record(std::move(r));
          current.reset();
        } else if (ev.kind == K::unreadable_result && next < items.size()) {
          record(failed_result(items[next], options.device, Status::error,
                               fmt::format("the worker sent an unreadable result: {}", ev.error), "", kb,
                               options.machine));
          current.reset();
        } else if (ev.kind == K::retire) {
          retired = true;
        } else if (ev.kind == K::done) {
          done = true;
        }
        continue;
      }
      if (rr == platform::Subprocess::ReadResult::timeout) {
        worker.kill();
        if (current) {
          record(failed_result(
              items[*current], options.device, Status::hung,
              fmt::format("no result within {:.0f} s; the worker was killed", options.item_timeout_s),
              worker.stderr_tail(), kb, options.machine));
        } else if (++start_failures >= 2) {
          fail_rest(Status::hung, "the worker did not start within its time limit, twice",
                    worker.stderr_tail());
        }
        break;
      }
      // End of output: the worker is gone.
      const auto exit = worker.wait(milliseconds(5000));
      if (current) {
        record(failed_result(items[*current], options.device, Status::crashed,
                             fmt::format("the worker process died ({})", exit.describe()),
                             worker.stderr_tail(), kb, options.machine));
      } else if (!done && next < items.size() && ++start_failures >= 2) {
        fail_rest(
            Status::crashed,
            fmt::format("the worker died ({}) before running an item, twice: the device or torch fails to "
                        "initialise",
                        exit.describe()),
            worker.stderr_tail());
      }
      break;
    }
    if (done && retired) {
      worker.wait(milliseconds(10000));
      --spawns;  // a planned hand-over, not a death: the next worker takes the rest
      continue;
    }
    if (done) {
      worker.wait(milliseconds(10000));
      // A worker that finishes without a result for every key skipped them (should not happen).
      fail_rest(Status::skipped, "the worker finished without running this item", worker.stderr_tail());
    }
  }
  return results;
}

Result start_result(const std::string& key, ResultKind kind, const ItemInfo* info,
                    const std::string& missing_reason) {
  Result r;
  r.key = key;
  r.kind = kind;
  if (!info) {
    r.status = Status::skipped;
    r.reason = missing_reason;
    return r;
  }
  r.name = info->name;
  r.category = info->category;
  r.dtype = info->dtype;
  r.shape = info->shape;
  return r;
}

}  // namespace accel::engine

// JSON (de)serialisers declared in engine_api/isolation.hpp.
namespace accel::engine {
ACCEL_JSON_DEFINE(ItemInfo, key, kind, name, category, dtype, shape)
}  // namespace accel::engine
