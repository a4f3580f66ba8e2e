// The multi suite (engine_api/multi.hpp) as a worker runs it. Rank 0's
// worker (or, under a launcher, each rank's own worker) forms the process
// group lazily at the first item that needs it: for local ranks it first
// starts ranks 1..N-1 as workers of their own (local_ranks.hpp) with the
// collective items still to run. A group that fails to form, or breaks
// mid-run, fails that item; the later group items say why they did not run.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

#include "core/multi/collective.hpp"
#include "engine_api/multi.hpp"
#include "engine_api/worker.hpp"
#include "engines/torch/multi/local_ranks.hpp"
#include "engines/torch/multi/steps.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/torch_util.hpp"
#include "platform/detail.hpp"
#include "platform/process.hpp"

namespace accel::engine {

namespace {

using Clock = std::chrono::steady_clock;

class MultiSuite final : public WorkerSuite {
 public:
  explicit MultiSuite(const json& job) : job_(job) {
    g_.options = job.get<MultiOptions>();
    for (auto& m : plan_multi(g_.options)) items_.emplace(m.info.key, m);
    const bool local = g_.options.launch.launcher == multi::Launcher::none;
    g_.rank = job.value("rank", multi_rank(g_.options));
    g_.world = multi_world_size(g_.options);
    g_.backend = resolve_backend(g_.options);
    const auto& devices = g_.options.devices;
    const std::size_t di = local ? static_cast<std::size_t>(g_.rank) : 0;
    g_.device = parse_device(di < devices.size() ? devices[di] : std::string("cpu"));
    keys_ = job.value("keys", job.value("multi_keys", std::vector<std::string>{}));
    work_dir_ = job.value("work_dir", std::string());
    kb_ = try_load_kb();
    g_.kb = kb_ ? &*kb_ : nullptr;
  }

  json prepare() override {
    initialise_device(g_.device);
    if (g_.backend == "nccl" && !work_dir_.empty()) g_.nccl.configure(work_dir_, g_.rank);
    return json::object();
  }

  Result run(const std::string& key) override {
    const auto it = items_.find(key);
    if (it == items_.end()) {
      Result r = start_result(key, kMultiKind, nullptr, "no such multi item in this build");
      return r;
    }
    const MultiItem& item = it->second;
    switch (item.type) {
      case MultiItem::Type::peer_access:
      case MultiItem::Type::p2p_copy:
        return run_peer_item(g_, item);
      case MultiItem::Type::rank:
        return rank_row(g_, item);
      default:
        break;
    }
    if (!g_.comm && g_.broken.empty()) form_group(item);
    if (!g_.comm || !g_.broken.empty()) {
      Result r = multi_result(g_, item);
      if (item.type == MultiItem::Type::group && !formation_error_.message.empty()) {
        r.status = formation_status_;
        r.reason = formation_error_.message;
        r.error = formation_error_;
        r.metrics["setup_ms"] = setup_ms_;
      } else {
        r.status = formation_status_ == Status::unavailable ? Status::unavailable : Status::skipped;
        r.reason = "not run: " + g_.broken;
      }
      return r;
    }
    switch (item.type) {
      case MultiItem::Type::group:
        return run_group_item(g_, item, setup_ms_);
      case MultiItem::Type::collective:
        return run_collective_item(g_, item);
      case MultiItem::Type::link:
        return run_link_item(g_, item);
      default:
        return multi_result(g_, item);
    }
  }

 private:
  /// The collective steps still to run from `first` on: what local ranks get.
  std::vector<std::string> steps_from(const std::string& first) const {
    std::vector<std::string> out;
    bool on = false;
    for (const auto& k : keys_) {
      on = on || k == first;
      const auto it = items_.find(k);
      if (on && it != items_.end() && it->second.collective_step()) out.push_back(k);
    }
    if (out.empty()) out.push_back(first);
    return out;
  }

