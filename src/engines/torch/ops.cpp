// The `ops` suite: catalog expansion and the per-check runner, run through
// the generic isolation in engine_api/isolation.hpp.
#include "engine_api/ops.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "core/files.hpp"
#include "core/machine_context.hpp"
#include "engines/torch/checks/run_check.hpp"
#include "engines/torch/host.hpp"
#include "engines/torch/profiler.hpp"
#include "engines/torch/suites.hpp"
#include "platform/process.hpp"

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

std::vector<Expanded> expand(const std::vector<std::string>& filters, bool include_test_checks) {
  std::vector<Expanded> out;
  for (const auto& def : catalog(include_test_checks)) {
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
      if (filters_match(filters, info)) out.push_back({&def, dtype, std::move(info)});
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

std::string trace_parts_dir(const std::string& trace_path) {
  return trace_path.empty() ? std::string() : trace_path + ".parts";
}

/// Merges the per-check traces the run left in the parts folder into --trace.
void merge_traces(const std::string& trace_path) {
  namespace fs = std::filesystem;
  const std::string dir = trace_parts_dir(trace_path);
  if (dir.empty()) return;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& f : fs::directory_iterator(dir, ec)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  if (!files.empty()) {  // none: no trace from this build (no Kineto); the caller says so
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(f.stem().string());
    std::ofstream out(trace_path, std::ios::binary);
    merge_chrome_traces(out, names,
                        [&](std::size_t i) { return read_file(files[i]).value_or(std::string()); });
  }
  // Not fs::remove_all: the PyPI torch wheels export their own copy of
  // std::filesystem::remove_all from libtorch.so, which calls into this
  // process's newer libstdc++ with another recursive_directory_iterator
  // layout and jumps to address 0 (SIGSEGV on the H200 machine, torch 2.11,
  // 2026-11-30). The folder holds only the files listed above.
  for (const auto& f : files) std::remove(f.string().c_str());
  platform::remove_empty_directory(dir);
}

/// The ops suite as a worker (or this process) runs it.
class OpsSuite final : public WorkerSuite {
 public:
  explicit OpsSuite(const json& job) {
    include_test_checks_ = job.value("include_test_checks", false);
    for (auto& e : expand({}, include_test_checks_)) by_key_.emplace(e.info.key, e);
    kb_ = try_load_kb();
    ctx_.device = parse_device(job.value("device", "cpu"));
    ctx_.quick = job.value("quick", false);
    ctx_.timer = TimerOptions{};
    ctx_.timer.budget_ms = 150;
    ctx_.timer.max_samples = 40;
    // Warm-up in 3 ms chunks while the per-call time still improves (up to
    // 20 ms): a fixed 10 ms was a sixth of a full H200 run (2026-11-30).
    ctx_.timer.warmup_ms = 3;
    ctx_.timer.max_warmup_ms = 20;
    ctx_.kb = kb_ ? &*kb_ : nullptr;
    if (job.contains("machine")) ctx_.machine = job["machine"].get<MachineContext>();
    ctx_.profile = job.value("profile", true);
    ctx_.implementations = implementations();
    ctx_.trace_dir = trace_parts_dir(job.value("trace_path", ""));
    if (const DeviceInfo* d = plugin_device(device_string(ctx_.device))) {
      ctx_.announces_cpu_fallback = d->announces_cpu_fallback.value_or(false);
      ctx_.plugin = d->plugin;
    }
  }

  json prepare() override {
    initialise_device(ctx_.device);
    if (!ctx_.device.is_cpu() && ctx_.profile) ctx_.profiler_blind = profiler_self_check(ctx_.device);
    return json{{"profiler_blind", ctx_.profiler_blind}};
  }

  Result run(const std::string& key) override {
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) {
      Result r;
      r.key = key;
      r.kind = ResultKind::check;
      r.status = Status::skipped;
      r.reason = "no such check in this build";
      return r;
    }
    return run_check(*it->second.def, it->second.dtype, ctx_);
  }

 private:
  bool include_test_checks_ = false;
  std::map<std::string, Expanded> by_key_;
  std::optional<KnowledgeBase> kb_;
  RunContext ctx_;
};

}  // namespace

std::optional<KnowledgeBase> try_load_kb() {
  try {
    return KnowledgeBase::load_default();
  } catch (const std::exception& e) {
    std::cerr << "accel-doctor: error causes unavailable: " << e.what() << "\n";
    return std::nullopt;
  }
}

std::unique_ptr<WorkerSuite> make_ops_suite(const json& job) { return std::make_unique<OpsSuite>(job); }

std::vector<CheckInfo> list_checks(const OpsOptions& options) {
  std::vector<CheckInfo> out;
  for (auto& e : expand(options.filters, options.include_test_checks)) out.push_back(std::move(e.info));
  return out;
}

std::vector<Result> run_ops(const OpsOptions& options, const OpsCallbacks& callbacks) {
  std::vector<ItemInfo> items;
  for (const auto& c : list_checks(options)) {
    items.push_back({c.key, ResultKind::check, c.name, c.category, c.dtype, c.shape});
  }
  if (items.empty()) return {};
  if (const std::string dir = trace_parts_dir(options.trace_path); !dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }
  IsolationOptions iso;  // run_torch_suite adds the kb
  iso.suite = "ops";
  iso.job = json(options);
  iso.device = options.device;
  iso.item_timeout_s = options.check_timeout_s;
  iso.machine = options.machine;
  iso.retire_anon_bytes = options.worker_retire_anon_bytes;
  iso.retire_min_items = options.worker_retire_min_items;
  auto results = run_torch_suite(items, iso, options.isolate, callbacks);
  merge_traces(options.trace_path);
  return results;
}

}  // namespace accel::engine
