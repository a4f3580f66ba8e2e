// GPU busy while measuring: the PDH instance parser and per-adapter
// aggregation on instance names of the documented shape (as public tools
// and Microsoft's Task Manager write-up show them), amdgpu's
// gpu_busy_percent on recorded and scratch sysfs trees, the summary of an
// item's window, how results get their window, and the whole sampler with
// a fake engine and a scripted source (the real thread and clock).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <thread>

#include "core/gpu_busy.hpp"
#include "engine_api/busy_sampled_engine.hpp"
#include "platform/gpu_busy.hpp"
#include "platform_test_util.hpp"

using namespace accel;
using namespace accel::platform;
using namespace accel::platform::detail;

TEST(PdhGpuEngine, ParsesInstanceNames) {
  const auto a = parse_pdh_gpu_engine_instance("pid_2908_luid_0x00000000_0x000163A4_phys_0_eng_0_engtype_3D");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->pid, 2908u);
  EXPECT_EQ(a->luid, "0x00000000:0x000163a4");  // DXGI's form: joins the adapter list
  EXPECT_EQ(a->phys, 0);
  EXPECT_EQ(a->eng, 0);
  EXPECT_EQ(a->engtype, "3D");
  const auto b =
      parse_pdh_gpu_engine_instance("pid_4752_luid_0x00000000_0x0000C9A5_phys_0_eng_4_engtype_VideoDecode");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->eng, 4);
  EXPECT_EQ(b->engtype, "VideoDecode");
  // Engine types with underscores (Compute_0, JPEG_Decode_0) and lower case (as WMI writes them).
  const auto c =
      parse_pdh_gpu_engine_instance("pid_12_luid_0x00000001_0x0000d1a3_phys_1_eng_11_engtype_JPEG_Decode_0");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->luid, "0x00000001:0x0000d1a3");
  EXPECT_EQ(c->phys, 1);
  EXPECT_EQ(c->eng, 11);
  EXPECT_EQ(c->engtype, "JPEG_Decode_0");
  EXPECT_TRUE(parse_pdh_gpu_engine_instance("pid_1_luid_0x0_0x1_phys_0_eng_0_engtype_3d"));
}

TEST(PdhGpuEngine, RefusesOtherShapes) {
  for (const char* bad :
       {"", "_Total", "pid_x_luid", "pid_1_luid_0x0_0x1_phys_0_eng_0_engtype_",
        "pid_1_luid_0x0_0x1_phys_0_eng_0", "pid_99999999999_luid_0x0_0x1_phys_0_eng_0_engtype_3D",
        "pid_1_luid_0x123456789_0x1_phys_0_eng_0_engtype_3D", "pid_1_luid_00_0x1_phys_0_eng_0_engtype_3D",
        "luid_0x0_0x1_phys_0_eng_0_engtype_3D", "pid_1_luid_0x0_0x1_phys_0_eng_0_engtype_3D\n"}) {
    EXPECT_FALSE(parse_pdh_gpu_engine_instance(bad)) << bad;
  }
  EXPECT_FALSE(
      parse_pdh_gpu_engine_instance("pid_1_luid_0x0_0x1_phys_0_eng_0_engtype_" + std::string(65, 'x')));
}

TEST(PdhGpuEngine, AggregatesPerAdapterAsTaskManagerDoes) {
  // Two processes on the dGPU's compute engine, one on its 3D engine, the
  // copy engine; an iGPU running the desktop; noise that must be skipped.
  const std::string d = "_luid_0x00000000_0x0000D1A3_phys_0_eng_";
  const std::string i = "_luid_0x00000000_0x0000B2C4_phys_0_eng_";
  const std::vector<std::pair<std::string, double>> items = {
      {"pid_100" + d + "1_engtype_Compute_0", 55.0},
      {"pid_200" + d + "1_engtype_Compute_0", 30.0},
      {"pid_100" + d + "0_engtype_3D", 12.0},
      {"pid_100" + d + "2_engtype_Copy", 4.0},
      {"pid_300" + d + "3_engtype_Compute_1", 70.0},
      {"pid_300" + d + "3_engtype_Compute_1", 50.0},  // the same engine again: summed, capped at 100
      {"pid_5" + i + "0_engtype_3D", 21.0},
      {"_Total", 99.0},
      {"pid_7" + i + "0_engtype_3D", -1.0},
      {"pid_8" + i + "0_engtype_3D", std::nan("")},
  };
  const auto out = aggregate_pdh_gpu_engines(items);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].id, "luid:0x00000000:0x0000d1a3");
  EXPECT_NE(out[0].source.find("PDH"), std::string::npos);
  EXPECT_DOUBLE_EQ(out[0].engines_percent.at("Compute_0"), 85.0);
  EXPECT_DOUBLE_EQ(out[0].engines_percent.at("Compute_1"), 100.0);
  EXPECT_DOUBLE_EQ(out[0].engines_percent.at("3D"), 12.0);
  EXPECT_DOUBLE_EQ(out[0].engines_percent.at("Copy"), 4.0);
  EXPECT_DOUBLE_EQ(out[0].busy_percent, 100.0);  // the busiest engine
  EXPECT_EQ(out[1].id, "luid:0x00000000:0x0000b2c4");
  EXPECT_DOUBLE_EQ(out[1].busy_percent, 21.0);
  EXPECT_TRUE(aggregate_pdh_gpu_engines({}).empty());
}

