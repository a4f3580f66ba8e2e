// The Windows rules and the Windows section of the environment, on the report
// fixtures of tests/fixtures/windows/ (written from documented API behaviour,
// not recorded on real Windows: README there).
#include <gtest/gtest.h>

#include "core/kb_directml.hpp"
#include "core/report/console.hpp"
#include "core/report/html.hpp"
#include "core/report/markdown.hpp"
#include "core/report/windows_env.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

Report windows_fixture(const std::string& name) {
  return read_report_file(std::string(ACCEL_TEST_FIXTURES) + "/windows/" + name);
}

std::vector<Finding> windows_findings(const std::vector<Finding>& fs) { return with_id(fs, "windows."); }

TEST(WindowsRules, HealthyDesktopIsSilent) {
  const auto r = windows_fixture("windows-healthy.json");
  ASSERT_TRUE(r.context.environment.windows.has_value());
  const auto fs = run_rules(r);
  EXPECT_TRUE(windows_findings(fs).empty()) << ids(fs);
}

TEST(WindowsRules, LaptopProblemsFireWithTheRightAdvice) {
  const auto fs = run_rules(windows_fixture("windows-laptop-problems.json"));
  for (const char* id : {"windows.adapter0_integrated", "windows.power_saving", "windows.smart_app_control",
                         "windows.hsa_override_set", "windows.vc_runtime_missing",
                         "windows.openmp_runtime_missing", "windows.tdr_delay_short"}) {
    EXPECT_TRUE(has(fs, id)) << id << ": " << ids(fs);
  }
  EXPECT_FALSE(has(fs, "windows.remote_session")) << ids(fs);
  EXPECT_FALSE(has(fs, "windows.build_too_old_for_directml")) << ids(fs);
  for (const char* id : {"windows.hip_sdk_vs_wheel", "windows.directml_too_old_for_onnxruntime"})
    EXPECT_TRUE(has(fs, id)) << id << ": " << ids(fs);
  const auto igpu = with_id(fs, "windows.adapter0_integrated").at(0);
  EXPECT_EQ(to_string(igpu.severity), "warning");
  EXPECT_NE(igpu.fix.find("torch_directml.device(1)"), std::string::npos) << igpu.fix;
  EXPECT_NE(igpu.fix.find("'device_id': 1"), std::string::npos) << igpu.fix;
  EXPECT_NE(igpu.fix.find("0x00000000:0x0000d1a3"), std::string::npos) << igpu.fix;  // the dGPU's LUID
  const auto power = with_id(fs, "windows.power_saving").at(0);
  EXPECT_EQ(to_string(power.severity), "warning");
  for (const char* cause :
       {"battery saver", "EcoQoS", "Power saver", "best power efficiency", "battery (64%)"})
    EXPECT_NE(power.title.find(cause), std::string::npos) << cause << ": " << power.title;
  EXPECT_EQ(to_string(with_id(fs, "windows.smart_app_control").at(0).severity), "warning");
  const auto tdr = with_id(fs, "windows.tdr_delay_short").at(0);
  EXPECT_NE(tdr.title.find("ops/linalg/matmul/fp32"), std::string::npos) << tdr.title;
  EXPECT_NE(with_id(fs, "windows.vc_runtime_missing").at(0).title.find("vcruntime140_1.dll"),
            std::string::npos);
  // The conda python in efficiency mode (a running process's EcoQoS).
  EXPECT_NE(power.title.find("python (pid 4242"), std::string::npos) << power.title;
  // HIP SDK 6.2 beside a wheel built with HIP 6.4 that carries no runtime: it loads the SDK's.
  const auto hip = with_id(fs, "windows.hip_sdk_vs_wheel").at(0);
  EXPECT_EQ(to_string(hip.severity), "warning");
  EXPECT_NE(hip.title.find("HIP SDK is 6.2"), std::string::npos) << hip.title;
  EXPECT_NE(hip.title.find("HIP 6.4.43480"), std::string::npos) << hip.title;
  EXPECT_NE(hip.fix.find("HIP SDK 6.4"), std::string::npos) << hip.fix;
  // ONNX Runtime 1.20.1 with the DirectML provider, no DirectML.dll beside it, Windows 11 23H2
  // (in-box 1.8.0).
  const auto dml = with_id(fs, "windows.directml_too_old_for_onnxruntime").at(0);
  EXPECT_EQ(to_string(dml.severity), "warning");
  EXPECT_NE(dml.title.find("in-box DirectML 1.8.0, older than the 1.15.2"), std::string::npos) << dml.title;
  EXPECT_NE(dml.evidence.find("pull/22247"), std::string::npos) << "the kb row's source: " << dml.evidence;
  EXPECT_NE(dml.fix.find("Microsoft.AI.DirectML 1.15.2"), std::string::npos) << dml.fix;
}

