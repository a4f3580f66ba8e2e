#include "engine_api/isolation.hpp"

#include <algorithm>
#include <chrono>

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
  Result r = start_result(item.key, item.kind, &item, "");
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

namespace {

/// One run of `items` through worker processes: the state the steps share
/// (the results so far, the first item without one, the workers started).
class IsolatedRun {
 public:
  IsolatedRun(const std::vector<ItemInfo>& items, const IsolationOptions& options, const RunCallbacks& cb,
              std::vector<std::string> argv)
      : items_(items),
        options_(options),
        cb_(cb),
        argv_(std::move(argv)),
        item_limit_(static_cast<long long>(options.item_timeout_s * 1000)),
        startup_limit_(std::max(item_limit_, std::chrono::milliseconds(120000))) {}

  std::vector<Result> run() {
    // Bound the respawns: a worker that keeps dying between items must not
    // loop forever.
    std::size_t spawns = 0;
    const std::size_t max_spawns = items_.size() + 3;
    while (next_ < items_.size()) {
      if (++spawns > max_spawns) {
        fail_rest(Status::skipped, "not run: the worker kept dying between items", "");
        break;
      }
      ++workers_;
      platform::Subprocess worker = platform::Subprocess::spawn(argv_);
      worker.write_stdin_and_close(job_for_the_rest().dump() + "\n");
      const Ending end = follow(worker);
      if (end.done && end.retired) {
        worker.wait(std::chrono::milliseconds(10000));
        --spawns;  // a planned hand-over, not a death: the next worker takes the rest
        continue;
      }
      if (end.done) {
        worker.wait(std::chrono::milliseconds(10000));
        // A worker that finishes without a result for every key skipped them (should not happen).
        fail_rest(Status::skipped, "the worker finished without running this item", worker.stderr_tail());
      }
    }
    return std::move(results_);
  }

 private:
  /// No item is running (the index of the running item otherwise).
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  /// How a worker's event stream ended.
  struct Ending {
    bool done = false;     ///< it said `done`
    bool retired = false;  ///< it handed the remaining items on
  };

  void record(Result r) {
    if (cb_.on_result) cb_.on_result(r);
    results_.push_back(std::move(r));
    ++next_;
  }

  Result failed(std::size_t index, Status status, const std::string& headline,
                const std::string& tail) const {
    return failed_result(items_[index], options_.device, status, headline, tail, options_.kb,
                         options_.machine);
  }

  void fail_rest(Status status, const std::string& headline, const std::string& tail) {
    while (next_ < items_.size()) record(failed(next_, status, headline, tail));
  }

  /// The job of a new worker: the suite's options and the keys still to run.
  json job_for_the_rest() const {
    json job = options_.job;
    job["suite"] = options_.suite;
    job["retire_anon_bytes"] = options_.retire_anon_bytes;
    job["retire_min_items"] = options_.retire_min_items;
    job["keys"] = json::array();
    for (std::size_t i = next_; i < items_.size(); ++i) job["keys"].push_back(items_[i].key);
    return job;
  }

  /// Reads the worker's events until it ends, is killed or dies.
  Ending follow(platform::Subprocess& worker) {
    std::size_t current = kNone;  // index of the running item
    Ending end;
    while (!end.done) {
      std::string line;
      const auto rr = worker.read_line(line, current != kNone ? item_limit_ : startup_limit_);
      if (rr == platform::Subprocess::ReadResult::line) {
        on_event(parse_worker_event(line), current, end);
      } else if (rr == platform::Subprocess::ReadResult::timeout) {
        on_timeout(worker, current);
        break;
      } else {
        on_exit(worker, current, end);
        break;
      }
    }
    return end;
  }

  void on_event(WorkerEvent ev, std::size_t& current, Ending& end) {
    using K = WorkerEvent::Kind;
    if (ev.kind == K::ready) {
      start_failures_ = 0;
    } else if (ev.kind == K::start && next_ < items_.size()) {
      current = next_;
      for (std::size_t i = next_; i < items_.size(); ++i) {
        if (items_[i].key == ev.key) {
          current = i;
          break;
        }
      }
      if (cb_.on_start) cb_.on_start(items_[current], current, items_.size());
    } else if (ev.kind == K::result && next_ < items_.size()) {
      Result r = std::move(*ev.result);
      if (workers_ > 1) r.evidence["worker"] = workers_;  // ran in a replacement worker
      record(std::move(r));
      current = kNone;
    } else if (ev.kind == K::unreadable_result && next_ < items_.size()) {
      record(failed(next_, Status::error, fmt::format("the worker sent an unreadable result: {}", ev.error),
                    ""));
      current = kNone;
    } else if (ev.kind == K::retire) {
      end.retired = true;
    } else if (ev.kind == K::done) {
      end.done = true;
    }
  }

  /// No event within the limit: the running item hung; a worker that did
  /// not start, twice, leaves every item hung.
  void on_timeout(platform::Subprocess& worker, std::size_t current) {
    worker.kill();
    if (current != kNone) {
      record(failed(current, Status::hung,
                    fmt::format("no result within {:.0f} s; the worker was killed", options_.item_timeout_s),
                    worker.stderr_tail()));
    } else if (++start_failures_ >= 2) {
      fail_rest(Status::hung, "the worker did not start within its time limit, twice", worker.stderr_tail());
    }
  }

  /// End of output: the worker is gone. The running item crashed; a worker
  /// that died before its first item, twice, leaves every item crashed.
  void on_exit(platform::Subprocess& worker, std::size_t current, const Ending& end) {
    const auto exit = worker.wait(std::chrono::milliseconds(5000));
    if (current != kNone) {
      record(failed(current, Status::crashed, fmt::format("the worker process died ({})", exit.describe()),
                    worker.stderr_tail()));
    } else if (!end.done && next_ < items_.size() && ++start_failures_ >= 2) {
      fail_rest(
          Status::crashed,
          fmt::format("the worker died ({}) before running an item, twice: the device or torch fails to "
                      "initialise",
                      exit.describe()),
          worker.stderr_tail());
    }
  }

  const std::vector<ItemInfo>& items_;
  const IsolationOptions& options_;
  const RunCallbacks& cb_;
  const std::vector<std::string> argv_;
  const std::chrono::milliseconds item_limit_;
  const std::chrono::milliseconds startup_limit_;
  std::vector<Result> results_;
  std::size_t next_ = 0;  ///< first item without a result
  int start_failures_ = 0;
  std::size_t workers_ = 0;  ///< started so far, hand-overs included
};

}  // namespace

std::vector<Result> run_isolated(const std::vector<ItemInfo>& items, const IsolationOptions& options,
                                 const RunCallbacks& cb) {
  std::vector<std::string> argv = options.worker_command.empty() ? worker_command() : options.worker_command;
  if (argv.empty()) throw platform::SubprocessError("cannot find this program's own path to start a worker");
  return IsolatedRun(items, options, cb, std::move(argv)).run();
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
