// explain() on what is not an error: healthy logs, garbage, binary bytes and
// empty input recognise nothing; and the streaming reader handles 100 MB in
// linear time with bounded memory, long lines, CR/CRLF and colour codes.
#include <gtest/gtest.h>
#if defined(_WIN32)
#include <windows.h>
// windows.h first
#include <psapi.h>
#else
#include <sys/resource.h>
#endif

#include <chrono>
#include <random>
#include <sstream>
#include <streambuf>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::repo_kb;

// ---------------------------------------------------------------- negatives

TEST(KbNegative, EmptyInput) {
  EXPECT_TRUE(repo_kb().explain("", MachineContext{}).empty());
  EXPECT_TRUE(repo_kb().explain("\n\n\r\n   \t\n", MachineContext{}).empty());
  std::istringstream in("");
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.diagnoses.empty());
  EXPECT_EQ(r.lines, 0u);
  EXPECT_EQ(r.bytes, 0u);
}

TEST(KbNegative, HealthyLogs) {
  const char* logs[] = {
      // a training run
      "Epoch 1/10: 100%|##########| 782/782 [00:41<00:00, 18.9it/s, loss=0.4321]\n"
      "Using device: cuda:0 (NVIDIA A100-SXM4-80GB)\nCUDA available: True\n"
      ">>> torch.cuda.is_available()\nTrue\nSaved checkpoint to /PATH/TO/ckpt.pt\n",
      // torch.__config__.show() of an official wheel
      "PyTorch built with:\n  - GCC 9.3\n  - C++ Version: 201703\n"
      "  - Intel(R) oneAPI Math Kernel Library Version 2022.2-Product Build 20220804 for Intel(R) 64 "
      "architecture\n"
      "  - LAPACK is enabled (usually provided by MKL)\n  - CUDA Runtime 12.1\n"
      "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, USE_CUDA=ON\n",
      // nvidia-smi
      "+-----------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
      "|   0  NVIDIA A100-SXM4-80GB  On   | 00000000:07:00.0 Off |                    0 |\n"
      "| N/A   34C    P0    43W / 400W |      0MiB / 81920MiB |      0%      Default |\n",
      // rocminfo / collect_env of a working ROCm machine
      "PyTorch version: 2.5.1+rocm6.2\nIs CUDA available: True\nROCM used to build PyTorch: 6.2.41133\n"
      "GPU models and configuration: AMD Radeon RX 7900 XTX (gfx1100)\n  Name:                    gfx1100\n"
      "HSA_OVERRIDE_GFX_VERSION is not set\n",
      // a pip install
      "Collecting torch\n  Downloading torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl (906.4 MB)\n"
      "Successfully installed torch-2.5.1\n",
      // source code and prose that mention errors without being one
      "def handle_oom(e):\n    # retry with a smaller batch\n    return None\n",
  };
  for (const char* log : logs) {
    const auto ds = repo_kb().explain(log, MachineContext{});
    EXPECT_TRUE(ds.empty()) << "recognised " << (ds.empty() ? "" : ds.front().id) << " in:\n" << log;
  }
}

TEST(KbNegative, RandomTextAndBinaryBytes) {
  std::mt19937 rng(1234);
  std::string text, bytes;
  std::uniform_int_distribution<int> printable(32, 126), any(0, 255);
  for (int i = 0; i < 200000; ++i) {
    text.push_back(i % 97 == 0 ? '\n' : static_cast<char>(printable(rng)));
    bytes.push_back(static_cast<char>(any(rng)));
  }
  EXPECT_TRUE(repo_kb().explain(text, MachineContext{}).empty());
  EXPECT_TRUE(repo_kb().explain(bytes, MachineContext{}).empty());
  std::istringstream in(bytes);
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.diagnoses.empty());
  EXPECT_TRUE(r.binary);
  EXPECT_EQ(r.bytes, bytes.size());
  // An ELF header and invalid UTF-8 are just bytes.
  EXPECT_TRUE(repo_kb()
                  .explain(std::string("\x7f"
                                       "ELF\x02\x01\x01\0\0\0",
                                       10),
                           MachineContext{})
                  .empty());
  EXPECT_TRUE(repo_kb().explain("\xff\xfe\xc3\x28\xa0\xa1", MachineContext{}).empty());
}