TEST(WindowsRules, TheNewRulesStaySilentWhenTheStackIsConsistent) {
  auto r = windows_fixture("windows-laptop-problems.json");
  auto& w = *r.context.environment.windows;
  // The wheel carries its own HIP runtime: only an info (extensions would build against another HIP).
  w.torch_hip_runtime.push_back(
      {"amdhip64_6.dll", "C:\\Users\\user\\miniconda3\\Lib\\site-packages\\torch\\lib\\amdhip64_6.dll",
       "site-packages of C:\\Users\\user\\miniconda3\\python.exe", ""});
  auto fs = run_rules(r);
  EXPECT_EQ(to_string(with_id(fs, "windows.hip_sdk_vs_wheel").at(0).severity), "info") << ids(fs);
  // Same major.minor: silent.
  w.pythons[0].torch_hip_version = "6.2.41134-65d174c3e";
  // DirectML.dll beside onnxruntime.dll: silent; a CPU-only onnxruntime.dll: silent.
  w.directml.push_back({"DirectML.dll", "C:\\tools\\ort\\DirectML.dll", "PATH", "1.15.2.0"});
  fs = run_rules(r);
  EXPECT_FALSE(has(fs, "windows.hip_sdk_vs_wheel")) << ids(fs);
  EXPECT_FALSE(has(fs, "windows.directml_too_old_for_onnxruntime")) << ids(fs);
  w.directml.pop_back();
  w.onnxruntime_directml_ep.clear();
  EXPECT_FALSE(has(run_rules(r), "windows.directml_too_old_for_onnxruntime"));
  // An ONNX Runtime 1.10 needs DirectML 1.8.0, which Windows 11 22H2 and later carry.
  w.onnxruntime_directml_ep = {w.onnxruntime[0].path};
  w.onnxruntime[0].version = "1.10.0.0";
  EXPECT_FALSE(has(run_rules(r), "windows.directml_too_old_for_onnxruntime"));
  w.os_build = 22000;  // Windows 11 21H2: in-box 1.6.0
  EXPECT_TRUE(has(run_rules(r), "windows.directml_too_old_for_onnxruntime"));
}

TEST(WindowsRules, WorkMeasuredOnTheIntegratedGpu) {
  // torch-directml measured privateuseone:0, the iGPU: integrated_gpu_selected says so, with every index
  // of the discrete GPU from the one join; windows.adapter0_integrated (the same story) stays silent.
  const auto fs = run_rules(windows_fixture("windows-dml-igpu-measured.json"));
  const auto f = with_id(fs, "integrated_gpu_selected");
  ASSERT_EQ(f.size(), 1u) << ids(fs);
  EXPECT_FALSE(has(fs, "windows.adapter0_integrated")) << ids(fs);
  EXPECT_NE(f[0].fix.find("torch_directml.device(1)"), std::string::npos) << f[0].fix;
  EXPECT_NE(f[0].fix.find("'device_id': 1"), std::string::npos) << f[0].fix;
  EXPECT_NE(f[0].fix.find("LUID 0x00000000:0x0000d1a3"), std::string::npos) << f[0].fix;
  EXPECT_NE(f[0].fix.find("HIP"), std::string::npos) << f[0].fix;
}