TEST(AmdgpuBusy, ParsesThePercentFile) {
  EXPECT_EQ(parse_gpu_busy_percent("37\n"), 37.0);
  EXPECT_EQ(parse_gpu_busy_percent("0"), 0.0);
  EXPECT_EQ(parse_gpu_busy_percent("100"), 100.0);
  EXPECT_FALSE(parse_gpu_busy_percent("101"));
  EXPECT_FALSE(parse_gpu_busy_percent(""));
  EXPECT_FALSE(parse_gpu_busy_percent("busy"));
}

TEST(AmdgpuBusy, ReadsEveryAmdgpuGpuOfARecordedTree) {
  ACCEL_SKIP_ON_WINDOWS("the sysfs PCI scan is not built on Windows");
  const auto roots = test::recorded("amd-laptop-dgpu-igpu");
  const auto gpus = probe_gpus(roots);
  auto sources = open_gpu_busy_sources(gpus, roots);
  ASSERT_EQ(sources.sources.size(), 1u) << (sources.unavailable.empty() ? "" : sources.unavailable[0]);
  const auto readings = sources.sources[0]->read();
  ASSERT_EQ(readings.size(), 2u);
  std::map<std::string, double> by_id;
  for (const auto& r : readings) by_id[r.id] = r.busy_percent;
  EXPECT_EQ(by_id.at("pci:0000:03:00.0"), 0.0);  // the RX 6650M, idle when recorded
  EXPECT_EQ(by_id.at("pci:0000:06:00.0"), 3.0);  // the 680M drawing the desktop
  EXPECT_EQ(readings[0].source, "amdgpu gpu_busy_percent");
}

namespace {
/// The reading of `id` among every source's readings (on Windows a PDH source may come first).
std::optional<double> reading_of(GpuBusySources& sources, const std::string& id) {
  for (auto& src : sources.sources) {
    for (const auto& r : src->read()) {
      if (r.id == id) return r.busy_percent;
    }
  }
  return std::nullopt;
}
}  // namespace

TEST(AmdgpuBusy, FollowsTheFileAndSaysWhyWithoutOne) {
  test::TempTree t("gpubusy");
  t.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "12\n");
  GpuHardware g;
  g.pci_address = "0000:03:00.0";
  g.driver = "amdgpu";
  g.vendor = "amd";
  g.name = "Radeon RX 6650 XT";
  auto roots = ProbeRoots::under(t.path());
  auto sources = open_gpu_busy_sources({g}, roots);
  EXPECT_EQ(reading_of(sources, "pci:0000:03:00.0"), 12.0);
  t.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "97\n");
  EXPECT_EQ(reading_of(sources, "pci:0000:03:00.0"), 97.0);
  t.write("sys/bus/pci/devices/0000:03:00.0/gpu_busy_percent", "garbage");
  EXPECT_FALSE(reading_of(sources, "pci:0000:03:00.0"));  // a failed read: no reading this time, no throw

  g.pci_address = "0000:09:00.0";  // no such file
  auto none = open_gpu_busy_sources({g}, roots);
  EXPECT_FALSE(reading_of(none, "pci:0000:09:00.0"));
  GpuBusySampler sampler(std::move(none), 50);
  if (!sampler.has_sources()) {
    EXPECT_FALSE(sampler.why_not().empty());
#if !defined(_WIN32)
    EXPECT_NE(sampler.why_not().find("gpu_busy_percent"), std::string::npos) << sampler.why_not();
#endif
  }
}

