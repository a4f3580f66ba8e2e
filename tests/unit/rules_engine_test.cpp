// The rules engine: ranking, the verdict line, what needs attention, the
// healthy baseline, kb/rules.json, and odd evidence.
#include <gtest/gtest.h>

#include <set>

#include "core/report/findings.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

TEST(RulesEngine, HealthyH200HasNoWarnings) {
  const Report r = load_report("h200-healthy.json");
  const auto fs = run_rules(r);
  for (const auto& f : fs) EXPECT_EQ(to_string(f.severity), "info") << f.id << ": " << f.title;
  EXPECT_FALSE(needs_attention(r, fs));
  const std::string v = verdict_line(r, fs);
  EXPECT_EQ(v.rfind("cuda:0 (NVIDIA H200) does the work: 6/6 checks ran on the device", 0), 0u) << v;
  EXPECT_NE(v.find("fp16 GEMM at 74% of peak"), std::string::npos) << v;
  EXPECT_NE(v.find("no problems found"), std::string::npos) << v;
}

// The default runs recorded in docs/validation/ are the real baselines: on
// the H200 nothing above a tip; on the CI-like
// CPU container only the known exceptions of Debian's torch 1.13 (netlib
// reference BLAS; its fp16/bf16 CPU kernels that fail or lose accuracy).
Report validation_report(const std::string& rel) {
  return read_report_file(std::string(ACCEL_KB_DIR) + "/../docs/validation/" + rel);
}

TEST(RulesEngine, RecordedH200DefaultRunIsHealthy) {
  const Report r = validation_report("2026-11-30-h200/doctor.json");
  const auto fs = run_rules(r);
  for (const auto& f : fs) EXPECT_EQ(to_string(f.severity), "info") << f.id << ": " << f.title;
  EXPECT_FALSE(needs_attention(r, fs));
  // Eager batch-1 decode is launch-bound: a tip, with the graph-replay gain measured in the run.
  ASSERT_TRUE(has(fs, "launch_bound_decode")) << ids(fs);
  for (const auto& f : fs) {
    if (f.id == "launch_bound_decode")
      EXPECT_NE(f.evidence.find("graph replay"), std::string::npos) << f.evidence;
  }
  const std::string v = verdict_line(r, fs);
  EXPECT_EQ(v.rfind("cuda:0 (NVIDIA H200) does the work", 0), 0u) << v;
}

TEST(RulesEngine, RecordedCpuDefaultRunFlagsOnlyTheKnownExceptions) {
  const Report r = validation_report("2026-11-30-cpu/doctor.json");
  const auto fs = run_rules(r);
  const std::set<std::string> known{"cpu_blas_reference", "op_errors", "wrong_results",
                                    "thread_undersubscription"};  // torch 1.13 takes 1 thread on the 2 vCPUs
  bool blas = false;
  for (const auto& f : fs) {
    if (f.id == "cpu_blas_reference") blas = true;
    if (to_string(f.severity) == "info") continue;
    EXPECT_TRUE(known.count(f.id)) << f.id << " (" << to_string(f.severity) << "): " << f.title;
  }
  EXPECT_TRUE(blas);
}

