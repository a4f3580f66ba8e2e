// --redact: no secret of a fixture survives in the JSON report, the findings,
// the verdict or any terminal text, and ordinary text is left alone.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/redact.hpp"
#include "core/report/console.hpp"
#include "core/report/findings.hpp"
#include "core/report/json_report.hpp"
#include "rules_test_util.hpp"

namespace accel {
namespace {

// Every identifying value planted in h200-with-secrets.json (see make_fixtures.py).
const std::vector<std::string> kSecrets = {
    "gpu-node-17", "corp.example.com",  "alice", "e50bae73-e5ff-aff4-2fb5-39916598e578", "1653724055615",
    "10.42.0.17",  "52:54:00:12:34:56",
};

void expect_clean(const std::string& text, const std::string& what) {
  for (const auto& s : kSecrets) {
    EXPECT_EQ(text.find(s), std::string::npos) << what << " still contains '" << s << "'";
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Redact, FixtureReallyHoldsTheSecrets) {
  // Guards the test itself: the unredacted outputs do contain every secret.
  const std::string raw = read_file(testing::report_fixture_path("h200-with-secrets.json"));
  for (const auto& s : kSecrets) EXPECT_NE(raw.find(s), std::string::npos) << s;
}

TEST(Redact, JsonReportHasNoSecrets) {
  const Report r = load_report("h200-with-secrets.json");
  const Report red = redact_report(r);
  const std::string text = report_to_json_text(red);
  expect_clean(text, "JSON report");
  EXPECT_NE(text.find("/home/<user>/runs/h200.json"), std::string::npos);  // paths keep their shape
  EXPECT_NE(text.find("GPU-<uuid>"), std::string::npos);
  EXPECT_NE(text.find("\"hostname\": \"<host>\""), std::string::npos);
  EXPECT_NE(text.find("<ip>"), std::string::npos);
  // The redacted report is still a valid report that reads back.
  EXPECT_NO_THROW((void)parse_report(text, "redacted"));
  EXPECT_EQ(red.results.size(), r.results.size());
}

TEST(Redact, TerminalOutputHasNoSecrets) {
  const Report r = load_report("h200-with-secrets.json");
  RedactSecrets secrets;
  secrets.add_from_report(r);
  ConsoleStyle style;
  std::string text = render_environment(r.context.environment, style);
  text += render_checks_table(r.results, style);
  text += render_check_problems(r.results, style);
  const auto findings = testing::run_rules(r);
  text += render_findings(findings, style);
  text += render_verdict(verdict_line(r, findings), true, style);
  text += render_findings(r.findings, style);
  // The unredacted terminal text shows the secrets ...
  EXPECT_NE(text.find("gpu-node-17"), std::string::npos);
  EXPECT_NE(text.find("alice"), std::string::npos);
  // ... and redact_text removes every one.
  expect_clean(redact_text(text, secrets), "terminal text");
  // Rendering an already redacted report is clean too.
  const Report red = redact_report(r);
  std::string again = render_environment(red.context.environment, style) +
                      render_check_problems(red.results, style) + render_findings(red.findings, style);
  expect_clean(again, "terminal text of the redacted report");
}

TEST(Redact, NvidiaSmiTextHasNoSerialOrUuid) {
  // Recorded on the H200 machine.
  const std::string raw = read_file(std::string(ACCEL_TEST_FIXTURES) + "/h200/nvidia-smi-q.txt");
  ASSERT_NE(raw.find("1653724055615"), std::string::npos);
  const std::string red = redact_text(raw, RedactSecrets{});
  EXPECT_EQ(red.find("1653724055615"), std::string::npos);
  EXPECT_EQ(red.find("e50bae73-e5ff-aff4-2fb5-39916598e578"), std::string::npos);
  EXPECT_EQ(red.find("0x24a774eb87dafa78"), std::string::npos);  // GPU PDI
  EXPECT_NE(red.find("Driver Version                                         : 580.159.04"),
            std::string::npos);
  EXPECT_NE(red.find("Product Name                                       : NVIDIA H200"), std::string::npos);
}

TEST(Redact, PatternsAndWhatTheyLeaveAlone) {
  RedactSecrets s;
  s.hostnames = {"build-box"};
  s.users = {"bob"};
  EXPECT_EQ(redact_text("/home/carol/x and /Users/dave/y and C:\\Users\\erin\\z and C:/Users/fay/w", s),
            "/home/<user>/x and /Users/<user>/y and C:\\Users\\<user>\\z and C:/Users/<user>/w");
  EXPECT_EQ(redact_text("JSON \"C:\\\\Users\\\\erin\\\\z\"", s), "JSON \"C:\\\\Users\\\\<user>\\\\z\"");
  EXPECT_EQ(redact_text("bob@build-box.lan: ssh bob", s), "<user>@<host>.lan: ssh <user>");
  EXPECT_EQ(redact_text("bobby and jobbob stay", s), "bobby and jobbob stay");
  EXPECT_EQ(redact_text("peer 192.168.1.20:29500, mac AA:BB:CC:DD:EE:FF, v6 fe80::1c2b:3cff:fe4d:5e6f", s),
            "peer <ip>:29500, mac <mac>, v6 <ip>");
  // A GPU word earlier in the line does not make an address a version.
  EXPECT_EQ(redact_text("NCCL_COMM_ID=192.168.1.77:29500", s), "NCCL_COMM_ID=<ip>:29500");
  EXPECT_EQ(redact_text("torch.cuda.OutOfMemoryError: CUDA out of memory on host 192.168.5.20", s),
            "torch.cuda.OutOfMemoryError: CUDA out of memory on host <ip>");
  EXPECT_EQ(redact_text("device 123e4567-e89b-12d3-a456-426614174000", s), "device <uuid>");
  EXPECT_EQ(redact_text("Serial Number : 0324018071234, serial numbers are private", s),
            "Serial Number : <serial>, serial numbers are private");
  // Versions, times, PCI addresses and C++ scopes are not addresses.
  const std::string keep =
      "cuDNN version 9.1.0.70, driver 580.159.04, torch 2.11.0, at 21:12:17, PCI 0000:00:06.0, c10::Error, "
      "at::Tensor, std::vector, 1.2.3.4.5, v1.2.3.4, ratio 1:2";
  EXPECT_EQ(redact_text(keep, s), keep);
  // Idempotent.
  const std::string once = redact_text("/home/carol 10.0.0.1 GPU-123e4567-e89b-12d3-a456-426614174000", s);
  EXPECT_EQ(redact_text(once, s), once);
}

TEST(Redact, UsersFoundInReportPathsAreRemovedEverywhere) {
  Report r = load_report("h200-healthy.json");
  r.context.argv = {"/home/zed/bin/accel-doctor"};
  r.results.front().reason = "zed's run";
  const Report red = redact_report(r);
  EXPECT_EQ(red.results.front().reason, "<user>'s run");
  EXPECT_EQ(red.context.argv.front(), "/home/<user>/bin/accel-doctor");
  // Profile folder names that are not users are not treated as user names.
  RedactSecrets s;
  s.add_users_from_text("C:\\Users\\Public\\x /Users/Shared/y /home/<user>/z");
  EXPECT_TRUE(s.users.empty());
}

TEST(Redact, IdentifyingJsonKeysAreReplacedWhole) {
  const json j = json::parse(
      R"({"nvml": {"serial": 1653724055615, "uuid": "GPU-x", "board_serial": "N/A", "name": "NVIDIA H200"},
          "host": {"hostname": "n1"}})");
  const json red = redact_json(j, RedactSecrets{});
  EXPECT_EQ(red["nvml"]["serial"], "<redacted>");
  EXPECT_EQ(red["nvml"]["uuid"], "<redacted>");
  EXPECT_EQ(red["nvml"]["board_serial"], "N/A");
  EXPECT_EQ(red["nvml"]["name"], "NVIDIA H200");
  EXPECT_EQ(red["host"]["hostname"], "<host>");
}

TEST(RedactShortNames, ShortHostNamesDoNotEatWords) {
  RedactSecrets s;
  s.hostnames = {"gpu"};
  EXPECT_EQ(redact_text("The gpu is slowing its clocks down", s), "The gpu is slowing its clocks down");
  s.hostnames = {"gpu-node-17"};
  EXPECT_EQ(redact_text("ssh gpu-node-17 failed", s), "ssh <host> failed");
}

}  // namespace
}  // namespace accel