TEST(KbNegative, ErrorAmidBinaryIsStillFound) {
  std::string data(5000, '\0');
  data += "\nRuntimeError: CUDA error: device-side assert triggered\n";
  data += std::string(5000, '\xff');
  std::istringstream in(data);
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses.front().id, "cuda_device_side_assert");
}

TEST(KbNegative, PatternsInsideAnExecutableAreNotCauses) {
  // An executable's string table: messages between NULs on one "line" (as
  // accel-doctor's own binary holds the knowledge base). Not a log.
  std::string data =
      "\x7f"
      "ELF\x02\x01\x01";
  for (int i = 0; i < 50; ++i) {
    data += std::string("\0\0", 2) + "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB" +
            std::string("\0", 1) +
            "hipErrorNoBinaryForGpu: Unable to find code object for all current devices!";
  }
  std::istringstream in(data);
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  EXPECT_TRUE(r.binary);
  EXPECT_TRUE(r.diagnoses.empty()) << r.diagnoses.front().id;
}

TEST(KbStream, Utf16LogFromPowerShellRedirect) {
  const std::string text = "RuntimeError: CUDA error: device-side assert triggered\r\n";
  std::string data = "\xff\xfe";  // BOM
  for (char ch : text) {
    data += ch;
    data += '\0';
  }
  std::istringstream in(data);
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses.front().id, "cuda_device_side_assert");
}

// ---------------------------------------------------------------- line handling

TEST(KbStream, CrLfCrAndColourCodes) {
  std::istringstream crlf(">>> torch.cuda.is_available()\r\nFalse\r\n");
  const auto r = repo_kb().explain_stream(crlf, MachineContext{});
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses.front().id, "cuda_not_available");
  EXPECT_EQ(r.lines, 2u);

  std::istringstream progress("step 1/9\rstep 2/9\rRuntimeError: HIP error: invalid device function\r");
  const auto p = repo_kb().explain_stream(progress, MachineContext{});
  ASSERT_FALSE(p.diagnoses.empty());
  EXPECT_EQ(p.diagnoses.front().line_numbers.front(), 3u);

  const auto c =
      repo_kb().explain("\x1b[1;31mRuntimeError: CUDA out of memory.\x1b[0m Tried", MachineContext{});
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c.front().id, "gpu_out_of_memory");
  EXPECT_EQ(c.front().matched_lines.front().find('\x1b'), std::string::npos);
}

TEST(KbStream, VeryLongLinesAreCut) {
  std::string line = "RuntimeError: HIP error: invalid device function ";
  line.append(10u << 20, 'x');  // a 10 MiB line
  line += " miopenStatusUnknownError\nnext line\n";
  std::istringstream in(line);
  ExplainOptions opt;
  opt.max_line_bytes = 1 << 16;
  const auto r = repo_kb().explain_stream(in, MachineContext{}, opt);
  EXPECT_EQ(r.long_lines, 1u);
  EXPECT_EQ(r.lines, 2u);
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses.front().id, "rocm_gfx_not_in_build");
  EXPECT_FALSE(testing::has_id(r.diagnoses, "miopen_status_error")) << "text past the cut is not read";
  EXPECT_LT(r.diagnoses.front().matched_lines.front().size(), 1000u) << "shown lines are capped";
}

TEST(KbStream, RepeatedErrorsKeepFewLinesButCountAll) {
  std::string log;
  for (int i = 0; i < 5000; ++i) {
    log += "RuntimeError: CUDA out of memory. Tried to allocate " + std::to_string(i) + " MiB\n";
  }
  std::istringstream in(log);
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses.front().match_count, 5000u);
  EXPECT_LE(r.diagnoses.front().matched_lines.size(), ExplainOptions{}.max_lines_per_cause);
}

// ---------------------------------------------------------------- 100 MB, linear, bounded memory

/// Produces `total` bytes of a realistic log on the fly (nothing is held in
/// memory), with a few error lines at fixed offsets.
class SyntheticLog : public std::streambuf {
 public:
  explicit SyntheticLog(std::size_t total) : total_(total), buf_(1 << 16) {}
  std::size_t errors_written() const { return errors_; }