TEST(RulesEngine, RecordedH200RunsUnderHarmfulSettingsNameTheSetting) {
  // Issue 18: the default run on the H200 under single-setting changes
  // (docs/validation/2026-12-01-h200); the unchanged run stays healthy.
  const Report base = validation_report("2026-12-01-h200/doctor-baseline.json");
  for (const auto& f : run_rules(base)) EXPECT_EQ(to_string(f.severity), "info") << f.id << ": " << f.title;
  struct Case {
    const char* file;
    const char* finding;
    const char* names;
  };
  for (const Case& c :
       {Case{"doctor-omp_1.json", "thread_undersubscription", "OMP_NUM_THREADS=1"},
        Case{"doctor-taskset_2.json", "host_cpu_limited", "affinity 0-1"},
        Case{"doctor-cublas_ws_0.json", "setting_breaks_checks", "CUBLAS_WORKSPACE_CONFIG=:0:0"},
        Case{"doctor-alloc_bad.json", "setting_breaks_checks", "PYTORCH_CUDA_ALLOC_CONF"}}) {
    const Report r = validation_report(std::string("2026-12-01-h200/") + c.file);
    const auto fs = run_rules(r);
    const auto named = with_id(fs, c.finding);
    ASSERT_EQ(named.size(), 1u) << c.file << ": " << ids(fs);
    EXPECT_NE(to_string(named.front().severity), "info") << c.file;
    const Finding& f = named.front();
    EXPECT_NE((f.title + " " + f.evidence + " " + f.fix).find(c.names), std::string::npos)
        << c.file << ": " << f.title << " | " << f.evidence;
    EXPECT_TRUE(needs_attention(r, fs)) << c.file;
    for (const auto& g : fs) {
      EXPECT_EQ(g.title.find("does not support this dtype"), std::string::npos) << c.file << ": " << g.title;
    }
  }
}

TEST(RulesEngine, RankedByImpactThenSeverity) {
  const auto fs = run_rules(load_report("h200-slow.json"));
  ASSERT_GT(fs.size(), 5u);
  for (std::size_t i = 1; i < fs.size(); ++i) {
    EXPECT_GE(fs[i - 1].impact, fs[i].impact) << ids(fs);
    if (fs[i - 1].impact == fs[i].impact) {
      EXPECT_LE(severity_rank(fs[i - 1].severity), severity_rank(fs[i].severity));
    }
  }
  for (const auto& f : fs) {
    EXPECT_FALSE(f.title.empty()) << f.id;
    EXPECT_FALSE(f.evidence.empty()) << f.id;
    EXPECT_FALSE(f.fix.empty()) << f.id;
    EXPECT_FALSE(f.reference.empty()) << f.id;
    EXPECT_LT(severity_rank(f.severity), 3) << f.id;
  }
}

TEST(RulesEngine, VerdictWhenTorchIsCpuOnly) {
  const Report r = load_report("rtx4090-cpu-only-torch.json");
  const auto fs = run_rules(r);
  const std::string v = verdict_line(r, fs);
  EXPECT_EQ(
      v.rfind("the GPU is not used: torch is a CPU-only build and NVIDIA GeForce RTX 4090 is in the machine",
              0),
      0u)
      << v;
  EXPECT_TRUE(needs_attention(r, fs));
}

TEST(RulesEngine, VerdictOnTheRecordedCpuRun) {
  const Report r = load_report("cpu-reference-blas.json");
  const auto fs = run_rules(r);
  const std::string v = verdict_line(r, fs);
  EXPECT_EQ(v.rfind("the CPU does the work (no GPU found): ", 0), 0u) << v;
  EXPECT_NE(v.find("checks ok"), std::string::npos) << v;
  EXPECT_NE(v.find("GFLOP/s"), std::string::npos) << v;
  EXPECT_NE(v.find("critical"), std::string::npos) << v;
}

TEST(RulesEngine, VerdictNamesTheIntegratedGpu) {
  const Report r = load_report("laptop-igpu-selected.json");
  const std::string v = verdict_line(r, run_rules(r));
  EXPECT_NE(v.find("an integrated GPU, does the work while a discrete GPU idles"), std::string::npos) << v;
}

TEST(RulesEngine, VerdictWhenTheGpuIsHidden) {
  const Report r = load_report("nvidia-hidden-by-env.json");
  const std::string v = verdict_line(r, run_rules(r));
  EXPECT_EQ(v.rfind("the GPU is not used: the GPU is hidden: CUDA_VISIBLE_DEVICES=\"-1\"", 0), 0u) << v;
}

TEST(RulesEngine, FailedChecksNeedAttentionEvenWithoutFindings) {
  Report r = load_report("h200-healthy.json");
  r.results.front().status = Status::mismatch;
  EXPECT_TRUE(needs_attention(r, {}));
}

