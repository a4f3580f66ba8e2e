// Helpers shared by the platform probe tests: recorded trees and scratch trees.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "platform/probes.hpp"
#include "platform/process.hpp"

/// Skips, in the Windows build, a test of a Linux probe on a recorded /sys,
/// /proc, /dev tree: on Windows those probes read the live system through
/// Win32 instead (host, device nodes) or are not built (the sysfs PCI/KFD scan).
#if defined(_WIN32)
#define ACCEL_SKIP_ON_WINDOWS(why) GTEST_SKIP() << (why)
#else
#define ACCEL_SKIP_ON_WINDOWS(why) (void)0
#endif

namespace accel::platform::test {

/// ProbeRoots over tests/fixtures/sysfs/<machine>, vendor libraries off.
inline ProbeRoots recorded(const std::string& machine) {
  return ProbeRoots::under(std::string(ACCEL_TEST_FIXTURES) + "/sysfs/" + machine);
}

/// A scratch directory removed at the end of the test.
class TempTree {
 public:
  explicit TempTree(const std::string& tag) {
    namespace fs = std::filesystem;
    root_ = fs::temp_directory_path() /
            ("accel-platform-test-" + tag + "-" + std::to_string(accel::platform::process_id()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  /// Writes `text` to root/rel, creating folders.
  void write(const std::string& rel, const std::string& text) const {
    const auto p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  std::string path() const { return root_.string(); }
  std::string path(const std::string& rel) const { return (root_ / rel).string(); }

 private:
  std::filesystem::path root_;
};

}  // namespace accel::platform::test
