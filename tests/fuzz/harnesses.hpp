// The fuzz harnesses (issue 16): one function per parser of outside input,
// fed any bytes. tests/fuzz/fuzz_main.cpp makes each a libFuzzer target
// (ACCEL_FUZZ_TARGET); tests/unit/fuzz_regression_test.cpp feeds every stored
// crash input (tests/fuzz/crashes/<target>/) and seed to the same function,
// so a crash once found stays fixed in the ordinary unit tests.
// A harness catches only the parser's documented error type: anything else
// escaping is a finding (the CLI would report it as an internal error).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "core/evidence.hpp"
#include "core/idx.hpp"
#include "core/kb.hpp"
#include "core/peaks.hpp"
#include "core/profile.hpp"
#include "core/rules/rules.hpp"
#include "core/safetensors.hpp"
#include "core/torch_config.hpp"
#include "engine_api/engine.hpp"
#include "engine_api/serve.hpp"
#include "engine_api/worker_protocol.hpp"
#include "engines/onnxruntime/profile_parse.hpp"
#include "platform/detail.hpp"
#include "platform/gpu_busy.hpp"

#ifndef ACCEL_KB_DIR
#error "ACCEL_KB_DIR must name the kb/ directory"
#endif

namespace accel::fuzz {

inline const accel::KnowledgeBase& kb() {
  static const accel::KnowledgeBase k = accel::KnowledgeBase::load(ACCEL_KB_DIR);
  return k;
}

// the log reader and matcher behind `explain` (any bytes,
// any encoding, huge lines), and the machine-context parser the kb applies.
inline int explain(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first lines double as a machine context (the facts parser).
  accel::MachineContext ctx;
  std::string_view rest = text;
  for (std::string* field : {&ctx.arch, &ctx.backend, &ctx.versions, &ctx.gpu}) {
    const auto nl = rest.find('\n');
    *field = std::string(rest.substr(0, std::min<std::size_t>(nl, 256)));
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  }
  (void)kb().machine_facts(ctx);
  (void)kb().explain(text, ctx);
  (void)kb().classify(text.substr(0, 4096), ctx);
  accel::ExplainOptions small;
  small.max_line_bytes = 64;  // exercise the long-line cut on small inputs too
  for (const accel::ExplainOptions& o : {accel::ExplainOptions{}, small}) {
    std::istringstream in{std::string(text)};
    (void)kb().explain_stream(in, accel::MachineContext{}, o);
  }
  return 0;
}

inline const accel::RuleData& rule_data() {
  static const accel::RuleData d = accel::RuleData::load(ACCEL_KB_DIR);
  return d;
}

// report JSON (compare, diagnose --from, report --from), and what those
// commands do with an accepted report: the rules engine ("never throws on
// odd evidence"), the verdict, and a comparison with itself.
inline int report(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const accel::Report r = accel::parse_report(text, "fuzz");
    (void)accel::json(r).dump();  // what was accepted must serialise again
    accel::DiagnoseOptions o;
    o.kb = &kb();
    o.data = &rule_data();
    const auto findings = accel::diagnose(r, o);
    (void)accel::verdict_line(r, findings);
    (void)accel::needs_attention(r, findings);
    (void)accel::comparison_to_json(accel::compare_reports(r, r)).dump();
  } catch (const accel::ReportError&) {
    // The documented clear error; any other exception is a finding (exit 4).
  }
  return 0;
}

// safetensors headers (llm --weights).
inline int safetensors(const std::uint8_t* data, std::size_t size) {
  try {
    (void)accel::parse_safetensors_header(data, size, size, "fuzz");
  } catch (const accel::SafetensorsError&) {
  }
  return 0;
}

// IDX files (train --data).
inline int idx(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  for (const std::uint32_t magic : {accel::kIdxImagesMagic, accel::kIdxLabelsMagic}) {
    try {
      (void)accel::parse_idx(bytes, magic, "fuzz");
    } catch (const accel::IdxError&) {
    }
  }
  return 0;
}