TEST(WindowsRules, HsaAdviceAndExplainShareTheKbTable) {
  // windows.hsa_override_set names the HIP SDK's runtime-only targets from kb/arch.json, the table
  // explain's {windows_hip_sdk} reads: the same facts whichever door the user comes in by.
  const auto& kb = testing::rules_kb();
  const auto runtime_only = kb.windows_hip_sdk_targets("runtime");
  ASSERT_FALSE(runtime_only.empty());
  const auto fs = run_rules(windows_fixture("windows-laptop-problems.json"));
  const auto hsa = with_id(fs, "windows.hsa_override_set").at(0);
  for (const auto& t : runtime_only) EXPECT_NE(hsa.fix.find(t), std::string::npos) << t << ": " << hsa.fix;
  EXPECT_EQ(kb.windows_hip_sdk_level("gfx1032"), "runtime");
  MachineContext ctx;
  ctx.os = "windows";
  ctx.arch = "gfx1032";
  const auto ds = kb.explain(
      "rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\rocblas\\library\\"
      "TensileLibrary.dat: No such file or directory for GPU arch : gfx1032",
      ctx);
  ASSERT_FALSE(ds.empty());
  bool said_runtime_only = false;
  for (const auto& d : ds)
    said_runtime_only = said_runtime_only || d.cause.find("HIP runtime only") != std::string::npos;
  EXPECT_TRUE(said_runtime_only) << ds[0].id << ": " << ds[0].cause;
}

TEST(WindowsRules, DirectmlFactsOneTableForRulesAndExplain) {
  const auto& kb = testing::rules_kb();
  const auto& t = kb.directml_versions();
  ASSERT_FALSE(t.empty());
  EXPECT_EQ(t.inbox_for_build(22631)->directml, "1.8.0");
  EXPECT_EQ(t.inbox_for_build(19045)->directml, "1.1.0");
  EXPECT_EQ(t.inbox_for_build(17763), nullptr);
  EXPECT_EQ(t.for_onnxruntime("1.22.0")->directml, "1.15.2");  // the newest row below: a lower bound
  EXPECT_EQ(t.for_onnxruntime("1.18.1.0")->directml, "1.14.1");
  EXPECT_EQ(t.for_onnxruntime("1.6.0"), nullptr);
  EXPECT_EQ(t.for_onnxruntime("unknown"), nullptr);
  // explain --os windows renders the same in-box table into the DirectML provider's E_INVALIDARG fix.
  MachineContext ctx;
  ctx.os = "windows";
  const auto ds = kb.explain(
      "C:\\build\\ort-1.17.3\\onnxruntime\\onnxruntime\\core\\providers\\dml\\DmlExecutionProvider\\src\\"
      "DmlGraphFusionHelper.cpp(451)\\onnxruntime.dll!00007FFE11451461: (caller: 00007FFE114311D1) "
      "Exception(1) "
      "tid(ae54) 80070057 The parameter is incorrect. ",
      ctx);
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].id, "ort_dml_invalid_arg");
  EXPECT_NE(ds[0].fix.find(t.inbox_text()), std::string::npos) << ds[0].fix;
  EXPECT_NE(ds[0].fix.find("Windows 11 22H2 (build 22621): 1.8.0"), std::string::npos) << ds[0].fix;
  EXPECT_EQ(compare_dotted_versions("1.15.2", "1.8.0"), 1);
  EXPECT_EQ(compare_dotted_versions("1.20.1.0", "1.20"), 1);
  EXPECT_EQ(compare_dotted_versions("1.20", "1.20.0"), 0);
  EXPECT_EQ(compare_dotted_versions("1.9", "1.10"), -1);
}

TEST(WindowsRules, OldWindowsInRemoteDesktop) {
  const auto fs = run_rules(windows_fixture("windows10-rdp-old.json"));
  EXPECT_TRUE(has(fs, "windows.build_too_old_for_directml")) << ids(fs);
  EXPECT_EQ(to_string(with_id(fs, "windows.remote_session").at(0).severity), "warning") << ids(fs);
  EXPECT_TRUE(has(fs, "windows.tdr_delay_short")) << ids(fs);  // TdrDelay 1 s, below Windows' default
  EXPECT_FALSE(has(fs, "windows.adapter0_integrated")) << ids(fs);
  EXPECT_FALSE(has(fs, "windows.smart_app_control")) << ids(fs);
}