TEST(GpuBusySummary, TakesTheWindowsSamples) {
  std::vector<GpuBusySample> samples;
  for (int i = 0; i < 20; ++i) {
    GpuBusySample s;
    s.t_ms = 100.0 * i;
    GpuBusyReading a{"pci:0000:01:00.0",
                     "A",
                     "NVML nvmlDeviceGetUtilizationRates",
                     i < 10 ? 10.0 : 90.0,
                     {{"gpu", i < 10 ? 10.0 : 90.0}, {"memory", 40.0}}};
    s.readings.push_back(a);
    if (i % 2 == 0) s.readings.push_back({"pci:0000:02:00.0", "B", "NVML", 150.0, {}});  // clamped to 100
    samples.push_back(s);
  }
  const GpuBusy b = summarize_gpu_busy(samples, 1000, 1900, 100);
  EXPECT_DOUBLE_EQ(b.window_ms, 900);
  EXPECT_DOUBLE_EQ(b.period_ms, 100);
  ASSERT_EQ(b.devices.size(), 2u);
  EXPECT_EQ(b.devices[0].id, "pci:0000:01:00.0");
  EXPECT_EQ(b.devices[0].samples, 10);
  EXPECT_DOUBLE_EQ(b.devices[0].median_percent, 90);
  ASSERT_EQ(b.devices[0].engines.size(), 2u);
  EXPECT_EQ(b.devices[0].engines[0].engine, "gpu");
  EXPECT_DOUBLE_EQ(b.devices[0].engines[1].median_percent, 40);
  EXPECT_EQ(b.devices[0].percent.size(), 10u);
  EXPECT_EQ(b.devices[1].samples, 5);
  EXPECT_DOUBLE_EQ(b.devices[1].max_percent, 100);
  EXPECT_TRUE(b.not_measured.empty());
  // A window across the change: median of five 10s and five 90s.
  EXPECT_DOUBLE_EQ(summarize_gpu_busy(samples, 500, 1400, 100).devices[0].median_percent, 50);
  // Shorter than a period: no sample, and it says so.
  const GpuBusy none = summarize_gpu_busy(samples, 1010, 1050, 100);
  EXPECT_TRUE(none.devices.empty());
  EXPECT_NE(none.not_measured.find("no sample"), std::string::npos);
  EXPECT_EQ(busiest_gpu(b)->id, "pci:0000:02:00.0");     // median 100
  EXPECT_EQ(busiest_gpu(b, 6)->id, "pci:0000:01:00.0");  // the other has only 5 samples
  EXPECT_EQ(busiest_gpu(none), nullptr);
}

TEST(GpuBusySummary, ThinsLongRecordsEvenly) {
  std::vector<double> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  const auto t = thin_evenly(v, kGpuBusyKeptSamples);
  ASSERT_EQ(t.size(), kGpuBusyKeptSamples);
  EXPECT_EQ(t.front(), 0);
  EXPECT_EQ(t.back(), 999);
  EXPECT_EQ(thin_evenly({1, 2, 3}, 10).size(), 3u);
  EXPECT_TRUE(thin_evenly({1, 2, 3}, 0).empty());
}

namespace {
Result row(const std::string& key, const std::string& kind, const std::string& device) {
  Result r;
  r.key = key;
  r.kind = *result_kind_from_string(kind);
  r.device = device;
  r.status = Status::ok;
  return r;
}
}  // namespace

TEST(GpuBusyAttach, GivesEachDeviceResultItsOwnWindow) {
  std::vector<Result> results = {row("llm/cuda/a", "llm", "cuda:0"), row("llm/cpu/a", "llm", "cpu"),
                                 row("bench/cuda/x", "bench", "cuda:0"),
                                 row("bench/cuda/x", "bench", "cuda:0"),
                                 row("bench/cuda/added_at_end", "bench", "cuda:0")};
  std::vector<engine::ItemWindow> windows = {
      {"llm/cuda/a", 0, 100}, {"llm/cpu/a", 100, 200}, {"bench/cuda/x", 200, 300}, {"bench/cuda/x", 300, -1}};
  std::vector<std::pair<double, double>> asked;
  engine::attach_gpu_busy(
      results, windows, 999,
      [&asked](double t0, double t1) {
        asked.emplace_back(t0, t1);
        GpuBusy b;
        b.window_ms = t1 - t0;
        return b;
      },
      "");
  ASSERT_TRUE(results[0].gpu_busy);
  EXPECT_DOUBLE_EQ(results[0].gpu_busy->window_ms, 100);
  EXPECT_FALSE(results[1].gpu_busy);  // the CPU twin
  EXPECT_DOUBLE_EQ(results[2].gpu_busy->window_ms, 100);
  EXPECT_DOUBLE_EQ(results[3].gpu_busy->window_ms, 699);  // still running at the end: up to the run's end
  EXPECT_FALSE(results[4].gpu_busy);                      // no window: a row the engine added at the end
  EXPECT_EQ(asked.size(), 3u);

  std::vector<Result> more = {row("ops/x", "check", "cuda:0"), row("llm/cuda/a", "llm", "cuda:0")};
  std::vector<engine::ItemWindow> none;
  engine::attach_gpu_busy(more, none, 0, nullptr, "not sampled: NVML: not found");
  EXPECT_FALSE(more[0].gpu_busy);  // operator checks do not repeat the reason
  ASSERT_TRUE(more[1].gpu_busy);
  EXPECT_EQ(more[1].gpu_busy->not_measured, "not sampled: NVML: not found");
}

