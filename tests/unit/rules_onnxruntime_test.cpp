// The ONNX Runtime rules (src/core/rules/rules_onnxruntime.cpp) on the
// fixtures of tests/fixtures/reports/make_ort_fixtures.py: each fires on the
// problems fixture and stays silent on the healthy ones.
#include <gtest/gtest.h>

#include "rules_test_util.hpp"

namespace {

using namespace accel;
using namespace accel::testing;

const char* kOrtRules[] = {"ort_cpu_fallback",    "ort_dtype_unsupported", "ort_opset_unsupported",
                           "ort_igpu_measured",   "ort_two_packages",      "ort_directml_dll_old",
                           "ort_no_gpu_provider", "ort_fp16_faster"};

TEST(RulesOrt, EveryRuleIsListed) {
  std::string all;
  for (const auto& r : list_rules()) all += r.id + " ";
  for (const char* id : kOrtRules) EXPECT_NE(all.find(std::string(id) + " "), std::string::npos) << id;
}

TEST(RulesOrt, ProblemsFixtureFiresItsRules) {
  const auto fs = run_rules(load_report("ort-dml-igpu-problems.json"));
  for (const char* id : {"ort_cpu_fallback", "ort_dtype_unsupported", "ort_opset_unsupported",
                         "ort_igpu_measured", "ort_directml_dll_old", "ort_fp16_faster"}) {
    EXPECT_TRUE(has(fs, id)) << id << " missing from " << ids(fs);
  }
  EXPECT_FALSE(has(fs, "ort_two_packages")) << ids(fs);
  EXPECT_FALSE(has(fs, "ort_no_gpu_provider")) << ids(fs);
  // The generic torch rule leaves ORT rows to the ORT one (one finding, not two).
  EXPECT_FALSE(has(fs, "cpu_fallback")) << ids(fs);

  const Finding fb = with_id(fs, "ort_cpu_fallback").front();
  EXPECT_EQ(to_string(fb.severity), "warning");
  EXPECT_NE(fb.title.find("3 ONNX Runtime checks"), std::string::npos) << fb.title;
  EXPECT_NE(fb.evidence.find("TopK"), std::string::npos) << fb.evidence;
  EXPECT_NE(fb.evidence.find("Attention"), std::string::npos) << fb.evidence;
  EXPECT_NE(fb.evidence.find("8 Memcpy nodes"), std::string::npos) << fb.evidence;
  EXPECT_NE(fb.fix.find("session.disable_cpu_ep_fallback=1"), std::string::npos);

  const Finding dt = with_id(fs, "ort_dtype_unsupported").front();
  EXPECT_NE(dt.evidence.find("ort/norm/layernorm/fp16"), std::string::npos) << dt.evidence;
  EXPECT_EQ(dt.evidence.find("topk"), std::string::npos)
      << "topk falls back in fp32 too: not a dtype problem";
  const Finding op = with_id(fs, "ort_opset_unsupported").front();
  EXPECT_NE(op.evidence.find("attention_onnx/fp32 (opset 23)"), std::string::npos) << op.evidence;

  const Finding ig = with_id(fs, "ort_igpu_measured").front();
  EXPECT_NE(ig.title.find("780M"), std::string::npos) << ig.title;
  EXPECT_NE(ig.fix.find("'device_id': 1"), std::string::npos) << ig.fix;
  const Finding dll = with_id(fs, "ort_directml_dll_old").front();
  EXPECT_EQ(to_string(dll.severity), "critical");
  EXPECT_NE(dll.title.find("1.8.2309.0"), std::string::npos) << dll.title;
  const Finding f16 = with_id(fs, "ort_fp16_faster").front();
  EXPECT_EQ(to_string(f16.severity), "info");
  EXPECT_NE(f16.evidence.find("ort/linalg/matmul 2.5"), std::string::npos) << f16.evidence;
}

TEST(RulesOrt, TwoPackagesHideTheDirectMlProvider) {
  const auto fs = run_rules(load_report("ort-two-packages-cpu-only.json"));
  ASSERT_TRUE(has(fs, "ort_two_packages")) << ids(fs);
  const Finding f = with_id(fs, "ort_two_packages").front();
  EXPECT_EQ(to_string(f.severity), "critical");
  EXPECT_NE(f.title.find("DirectML provider is missing"), std::string::npos) << f.title;
  EXPECT_NE(f.fix.find("pip uninstall -y onnxruntime onnxruntime-directml"), std::string::npos) << f.fix;
  ASSERT_TRUE(has(fs, "ort_no_gpu_provider")) << ids(fs);
  EXPECT_NE(with_id(fs, "ort_no_gpu_provider").front().evidence.find("RX 6650 XT"), std::string::npos);
}

TEST(RulesOrt, TwoPackagesWithTheProviderPresentIsAWarning) {
  Report r = load_report("ort-two-packages-cpu-only.json");
  auto& info = *r.context.environment.onnxruntime;
  info.providers = {"DmlExecutionProvider", "CPUExecutionProvider"};
  const auto fs = run_rules(r);
  ASSERT_TRUE(has(fs, "ort_two_packages"));
  EXPECT_EQ(to_string(with_id(fs, "ort_two_packages").front().severity), "warning");
  // Only one package: silent.
  info.python_packages = {"onnxruntime-directml 1.19.2", "onnxruntime-tools 1.7.0"};
  EXPECT_FALSE(has(run_rules(r), "ort_two_packages"));
}

TEST(RulesOrt, HealthyFixturesStaySilent) {
  for (const char* name : {"ort-dml-healthy.json", "h200-healthy.json", "cpu-reference-blas.json"}) {
    const auto fs = run_rules(load_report(name));
    for (const char* id : kOrtRules) EXPECT_FALSE(has(fs, id)) << name << ": " << id << " in " << ids(fs);
  }
}

TEST(RulesOrt, NewDirectMlInSystem32IsFine) {
  Report r = load_report("ort-dml-igpu-problems.json");
  r.context.environment.windows->directml.front().version = "1.15.4.0";
  EXPECT_FALSE(has(run_rules(r), "ort_directml_dll_old"));
}

}  // namespace

namespace {
// A copy the Windows probes listed is judged by windows.directml_too_old_for_onnxruntime
// (per ONNX Runtime release); this rule then stays silent: one problem, one finding.
TEST(RulesOrt, LeavesACopyTheWindowsProbesListedToTheWindowsRule) {
  Report r = load_report("ort-dml-igpu-problems.json");
  auto& w = *r.context.environment.windows;
  WindowsFile listed;
  listed.path = r.context.environment.onnxruntime->library;
  w.onnxruntime.push_back(listed);
  EXPECT_FALSE(has(run_rules(r), "ort_directml_dll_old"));
}
}  // namespace