TEST(WindowsRules, VariationsOfTheHealthyFixture) {
  auto r = windows_fixture("windows-healthy.json");
  auto& w = *r.context.environment.windows;
  w.smart_app_control = "evaluation";
  w.power_source = "battery";
  auto fs = run_rules(r);
  EXPECT_EQ(to_string(with_id(fs, "windows.smart_app_control").at(0).severity), "info") << ids(fs);
  EXPECT_EQ(to_string(with_id(fs, "windows.power_saving").at(0).severity), "info")
      << ids(fs);  // battery alone
  // The power-saver plan already named by host.cpu_governor is cpu_power_saving's, not repeated here.
  w.power_source = "ac";
  w.power_scheme_guid = "a1841308-3541-4fab-bc81-f71556f20b4a";
  r.context.environment.host.cpu_governor = "Power saver";
  fs = run_rules(r);
  EXPECT_FALSE(has(fs, "windows.power_saving")) << ids(fs);
  // Without the Windows section (a Linux report) every windows.* rule is silent.
  r.context.environment.windows.reset();
  w.smart_app_control = "on";
  EXPECT_TRUE(windows_findings(run_rules(r)).empty());
}

TEST(WindowsEnvironment, JsonRoundTripKeepsEveryField) {
  const auto r = windows_fixture("windows-laptop-problems.json");
  const json j = r;
  const Report back = j.get<Report>();
  ASSERT_TRUE(back.context.environment.windows);
  const auto& w = *back.context.environment.windows;
  ASSERT_EQ(w.adapters.size(), 3u);
  EXPECT_EQ(w.adapters[1].luid, "0x00000000:0x0000d1a3");
  EXPECT_EQ(w.adapters[1].high_performance_index, 0);
  EXPECT_EQ(w.adapters[0].integrated, true);
  EXPECT_EQ(w.battery_saver, true);
  EXPECT_EQ(w.python_gpu_preference.at("C:\\Users\\user\\miniconda3\\python.exe"), "power saving");
  EXPECT_EQ(json(back), j);
  // A report without the section (Linux, or older reports) reads as absent.
  json linux_env = j;
  linux_env["context"]["environment"].erase("windows");
  EXPECT_FALSE(linux_env.get<Report>().context.environment.windows.has_value());
}

TEST(WindowsEnvironment, ShownInConsoleMarkdownAndHtml) {
  const auto r = windows_fixture("windows10-rdp-old.json");
  const auto rows = windows_env_rows(*r.context.environment.windows);
  ASSERT_FALSE(rows.empty());
  ConsoleStyle style;
  style.width = 200;
  const std::string text = render_environment(r.context.environment, style);
  for (const char* s :
       {"Windows: Adapters (DXGI)", "Microsoft Basic Render Driver", "LUID 0x00000000:0x0000e6f1", "SOFTWARE",
        "Windows: OS and power", "17763", "not collected: powrprof.dll has no", "Smart App Control",
        "not collected: VerifiedAndReputablePolicyState", "TDR delay", "1 s (registry TdrDelay)"}) {
    EXPECT_NE(text.find(s), std::string::npos) << s << "\n" << text;
  }
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("### Windows"), std::string::npos);
  EXPECT_NE(md.find("Microsoft Basic Render Driver"), std::string::npos);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<h3>Windows</h3>"), std::string::npos);
  EXPECT_NE(html.find("remote session"), std::string::npos);
  // No Windows section: nothing Windows in the console.
  Environment linux_env = r.context.environment;
  linux_env.windows.reset();
  EXPECT_EQ(render_environment(linux_env, style).find("Windows:"), std::string::npos);
}

}  // namespace
}  // namespace accel