namespace {

/// Busy 20% until told, then 80%: what the engine's item does to the GPU.
class ScriptedSource final : public GpuBusySource {
 public:
  explicit ScriptedSource(std::atomic<bool>& loaded) : loaded_(loaded) {}
  std::vector<GpuBusyReading> read() override {
    const double v = loaded_ ? 80.0 : 20.0;
    return {{"pci:0000:01:00.0", "Scripted GPU", "scripted", v, {{"gpu", v}}}};
  }

 private:
  std::atomic<bool>& loaded_;
};

/// Runs two items: 300 ms with the GPU loaded, then 300 ms idle on the CPU.
class SleepyEngine final : public engine::Engine {
 public:
  explicit SleepyEngine(std::atomic<bool>& loaded) : loaded_(loaded) {}
  engine::EngineEnvironment environment() override { return {}; }
  std::vector<engine::CheckInfo> list_checks(const engine::OpsOptions&) override { return {}; }
  std::vector<Result> run_ops(const engine::OpsOptions&, const engine::RunCallbacks& cb) override {
    return run(cb);
  }
  std::vector<engine::ItemInfo> list_benchmarks(const engine::BenchOptions&) override { return {}; }
  std::vector<Result> run_bench(const engine::BenchOptions&, const engine::RunCallbacks& cb) override {
    return run(cb);
  }
  engine::LlmPlan plan_llm(const engine::LlmOptions&) override { return {}; }
  std::vector<Result> run_llm(const engine::LlmOptions&, const engine::RunCallbacks& cb) override {
    return run(cb);
  }
  engine::TrainPlan plan_train(const engine::TrainOptions&) override { return {}; }
  std::vector<Result> run_train(const engine::TrainOptions&, const engine::RunCallbacks& cb) override {
    return run(cb);
  }
  std::vector<engine::ItemInfo> list_multi(const engine::MultiOptions&) override {
    engine::ItemInfo i;
    i.key = "multi/cuda/all_reduce/fp32/1M";
    return {i};
  }
  std::vector<Result> run_multi(const engine::MultiOptions&, const engine::RunCallbacks& cb) override {
    return run(cb);
  }

 private:
  std::vector<Result> run(const engine::RunCallbacks& cb) {
    std::vector<Result> out;
    for (const auto& [key, device] :
         {std::pair<std::string, std::string>{"train/cuda/mlp/fp32/b64", "cuda:0"},
          {"train/cpu/mlp/fp32/b64", "cpu"}}) {
      engine::ItemInfo item;
      item.key = key;
      if (cb.on_start) cb.on_start(item, out.size(), 2);
      loaded_ = device != "cpu";
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      loaded_ = false;
      Result r = row(key, "train", device);
      if (cb.on_result) cb.on_result(r);
      out.push_back(r);
    }
    return out;
  }
  std::atomic<bool>& loaded_;
};

}  // namespace

TEST(BusySampledEngine, RecordsWhatTheGpuDidDuringEachItem) {
  std::atomic<bool> loaded{false};
  int started = 0, finished = 0;
  engine::RunCallbacks cb;
  cb.on_start = [&started](const engine::ItemInfo&, std::size_t, std::size_t) { ++started; };
  cb.on_result = [&finished](const Result&) { ++finished; };
  engine::BusySampledEngine e(std::make_unique<SleepyEngine>(loaded), [&loaded] {
    GpuBusySources s;
    s.sources.push_back(std::make_unique<ScriptedSource>(loaded));
    return std::make_unique<GpuBusySampler>(std::move(s), 20.0);
  });
  const auto results = e.run_train({}, cb);
  EXPECT_EQ(started, 2);  // the caller's callbacks still run
  EXPECT_EQ(finished, 2);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0].gpu_busy);
  ASSERT_EQ(results[0].gpu_busy->devices.size(), 1u);
  const auto& d = results[0].gpu_busy->devices[0];
  EXPECT_GE(d.samples, 5) << "300 ms sampled every 20 ms";
  EXPECT_DOUBLE_EQ(d.median_percent, 80);
  EXPECT_EQ(d.source, "scripted");
  EXPECT_FALSE(results[1].gpu_busy);  // the CPU item

  // No source: the device rows say why instead.
  engine::BusySampledEngine blind(std::make_unique<SleepyEngine>(loaded), [] {
    GpuBusySources s;
    s.unavailable.push_back("NVML: libnvidia-ml.so.1 not found");
    return std::make_unique<GpuBusySampler>(std::move(s), 20.0);
  });
  const auto r2 = blind.run_train({}, {});
  ASSERT_TRUE(r2[0].gpu_busy);
  EXPECT_NE(r2[0].gpu_busy->not_measured.find("libnvidia-ml.so.1"), std::string::npos);
  // No factory (sampling off): nothing recorded.
  engine::BusySampledEngine off(std::make_unique<SleepyEngine>(loaded), nullptr);
  EXPECT_FALSE(off.run_train({}, {})[0].gpu_busy);
}