  void form_group(const MultiItem& first) {
    const auto t0 = Clock::now();
    const auto& launch = g_.options.launch;
    const bool local = launch.launcher == multi::Launcher::none;
    Rendezvous rv;
    rv.rank = g_.rank;
    rv.world = g_.world;
    rv.backend = g_.backend;
    rv.device = g_.device;
    rv.timeout = std::chrono::milliseconds(
        static_cast<long long>(std::max(30.0, std::min(g_.options.item_timeout_s - 15, 150.0)) * 1000));
    // The attempt: every rank's worker starts its group at the same item
    // (a replacement worker after a crash starts from where it went on).
    std::string attempt = job_.value("attempt", std::string());
    if (attempt.empty()) {
      attempt = first.info.key;
      for (char& c : attempt) {
        if (c == '/') c = '.';
      }
    }
    if (const std::string why = backend_problem(g_.backend); !why.empty()) {
      // Not built into this engine (a torch without gloo headers, a CPU-only
      // torch for nccl): the group items are unavailable, not failed.
      formation_error_ = ErrorInfo{why, "", "", "", ""};
      formation_status_ = Status::unavailable;
      g_.broken = "the " + g_.backend + " backend is not available: " + why;
      return;
    }
    try {
      if (local) {
        if (work_dir_.empty())
          throw std::runtime_error("no work folder for the file store (the engine sets one)");
        rv.file_store = platform::detail::join(work_dir_, "store." + attempt);
        rv.gloo_host = "127.0.0.1";
        if (g_.rank == 0 && !job_.contains("rank")) {
          json peer_job = job_;
          peer_job["suite"] = "multi";
          peer_job["keys"] = steps_from(first.info.key);
          peer_job["attempt"] = attempt;
          peer_job["retire_anon_bytes"] = 0;
          peers_ = std::make_unique<LocalRanks>(peer_job, g_.world);
        }
      } else {
        rv.master_addr = launch.master_addr;
        rv.master_port = launch.master_port;
        rv.host_store = g_.rank == 0 && !launch.agent_store;
        rv.store_prefix = launch.store_prefix + "/" + attempt;
        if (const char* itf = std::getenv("GLOO_SOCKET_IFNAME"); itf && *itf) {
          const std::string s = itf;
          rv.gloo_interface = s.substr(0, s.find(','));
        }
      }
      g_.comm = make_comm(rv);
    } catch (const std::exception& e) {
      Result r;
      set_error(r, e, g_.kb, g_.options.machine);
      formation_error_ = *r.error;
      formation_status_ = r.status == Status::unavailable ? Status::unavailable : Status::error;
      g_.broken = "the process group did not form: " + formation_error_.message;
      if (peers_ && !peers_->ended().empty()) {
        g_.broken += fmt::format(" (local rank {} ended early)", peers_->ended().front());
      }
    }
    setup_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }

  json job_;
  GroupContext g_;
  std::map<std::string, MultiItem> items_;
  std::vector<std::string> keys_;
  std::string work_dir_;
  std::optional<KnowledgeBase> kb_;
  std::unique_ptr<LocalRanks> peers_;
  ErrorInfo formation_error_;
  Status formation_status_ = Status::error;
  double setup_ms_ = 0;
};

/// A fresh folder for the run's file store and NCCL logs, removed after the run.
class WorkDir {
 public:
  WorkDir() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ =
        (fs::temp_directory_path(ec) / fmt::format("accel-doctor-multi-{}-{}", platform::process_id(), stamp))
            .string();
    fs::create_directories(path_, ec);
    if (ec) path_.clear();
  }
  ~WorkDir() {
    if (path_.empty()) return;
    // Not fs::remove_all (see engines/torch/ops.cpp): the folder holds files only.
    for (const auto& f : platform::detail::list_dir(path_))
      std::remove(platform::detail::join(path_, f).c_str());
    platform::remove_empty_directory(path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

std::unique_ptr<WorkerSuite> make_multi_suite(const json& job) { return std::make_unique<MultiSuite>(job); }

std::vector<ItemInfo> list_multi(const MultiOptions& options) { return list_multi_items(options); }

std::vector<Result> run_multi(const MultiOptions& options, const RunCallbacks& callbacks) {
  const auto items = list_multi_items(options);
  const WorkDir dir;
  IsolationOptions iso;
  iso.suite = "multi";
  iso.job = json(options);
  iso.job["work_dir"] = dir.path();
  std::vector<std::string> keys;
  for (const auto& i : items) keys.push_back(i.key);
  iso.job["multi_keys"] = keys;  // in-process runs get no "keys" from the runner
  iso.device = options.devices.empty() ? "cpu" : options.devices.front();
  iso.item_timeout_s = options.item_timeout_s;
  iso.machine = options.machine;
  return run_torch_suite(items, iso, options.isolate, callbacks);  // with the kb
}

}  // namespace accel::engine