// the worker protocol's event lines (engine/isolation.cpp).
inline int worker_event(const std::uint8_t* data, std::size_t size) {
  (void)accel::parse_worker_event(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}

// the /proc and sysfs text parsers of the platform probes
// (os-release, /proc/cpuinfo, /proc/meminfo, KFD topology properties, PCI
// addresses, pci.ids). Every parser sees every input.
inline int host_parse(const std::uint8_t* data, std::size_t size) {
  using namespace accel::platform::detail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parse_os_release(text);
  (void)simd_flags_of_interest(parse_cpuinfo(text).flags);
  (void)meminfo_bytes(text, "MemTotal");
  (void)meminfo_bytes(text, "MemAvailable");
  (void)parse_kfd_properties(text);
  (void)parse_pci_address(text.substr(0, 64));
  (void)parse_uint(text.substr(0, 32));
  (void)parse_uint(text.substr(0, 32), 16);
  (void)split_ws(text.substr(0, 4096));
  (void)lines_of(text);
  (void)cpu_list_count(text.substr(0, 256));  // /sys/fs/cgroup/cpuset.cpus.effective, "0-3,8"
  (void)status_field(text, "Cpus_allowed_list");
  (void)cgroup2_cpu_quota(text.substr(0, 64));  // cpu.max, "max 100000"
  const auto sp = text.find(' ');
  (void)cgroup1_cpu_quota(text.substr(0, std::min<std::size_t>(sp, 32)),
                          sp == std::string_view::npos ? std::string_view() : text.substr(sp + 1, 32));
  (void)cgroup_memory_limit(text.substr(0, 64));
  (void)cgroup_path(text);
  (void)cgroup_path(text, "cpu");
  const std::string ids(text);
  (void)pci_ids_name(ids, 0x10de, 0x2684);
  (void)pci_ids_name(ids, 0x1002, 0x73ff);
  return 0;
}

// text torch hands us that we parse without torch: the
// build configuration (torch.__config__.show()) and the profiler's Chrome
// trace JSON.
inline int torch_text(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)accel::parse_torch_config(text);
  try {
    (void)accel::parse_chrome_trace(text);
  } catch (const accel::ReportError&) {
  }
  return 0;
}

