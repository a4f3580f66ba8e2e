// The real ONNX Runtime the ONNX Runtime tests run against: ACCEL_ORT_LIBRARY,
// else the copy scripts/fetch_onnxruntime.sh (run by `scripts/setup.sh test`)
// put in ${XDG_CACHE_HOME:-$HOME/.cache}/accel-doctor/onnxruntime-node-1.30.0/.
// Without one the tests skip, and fail instead when ACCEL_REQUIRE_ORT=1 or
// in the Linux test build (tests/CMakeLists.txt), where setup.sh fetches it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace accel::testing {

inline std::string ort_test_library() {
  if (const char* p = std::getenv("ACCEL_ORT_LIBRARY"); p && *p) return p;
  std::string cache;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    cache = x;
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    cache = std::string(h) + "/.cache";
  }
  if (cache.empty()) return {};
#ifdef _WIN32
  const std::string lib = cache + "/accel-doctor/onnxruntime-node-1.30.0/win32-x64/onnxruntime.dll";
#else
  const std::string lib = cache + "/accel-doctor/onnxruntime-node-1.30.0/linux-x64/libonnxruntime.so.1";
#endif
  std::error_code ec;
  return std::filesystem::exists(lib, ec) ? lib : std::string();
}

/// ACCEL_REQUIRE_ORT=1, or the Linux test build's default (tests/CMakeLists.txt) unless ACCEL_REQUIRE_ORT=0.
inline bool ort_required() {
  const char* r = std::getenv("ACCEL_REQUIRE_ORT");
  if (r && *r) return std::string(r) == "1";
#ifdef ACCEL_REQUIRE_ORT_BY_DEFAULT
  return true;
#else
  return false;
#endif
}

}  // namespace accel::testing

/// Skips (or fails under ACCEL_REQUIRE_ORT=1) when no runtime is there; sets `var` to its path.
#define ACCEL_NEED_ORT(var)                                                                         \
  const std::string var = ::accel::testing::ort_test_library();                                     \
  if (var.empty()) {                                                                                \
    if (::accel::testing::ort_required()) {                                                         \
      FAIL() << "ACCEL_REQUIRE_ORT=1 but no ONNX Runtime: run scripts/setup.sh test (it fetches "   \
                "onnxruntime-node 1.30.0) or set ACCEL_ORT_LIBRARY";                                \
    }                                                                                               \
    GTEST_SKIP() << "no ONNX Runtime (scripts/setup.sh test fetches it; or set ACCEL_ORT_LIBRARY)"; \
  }
