// The reporters on an ONNX Runtime report: the environment.onnxruntime
// section (core/report/onnxruntime_env.hpp) in Markdown, HTML and the
// console, and the ort-* check categories beside the torch ones.
#include <gtest/gtest.h>

#include "core/report/console.hpp"
#include "core/report/html.hpp"
#include "core/report/markdown.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "rules_test_util.hpp"

namespace {

using namespace accel;
using namespace accel::testing;

TEST(OrtReport, EnvironmentRows) {
  const Report r = load_report("ort-dml-healthy.json");
  const auto rows = onnxruntime_env_rows(*r.context.environment.onnxruntime);
  std::string all;
  for (const auto& row : rows) all += row.group + "|" + row.label + "|" + row.value + "\n";
  EXPECT_NE(all.find("Runtime|version|1.22.1 (OrtApi 22)"), std::string::npos) << all;
  EXPECT_NE(all.find("EP devices|DmlExecutionProvider|AMD Radeon RX 6650 XT (gpu, discrete, DXGI 0"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("LUID 0x00000000:0x0000d1a3"), std::string::npos) << all;
  EXPECT_NE(all.find("Measured|dml:0|the discrete GPU"), std::string::npos) << all;
  EXPECT_NE(all.find("DirectML.dll|C:\\Users\\user\\app\\DirectML.dll"), std::string::npos) << all;
}

TEST(OrtReport, MarkdownHtmlAndConsoleShowTheSectionAndTheRows) {
  const Report r = load_report("ort-dml-healthy.json");
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("### ONNX Runtime"), std::string::npos);
  EXPECT_NE(md.find("DmlExecutionProvider"), std::string::npos);
  const std::string html = render_html(r);
  EXPECT_NE(html.find("<h3>ONNX Runtime</h3>"), std::string::npos);
  EXPECT_NE(html.find("ort-linalg"), std::string::npos) << "the check matrix has the ORT category";
  ConsoleStyle style;
  style.color = false;
  const std::string env = render_environment(r.context.environment, style);
  EXPECT_NE(env.find("ONNX Runtime: EP devices"), std::string::npos) << env;
  EXPECT_NE(render_checks_table(r.results, style).find("[ort-linalg]"), std::string::npos);
}

TEST(OrtReport, ReportsWithoutTheSectionHaveNone) {
  const Report r = load_report("h200-healthy.json");
  EXPECT_EQ(render_markdown(r).find("### ONNX Runtime"), std::string::npos);
}

}  // namespace