// kb files (ACCEL_DOCTOR_KB may point anywhere): the bytes as errors.json of
// a kb directory (RE2 patterns, conditions, fix sets), as rules.json, as
// gpus.json and as arch.json's peak_rates. Each reader's documented error is a KbError / RuleDataError.
inline int kb_files(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  struct TempDir {  // one per process, removed at exit
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("accel_fuzz_kb_" + std::to_string(static_cast<long long>(::getpid())));
    TempDir() { std::filesystem::create_directories(path); }
    ~TempDir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const TempDir tmp;
  const std::filesystem::path& dir = tmp.path;
  std::ofstream(dir / "errors.json", std::ios::binary | std::ios::trunc) << text;
  try {
    (void)accel::KnowledgeBase::load(dir.string());
  } catch (const accel::KbError&) {
  }
  try {
    (void)accel::RuleData::parse(text, "fuzz");
  } catch (const accel::RuleDataError&) {
  }
  try {
    (void)accel::GpuPeakTable::parse(text, "fuzz");
  } catch (const accel::KbError&) {
  }
  try {
    (void)accel::PeakRates::parse(text, "fuzz");  // arch.json's peak_rates
  } catch (const accel::KbError&) {
  }
  // The kb's other files, each beside a minimal valid errors.json: arch.json,
  // wheels.json and env_vars.json (KnowledgeBase::load), kernels.json
  // (ImplementationTable::load).
  static const std::filesystem::path side = tmp.path / "side";
  std::filesystem::create_directories(side);
  std::ofstream(side / "errors.json", std::ios::trunc) << R"({"schema": 1, "errors": []})";
  for (const char* name : {"arch.json", "wheels.json", "env_vars.json", "kernels.json"}) {
    std::ofstream(side / name, std::ios::binary | std::ios::trunc) << text;
    try {
      if (std::string_view(name) == "kernels.json") {
        (void)accel::ImplementationTable::load(side.string());
      } else {
        (void)accel::KnowledgeBase::load(side.string());
      }
    } catch (const accel::KbError&) {
    }
    std::filesystem::remove(side / name);
  }
  return 0;
}

// the engine protocol's requests, as `accel-doctor-torch serve` reads them
// from its standard input (any program may start an engine): the request
// line, the suite's options object (OpsOptions ... TrainOptions, their
// integers range-checked), against an engine that answers with nothing.
// serve_engine answers an unreadable request with an error event: it must
// never throw nor crash.
class NullEngine final : public accel::engine::Engine {
 public:
  accel::engine::EngineEnvironment environment() override { return {}; }
  std::vector<accel::engine::CheckInfo> list_checks(const accel::engine::OpsOptions&) override { return {}; }
  std::vector<accel::Result> run_ops(const accel::engine::OpsOptions&,
                                     const accel::engine::RunCallbacks&) override {
    return {};
  }
  std::vector<accel::engine::ItemInfo> list_benchmarks(const accel::engine::BenchOptions&) override {
    return {};
  }
  std::vector<accel::Result> run_bench(const accel::engine::BenchOptions&,
                                       const accel::engine::RunCallbacks&) override {
    return {};
  }
  accel::engine::LlmPlan plan_llm(const accel::engine::LlmOptions&) override { return {}; }
  std::vector<accel::Result> run_llm(const accel::engine::LlmOptions&,
                                     const accel::engine::RunCallbacks&) override {
    return {};
  }
  accel::engine::TrainPlan plan_train(const accel::engine::TrainOptions&) override { return {}; }
  std::vector<accel::Result> run_train(const accel::engine::TrainOptions&,
                                       const accel::engine::RunCallbacks&) override {
    return {};
  }
};

inline int engine_request(const std::uint8_t* data, std::size_t size) {
#ifdef _WIN32
  static std::FILE* sink = std::fopen("NUL", "w");
#else
  static std::FILE* sink = std::fopen("/dev/null", "w");
#endif
  if (!sink) return 0;
  NullEngine engine;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  (void)accel::engine::serve_engine(engine, {"fuzz", "0"}, in, sink);
  return 0;
}

// the GPU busy sampler's PDH parts (platform/gpu_busy.hpp): GPU Engine
// instance names (the bytes as one name, and as newline-separated
// "name<TAB>value" lines aggregated as one sample) and amdgpu's
// gpu_busy_percent text. None may throw.
inline int pdh_instance(const std::uint8_t* data, std::size_t size) {
  using namespace accel::platform::detail;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)parse_pdh_gpu_engine_instance(text);
  (void)parse_gpu_busy_percent(text.substr(0, 16));
  std::vector<std::pair<std::string, double>> items;
  std::size_t start = 0;
  while (start < text.size() && items.size() < 4096) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const auto tab = line.find('\t');
    double v = 0;
    if (tab != std::string_view::npos) {
      const std::string num(line.substr(tab + 1, 32));
      v = std::strtod(num.c_str(), nullptr);
    }
    items.emplace_back(std::string(line.substr(0, tab)), v);
    start = end + 1;
  }
  for (const auto& r : aggregate_pdh_gpu_engines(items)) {
    if (r.busy_percent < 0 || r.busy_percent > 100) __builtin_trap();  // the documented range
  }
  return 0;
}

// ONNX Runtime session profiles (the `ort` engine reads the file the
// runtime writes): the parser and the placement it feeds.
inline int ort_profile(const std::uint8_t* data, std::size_t size) {
  try {
    const auto p = accel::ort::parse_profile(std::string_view(reinterpret_cast<const char*>(data), size));
    for (const char* ep : {"CPUExecutionProvider", "DmlExecutionProvider"}) {
      const auto pl = accel::ort::classify_placement(p, ep);
      (void)pl.fallback_cost_us();
    }
  } catch (const accel::ort::ProfileError&) {
  }
  return 0;
}

using Harness = int (*)(const std::uint8_t*, std::size_t);
struct NamedHarness {
  const char* name;
  Harness fn;
};
inline constexpr NamedHarness kHarnesses[] = {
    {"explain", &explain},           {"report", &report},
    {"safetensors", &safetensors},   {"idx", &idx},
    {"worker_event", &worker_event}, {"host_parse", &host_parse},
    {"torch_text", &torch_text},     {"kb_files", &kb_files},
    {"pdh_instance", &pdh_instance}, {"engine_request", &engine_request},
    {"ort_profile", &ort_profile},
};

}  // namespace accel::fuzz