TEST(GpuBusySampler, PeriodFromTheEnvironment) {
#if defined(_WIN32)
  const double fallback = 250;
#else
  const double fallback = 100;
#endif
  const auto with = [](const char* v) {
    set_environment_variable("ACCEL_DOCTOR_GPU_BUSY_MS", v);
    const double p = gpu_busy_period_from_environment();
    set_environment_variable("ACCEL_DOCTOR_GPU_BUSY_MS", "");
    return p;
  };
  EXPECT_EQ(with(""), fallback);
  EXPECT_EQ(with("0"), 0);
  EXPECT_EQ(with("50"), 50);
  EXPECT_EQ(with("5"), 20);  // at least 20 ms
  EXPECT_EQ(with("soon"), fallback);
  EXPECT_EQ(with("-3"), fallback);
  EXPECT_EQ(with("100ms"), fallback);
  set_environment_variable("ACCEL_DOCTOR_GPU_BUSY_MS", "soon");
  std::string problem;
  gpu_busy_period_from_environment(&problem);
  set_environment_variable("ACCEL_DOCTOR_GPU_BUSY_MS", "");
  EXPECT_NE(problem.find("ACCEL_DOCTOR_GPU_BUSY_MS=soon is not a number"), std::string::npos) << problem;
}

// Every suite reaches the wrapped engine: a suite the wrapper does not
// forward falls to Engine's default ("this engine has no multi suite").
TEST(BusySampledEngine, ForwardsTheMultiSuite) {
  std::atomic<bool> loaded{false};
  engine::BusySampledEngine e(std::make_unique<SleepyEngine>(loaded), nullptr);
  const auto items = e.list_multi({});
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].key, "multi/cuda/all_reduce/fp32/1M");
  EXPECT_EQ(e.run_multi({}, {}).size(), 2u);
}

// The same sampling around a run that is not an Engine (the ONNX Runtime
// engine runs in the front end's process: cli/cmd_ort.cpp).
TEST(GpuBusySampledRun, RecordsEachRowOnAGpuProvider) {
  std::atomic<bool> loaded{false};
  int started = 0;
  engine::RunCallbacks progress;
  progress.on_start = [&started](const engine::ItemInfo&, std::size_t, std::size_t) { ++started; };
  const auto factory = [&loaded] {
    GpuBusySources s;
    s.sources.push_back(std::make_unique<ScriptedSource>(loaded));
    return std::make_unique<GpuBusySampler>(std::move(s), 20.0);
  };
  const auto results = engine::run_gpu_busy_sampled(factory, progress, [&](const engine::RunCallbacks& cb) {
    std::vector<Result> out;
    for (const auto& [key, device] : {std::pair<std::string, std::string>{"ort/linalg/matmul/fp16", "dml:1"},
                                      {"ort/linalg/matmul/fp32", "cpu"}}) {
      engine::ItemInfo item;
      item.key = key;
      cb.on_start(item, out.size(), 2);
      loaded = device != "cpu";
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      loaded = false;
      Result r = row(key, "check", device);
      cb.on_result(r);
      out.push_back(r);
    }
    return out;
  });
  EXPECT_EQ(started, 2);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(results[0].gpu_busy);
  ASSERT_EQ(results[0].gpu_busy->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(results[0].gpu_busy->devices[0].median_percent, 80);
  EXPECT_FALSE(results[1].gpu_busy);
  // No factory: the run as it is.
  const auto plain = engine::run_gpu_busy_sampled({}, {}, [](const engine::RunCallbacks&) {
    return std::vector<Result>{row("ort/linalg/matmul/fp16", "check", "dml:1")};
  });
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_FALSE(plain[0].gpu_busy);
}