TEST(RulesEngine, EmptyAndOddReportsDoNotThrow) {
  Report empty;
  std::vector<Finding> fs;
  EXPECT_NO_THROW(fs = run_rules(empty));
  EXPECT_TRUE(fs.empty()) << ids(fs);
  EXPECT_NO_THROW(verdict_line(empty, fs));
  // Odd values: NaN metrics, negative medians, garbage keys and env values.
  Report odd = load_report("h200-slow.json");
  for (auto& r : odd.results) {
    r.metrics["tflops"] = std::nan("");
    r.key = r.key + "/b/x";
    if (r.timing) r.timing->median_us = -1;
  }
  odd.context.environment.env_vars.push_back(
      testing::env_var("CUDA_VISIBLE_DEVICES", "99999999999999999999"));
  odd.context.environment.devices.front().arch = "sm_";
  EXPECT_NO_THROW(run_rules(odd));
  // Without the kb the arch-dependent rules stay silent instead of guessing.
  EXPECT_NO_THROW(diagnose(load_report("rx6600-linux-no-override.json"), DiagnoseOptions{}));
}

TEST(RulesEngine, RuleDataFromTheRepository) {
  const RuleData& d = testing::rules_data();
  EXPECT_GE(d.slow_env_vars.size(), 10u);
  EXPECT_NE(std::find(d.bf16_emulated_gfx_families.begin(), d.bf16_emulated_gfx_families.end(), "rdna2"),
            d.bf16_emulated_gfx_families.end());
  EXPECT_EQ(d.bf16_min_sm, 80);
}

TEST(RulesEngine, RuleDataErrorsNameTheEntry) {
  try {
    RuleData::parse(R"({"slow_env_vars": [{"name": "X", "match": "(", "why": "w"}]})", "rules.json");
    FAIL() << "expected RuleDataError";
  } catch (const RuleDataError& e) {
    EXPECT_NE(std::string(e.what()).find("slow_env_vars[0] (X)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(RuleData::parse("{", "rules.json"), RuleDataError);
  EXPECT_THROW(RuleData::parse(R"({"slow_env_vars": [{"name": "X"}]})", "rules.json"), RuleDataError);
  EXPECT_THROW(
      RuleData::parse(R"({"slow_env_vars": [{"name": "X", "match": "1", "why": "w", "severity": "bad"}]})",
                      "rules.json"),
      RuleDataError);
  EXPECT_NO_THROW(RuleData::load("/nonexistent/kb"));  // no file: defaults
}

TEST(RulesEngine, ListRulesHasEveryRule) {
  std::set<std::string> ids;
  for (const auto& r : list_rules()) {
    EXPECT_FALSE(r.triggers.empty()) << r.id;
    ids.insert(r.id);
  }
  for (const char* id : {"no_accelerator.cpu_only_torch", "hsa_override.*", "cpu_blas_reference", "autocast",
                         "launch_bound_decode", "noisy_results", "above_peak", "slow_setting"}) {
    EXPECT_TRUE(ids.count(id)) << id;
  }
}

TEST(RulesEngine, RenderedFindingsCarryEveryPart) {
  const auto fs = run_rules(load_report("cpu-reference-blas.json"));
  ConsoleStyle style;
  style.width = 100;
  const std::string text = render_findings(fs, style);
  EXPECT_NE(text.find("1. CRITICAL"), std::string::npos) << text;
  EXPECT_NE(text.find("evidence"), std::string::npos);
  EXPECT_NE(text.find("libopenblas0-pthread"), std::string::npos);
  EXPECT_EQ(text.find("\033["), std::string::npos);  // no colour without a TTY
  for (std::size_t start = 0, nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    std::size_t cols = 0;
    for (std::size_t i = start; i < nl; ++i) cols += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    // Words longer than a line (paths) may overflow; ordinary lines wrap.
    if (text.substr(start, nl - start).find('/') == std::string::npos)
      EXPECT_LE(cols, 100u) << text.substr(start, nl - start);
  }
  style.color = true;
  EXPECT_NE(render_findings(fs, style).find("\033[1;31m"), std::string::npos);
  EXPECT_NE(render_findings({}, style).find("none"), std::string::npos);
}

}  // namespace
}  // namespace accel
