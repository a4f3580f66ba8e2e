// gpu_busy.low on report fixtures (tests/fixtures/reports/h200-gpu-busy-*.json,
// written by make_fixtures.py): it fires when device workloads kept the GPU
// mostly idle, and stays silent on healthy, too-short and CPU rows.
#include <gtest/gtest.h>

#include <optional>

#include "core/report/console.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/report/html.hpp"
#include "core/report/markdown.hpp"
#include "rules_test_util.hpp"

using namespace accel;
using namespace accel::testing;

TEST(RulesGpuBusy, FiresWhenWorkloadsLeaveTheGpuIdle) {
  const auto fs = run_rules(load_report("h200-gpu-busy-low.json"));
  const Finding f = only(fs, "gpu_busy.low");
  EXPECT_EQ(to_string(f.severity),
            "warning");  // 2 of the 3 judged workloads (not the decode row: its profiler measured)
  EXPECT_TRUE(mentions(f, "2 of 3 device workloads")) << f.title;
  EXPECT_TRUE(mentions(f, "train/cuda/mlp/fp32/b64: NVIDIA H200 median 9%")) << f.evidence;
  EXPECT_TRUE(mentions(f, "train/cuda/cnn/bf16/b256")) << f.evidence;
  EXPECT_FALSE(mentions(f, "llm/cuda")) << "decode kept the GPU busy";
  EXPECT_TRUE(mentions(f, "NVML")) << "the source is named";
}

// A row with the profiler's device-idle figure (an eager or graph decode) is
// judged by that figure (the launch-bound rule), never by the sampler's,
// which also covers the item's warm-up and graph capture.
TEST(RulesGpuBusy, LeavesRowsWithTheProfilersFigureToIt) {
  Report r = load_report("h200-gpu-busy-low.json");
  std::optional<GpuBusy> idle;
  for (const auto& row : r.results) {
    if (row.key == "train/cuda/mlp/fp32/b64") idle = row.gpu_busy;
  }
  ASSERT_TRUE(idle);
  for (auto& row : r.results) {
    if (row.key == "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d128/graph") {
      row.gpu_busy = idle;
      row.metrics["device_idle_fraction"] = 0.13;
    }
  }
  const Finding f = only(run_rules(r), "gpu_busy.low");
  EXPECT_TRUE(mentions(f, "2 of 2 device workloads")) << f.title;
  EXPECT_FALSE(mentions(f, "llm/cuda")) << f.evidence;
}

TEST(RulesGpuBusy, OneLowWorkloadAmongManyIsInfo) {
  Report r = load_report("h200-gpu-busy-low.json");
  const Report healthy = load_report("h200-gpu-busy-healthy.json");
  const std::string cnn = "train/cuda/cnn/bf16/b256";
  for (auto& row : r.results) {
    if (row.key != cnn) continue;
    for (const auto& h : healthy.results) {
      if (h.key == cnn) row.gpu_busy = h.gpu_busy;
    }
  }
  const Finding f = only(run_rules(r), "gpu_busy.low");
  EXPECT_EQ(to_string(f.severity), "info");
  EXPECT_TRUE(mentions(f, "1 of 3 device workloads")) << f.title;
}

TEST(RulesGpuBusy, SilentOnHealthyShortAndUnsampledRuns) {
  EXPECT_FALSE(has(run_rules(load_report("h200-gpu-busy-healthy.json")), "gpu_busy.low"));
  EXPECT_FALSE(has(run_rules(load_report("h200-healthy.json")), "gpu_busy.low"));  // nothing sampled
  // A failed item, an LLM correctness row and a sweep are not judged, however idle.
  Report r = load_report("h200-gpu-busy-low.json");
  for (auto& row : r.results) {
    if (row.key == "train/cuda/mlp/fp32/b64") row.status = Status::error;
    if (row.key == "train/cuda/cnn/bf16/b256") row.evidence["curve"] = json::array();
  }
  EXPECT_FALSE(has(run_rules(r), "gpu_busy.low"));
}

TEST(GpuBusyReport, TerminalMarkdownAndHtmlShowTheSameRows) {
  const Report r = load_report("h200-gpu-busy-low.json");
  const auto rows = gpu_busy_rows(r.results);
  ASSERT_EQ(rows.size(), 4u);  // 2 llm + 2 train device rows; not the CPU row
  EXPECT_EQ(rows[2].key, "train/cuda/cnn/bf16/b256");
  EXPECT_EQ(rows[2].busy, "median 16% (max 30%)");
  EXPECT_EQ(rows[2].samples, "8 x 100 ms");
  EXPECT_TRUE(rows[2].low);
  EXPECT_EQ(rows[3].engines, "gpu 9/14%, memory 5/8%");
  ConsoleStyle style;
  const std::string text = render_train_table(r.results, style);
  EXPECT_NE(text.find("GPU busy while measuring"), std::string::npos) << text;
  EXPECT_NE(text.find("train/cuda/cnn/bf16/b256: median 16% (max 30%) on NVIDIA H200 (pci:0000:00:06.0)"),
            std::string::npos)
      << text;
  const std::string llm = render_llm_table(r.results, style);
  EXPECT_NE(llm.find("llm/cuda/llama-3.2-1b/bf16/b1/tg128@d128: median 92"), std::string::npos) << llm;
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("### GPU busy while measuring"), std::string::npos);
  EXPECT_NE(md.find("**median 16% (max 30%)**"), std::string::npos);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<section id=\"gpu-busy\">"), std::string::npos);
  EXPECT_NE(html.find("<polyline"), std::string::npos);
  // Short rows say so instead of a verdict.
  const auto healthy = gpu_busy_rows(load_report("h200-gpu-busy-healthy.json").results);
  ASSERT_EQ(healthy.size(), 4u);
  EXPECT_NE(healthy[3].note.find("too short to judge"), std::string::npos);
  // Rows not sampled for one reason say it once.
  Report blind = load_report("h200-gpu-busy-low.json");
  for (auto& row : blind.results) {
    if (!row.gpu_busy) continue;
    row.gpu_busy = GpuBusy{};
    row.gpu_busy->not_measured = "not sampled: NVML: libnvidia-ml.so.1 not found";
  }
  const std::string blind_text = render_train_table(blind.results, style);
  EXPECT_NE(blind_text.find("2 rows: not sampled: NVML: libnvidia-ml.so.1 not found"), std::string::npos)
      << blind_text;
  // A report without samples has no section.
  EXPECT_EQ(render_markdown(load_report("h200-healthy.json")).find("GPU busy"), std::string::npos);
}
