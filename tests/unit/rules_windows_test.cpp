// The Windows rules and the Windows section of the environment, on the report
// fixtures of tests/fixtures/windows/ (written from documented API behaviour,
// not recorded on real Windows: README there).
#include <gtest/gtest.h>

#include "core/report/console.hpp"
#include "core/report/html.hpp"
#include "core/report/markdown.hpp"
#include "core/report/windows_env.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

using testing::has;
using testing::ids;
using testing::run_rules;
using testing::with_id;

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
  const auto igpu = with_id(fs, "windows.adapter0_integrated").at(0);
  EXPECT_EQ(igpu.severity, "warning");
  EXPECT_NE(igpu.fix.find("torch_directml.device(1)"), std::string::npos) << igpu.fix;
  EXPECT_NE(igpu.fix.find("'device_id': 1"), std::string::npos) << igpu.fix;
  EXPECT_NE(igpu.fix.find("0x00000000:0x0000d1a3"), std::string::npos) << igpu.fix;  // the dGPU's LUID
  const auto power = with_id(fs, "windows.power_saving").at(0);
  EXPECT_EQ(power.severity, "warning");
  for (const char* cause :
       {"battery saver", "EcoQoS", "Power saver", "best power efficiency", "battery (64%)"})
    EXPECT_NE(power.title.find(cause), std::string::npos) << cause << ": " << power.title;
  EXPECT_EQ(with_id(fs, "windows.smart_app_control").at(0).severity, "warning");
  const auto tdr = with_id(fs, "windows.tdr_delay_short").at(0);
  EXPECT_NE(tdr.title.find("ops/linalg/matmul/fp32"), std::string::npos) << tdr.title;
  EXPECT_NE(with_id(fs, "windows.vc_runtime_missing").at(0).title.find("vcruntime140_1.dll"),
            std::string::npos);
}

TEST(WindowsRules, OldWindowsInRemoteDesktop) {
  const auto fs = run_rules(windows_fixture("windows10-rdp-old.json"));
  EXPECT_TRUE(has(fs, "windows.build_too_old_for_directml")) << ids(fs);
  EXPECT_EQ(with_id(fs, "windows.remote_session").at(0).severity, "warning") << ids(fs);
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
  EXPECT_EQ(with_id(fs, "windows.smart_app_control").at(0).severity, "info") << ids(fs);
  EXPECT_EQ(with_id(fs, "windows.power_saving").at(0).severity, "info") << ids(fs);  // battery alone
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