 protected:
  int_type underflow() override {
    if (produced_ >= total_) return traits_type::eof();
    std::size_t n = 0;
    while (n < buf_.size() - 512 && produced_ + n < total_) {
      const std::string line = next_line();
      std::copy(line.begin(), line.end(), buf_.begin() + static_cast<std::ptrdiff_t>(n));
      n += line.size();
    }
    n = std::min(n, total_ - produced_);
    produced_ += n;
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  std::string next_line() {
    ++line_;
    if (line_ % 250000 == 0) {
      ++errors_;
      return "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total "
             "capacity of "
             "7.79 GiB of which 11.44 MiB is free.\n";
    }
    switch (line_ % 4) {
      case 0:
        return "Epoch 3 step " + std::to_string(line_) + " loss=0.41 lr=3.0e-4 throughput=812.5 samples/s\n";
      case 1:
        return "2024-05-01 12:00:00,123 INFO trainer.py:412 - saving checkpoint to /PATH/TO/run/ckpt-" +
               std::to_string(line_) + ".pt\n";
      case 2:
        return "  File \"/PATH/TO/site-packages/torch/nn/modules/module.py\", line 1511, in _call_impl\n";
      default:
        return "[rank0]: grad_norm=1.02 mem_allocated=5.31GiB mem_reserved=6.00GiB cuda:0\n";
    }
  }
  std::size_t total_, produced_ = 0, line_ = 0, errors_ = 0;
  std::vector<char> buf_;
};

// AddressSanitizer keeps freed memory in quarantine (256 MiB by default), so
// peak RSS says nothing about the reader under it (the sanitizer build of
// scripts/sanitize_and_fuzz.sh); the bound is checked in the plain build.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
#else
constexpr bool kUnderAsan = false;
#endif

// CPU seconds this process has used: the linear-time bound is on work done,
// not on wall time, which a loaded 2-core CI machine stretches (the wall-time
// bound of 20 s failed at 21.9 s and 24.4 s under `ctest -j2` at load 13-15).
double process_cpu_seconds() {
#if defined(_WIN32)
  FILETIME created, exited, kernel, user;
  GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user);
  auto secs = [](const FILETIME& f) {
    return ((static_cast<unsigned long long>(f.dwHighDateTime) << 32) | f.dwLowDateTime) * 1e-7;
  };
  return secs(kernel) + secs(user);
#else
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
#endif
}

long max_rss_kib() {
#if defined(_WIN32)
  PROCESS_MEMORY_COUNTERS pmc{};
  pmc.cb = sizeof pmc;
  GetProcessMemoryInfo(GetCurrentProcess(), &pmc, sizeof pmc);
  return static_cast<long>(pmc.PeakWorkingSetSize / 1024);
#else
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
#endif
}

TEST(KbStream, HundredMegabytesInLinearTimeAndBoundedMemory) {
  constexpr std::size_t kBytes = 100u << 20;
  SyntheticLog src(kBytes);
  std::istream in(&src);
  const long rss_before = max_rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  const auto r = repo_kb().explain_stream(in, MachineContext{});
  const double cpu_seconds = process_cpu_seconds() - cpu0;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const long rss_growth_mib = (max_rss_kib() - rss_before) / 1024;
  std::cout << "100 MiB log: " << r.lines << " lines in " << seconds << " s (" << cpu_seconds
            << " s CPU), peak RSS growth " << rss_growth_mib << " MiB\n";
  EXPECT_EQ(r.bytes, kBytes);
  EXPECT_LT(cpu_seconds, 20.0);
  if (!kUnderAsan) EXPECT_LT(rss_growth_mib, 64) << "memory must not grow with the input";
  ASSERT_EQ(r.diagnoses.size(), 1u);
  EXPECT_EQ(r.diagnoses.front().id, "gpu_out_of_memory");
  EXPECT_EQ(r.diagnoses.front().match_count, src.errors_written());
  EXPECT_GT(src.errors_written(), 3u);
}

}  // namespace
}  // namespace accel
