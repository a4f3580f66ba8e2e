// Output tests for every reporter, in the style of google/benchmark's output
// tests: a fixed report (GPU-shaped: an H200 with checks that ran as device
// kernels and one CPU fallback, rooflines against datasheet peaks, LLM
// prefill/decode/graph rows) rendered by each reporter, and each output
// matched against regular expressions, line by line, in order.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/report/console.hpp"
#include "core/report/digest.hpp"
#include "core/report/html.hpp"
#include "core/report/jsonl.hpp"
#include "core/report/markdown.hpp"
#include "core/report/progress.hpp"
#include "core/report/web_assets.hpp"

using namespace accel;

namespace {

// ---------------------------------------------------------------- the fixture

Timing timing_us(double median, double iqr = 0) {
  Timing t = make_timing({median, median, median}, 1, 1, "device_events");
  t.iqr_us = iqr;
  return t;
}

Roofline roof(double intensity, double achieved_tflops, double peak, const std::string& peak_source) {
  Roofline r;
  r.intensity_flop_per_byte = intensity;
  r.peak_tflops = peak;
  r.peak_source = peak_source;
  r.bandwidth_gbps = 4800;
  r.bandwidth_source = "datasheet: NVIDIA H200 Tensor Core GPU datasheet; 4.8 TB/s";
  r.bound_tflops = std::min(peak, intensity * 4800 / 1000);
  r.achieved_tflops = achieved_tflops;
  r.achieved_gbps = intensity > 0 ? achieved_tflops * 1000 / intensity : 0;
  r.percent_of_bound = r.bound_tflops > 0 ? 100 * achieved_tflops / r.bound_tflops : 0;
  return r;
}

Result check(const std::string& category, const std::string& name, const std::string& dtype, Status status) {
  Result r;
  r.key = "ops/" + category + "/" + name + "/" + dtype;
  r.kind = ResultKind::check;
  r.category = category;
  r.name = name;
  r.dtype = dtype;
  r.shape = "1024x1024";
  r.device = "cuda:0";
  r.status = status;
  ProfileEvidence p;
  p.where = Where::device_kernels;
  p.kernel_count = 1;
  r.profile = p;
  return r;
}

Report fixture() {
  Report rep;
  rep.context.tool = ToolInfo{"0.1.0", "abc123def456"};
  rep.context.started_at = "2026-11-29T21:00:00Z";
  rep.context.finished_at = "2026-11-29T21:05:00Z";
  rep.context.argv = {"accel-doctor", "--json", "r.json"};
  rep.context.command = "doctor";
  Environment& env = rep.context.environment;
  env.host.os = "Ubuntu 22.04.5 LTS";
  env.host.kernel = "Linux 5.15.0-1071-nvidia";
  env.host.hostname = "gpu-host";
  env.host.cpu_model = "Intel(R) Xeon(R) Platinum 8480C";
  env.host.logical_cores = 16;
  env.host.memory_total_bytes = 128ull << 30;
  env.torch.version = "2.11.0+cu130";
  env.torch.backend = "cuda";
  env.torch.cuda_version = "13.0";
  env.torch.cudnn_version = "91300";
  env.torch.arch_list = {"sm_80", "sm_90", "sm_100"};
  env.torch.build["BLAS_INFO"] = "mkl";
  env.blas.name = "openblas";
  env.blas.version = "0.3.21";
  env.blas.library = "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3";
  env.driver.nvidia_driver = "580.95.05";
  env.driver.cuda_driver_api = "13.0";
  DeviceInfo d;
  d.id = "cuda:0";
  d.name = "NVIDIA H200";
  d.vendor = "nvidia";
  d.arch = "sm_90";
  d.total_memory_bytes = 150754820096ull;
  d.multiprocessors = 132;
  d.arch_in_build = true;
  env.devices.push_back(d);
  env.env_vars.push_back({"CUDA_VISIBLE_DEVICES", "0", "which GPUs the process sees"});
  env.selection = DeviceChoice{"auto", "cuda:0", "the best accelerator torch sees"};

  const std::string bf16_peak =
      "datasheet: NVIDIA H200 Tensor Core GPU datasheet (H200 SXM); dense bf16 989.5 TFLOP/s";
  Result gemm = check("matmul", "gemm", "bf16", Status::ok);
  gemm.timing = timing_us(100, 2);
  gemm.cpu_timing = timing_us(10000, 300);
  gemm.speedup = 100;
  gemm.roofline = roof(1365, 700, 989.5, bf16_peak);
  gemm.profile->implementation["gemm"] = "cuBLASLt";
  rep.results.push_back(gemm);

  Result add = check("elementwise", "add", "fp32", Status::ok);
  add.timing = timing_us(30, 1);
  add.cpu_timing = timing_us(600, 20);
  add.speedup = 20;
  add.roofline = roof(0.083, 0.3, 67, "datasheet: fp32 67 TFLOP/s");
  rep.results.push_back(add);

  Result fft = check("fft", "fft", "fp16", Status::error);
  fft.error = ErrorInfo{
      "cuFFT only supports dimensions whose sizes are powers of two | when computing in half precision",
      "cufft-half-pow2", "cuFFT half precision needs power-of-two sizes",
      "Pad the signal to a power of two or compute the FFT in float32",
      "https://pytorch.org/docs/stable/generated/torch.fft.fft.html"};
  fft.profile.reset();
  rep.results.push_back(fft);

  Result nonzero = check("indexing", "nonzero", "fp32", Status::ok);
  nonzero.timing = timing_us(80, 4);
  nonzero.profile->where = Where::cpu_fallback;
  nonzero.profile->detail = "no device kernels; 2 copies host<->device (4.0 MiB)";
  rep.results.push_back(nonzero);

  Result svd = check("linalg", "svd", "bf16", Status::unavailable);
  svd.reason = "\"svd_cuda_gesvdj\" not implemented for 'BFloat16'";
  svd.profile.reset();
  rep.results.push_back(svd);

  Result ln = check("norm", "layer_norm", "fp16", Status::mismatch);
  ln.timing = timing_us(40, 1);
  ln.reason = "relative error 0.0123 (tolerance 0.005)";
  ln.accuracy = Accuracy{"float64_reference", 0.0123, 0.005, "relative error 0.0123 (tolerance 0.005)"};
  rep.results.push_back(ln);

  Result bg;
  bg.key = "bench/cuda/gemm/square/bf16/8192x8192x8192";
  bg.kind = ResultKind::bench;
  bg.category = "gemm";
  bg.name = "square";
  bg.dtype = "bf16";
  bg.shape = "8192x8192x8192";
  bg.device = "cuda:0";
  bg.status = Status::ok;
  bg.timing = timing_us(1544, 10);
  bg.metrics["tflops"] = 712;
  bg.roofline = roof(2730, 712, 989.5, bf16_peak);
  rep.results.push_back(bg);

  Result copy = bg;
  copy.key = "bench/cuda/memory/copy/fp32/rotating";
  copy.category = "memory";
  copy.name = "copy";
  copy.dtype = "fp32";
  copy.shape = "1GiB x2 sets";
  copy.metrics.clear();
  copy.metrics["gbps"] = 4020;
  copy.roofline = roof(0, 0, 0, "");
  copy.roofline->achieved_gbps = 4020;
  copy.roofline->percent_of_bound = 83.75;
  rep.results.push_back(copy);

  Result pp;
  pp.key = "llm/cuda/llama-3.2-1b/bf16/b1/pp512";
  pp.kind = ResultKind::llm;
  pp.category = "llama-3.2-1b";
  pp.name = "pp512";
  pp.dtype = "bf16";
  pp.shape = "batch 1";
  pp.device = "cuda:0";
  pp.status = Status::ok;
  pp.timing = timing_us(11000, 100);
  pp.metrics = {{"tokens_per_s", 46545}, {"ttft_ms", 11}, {"tflops", 120}, {"prefill_roofline_pct", 16.9}};
  rep.results.push_back(pp);
  Result tg = pp;
  tg.key = "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d512";
  tg.name = "tg128@d512";
  tg.metrics = {{"tokens_per_s", 410},          {"decode_roofline_pct", 62.1},
                {"roofline_tokens_per_s", 660}, {"token_latency_p50_ms", 2.41},
                {"token_latency_p90_ms", 2.6},  {"device_busy_per_step_us", 900},
                {"step_time_us", 2400},         {"device_idle_fraction", 0.625},
                {"kernels_per_step", 215},      {"peak_memory_bytes", 2.56e9}};
  tg.speedup = 35;
  tg.evidence["bottleneck"] = "launch-bound: the device is busy 900 µs of each 2400 µs step (38%)";
  tg.evidence["device_time_per_step_us"] = {{"GEMM", 700}, {"norm", 80}, {"attention", 120}};
  rep.results.push_back(tg);
  Result graph = tg;
  graph.key = "llm/cuda/llama-3.2-1b/bf16/b1/tg128@d512/graph";
  graph.name = "tg128@d512 graph";
  graph.metrics = {{"tokens_per_s", 598}, {"decode_roofline_pct", 90.6}, {"roofline_tokens_per_s", 660}};
  graph.speedup.reset();
  graph.evidence = json::object();
  rep.results.push_back(graph);

  rep.findings.push_back(Finding{"cpu-fallback", Severity::critical, "nonzero runs on the CPU",
                                 "ops/indexing/nonzero/fp32: no device kernels, 2 copies",
                                 "every call copies the data to the host and back",
                                 "Upgrade torch; avoid nonzero in the hot loop",
                                 "https://example.org/fallback", 10});
  rep.findings.push_back(Finding{"launch-bound-decode", Severity::warning, "Decode is launch-bound",
                                 "device busy 38% of each step", "the host cannot issue kernels fast enough",
                                 "Use CUDA graphs (graph replay reached 598 tokens/s)", "", 5});
  rep.verdict = "cuda:0 works with problems: 3/6 checks ok, 1 CPU fallback";
  return rep;
}

// ---------------------------------------------------------------- matching

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

/// Each pattern must match a whole line, in order (later patterns on later lines).
void expect_lines_in_order(const std::string& text, const std::vector<std::string>& patterns) {
  const auto lines = lines_of(text);
  std::size_t at = 0;
  for (const auto& p : patterns) {
    const std::regex re(p);
    bool found = false;
    for (; at < lines.size(); ++at) {
      if (std::regex_match(lines[at], re)) {
        found = true;
        ++at;
        break;
      }
    }
    EXPECT_TRUE(found) << "no line (after the previous match) matches: " << p << "\n--- output ---\n" << text;
    if (!found) return;
  }
}

std::string strip_ansi(const std::string& s) {
  return std::regex_replace(s, std::regex("\x1b\\[[0-9;]*m"), "");
}

std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string all_console(const Report& rep, const ConsoleStyle& style) {
  const auto checks = results_of_kind(rep, ResultKind::check);
  return render_environment(rep.context.environment, style) + render_checks_table(checks, style) +
         render_check_problems(checks, style) +
         wrap_to_width(checks_summary_line(checks, "cuda:0"), style.width) + "\n" +
         render_bench_table(results_of_kind(rep, ResultKind::bench), style) +
         render_llm_table(results_of_kind(rep, ResultKind::llm), style);
}

}  // namespace

// ---------------------------------------------------------------- console

TEST(ConsoleOutput, ChecksTableRowsAndSummary) {
  const Report rep = fixture();
  ConsoleStyle style;
  style.width = 140;
  const auto checks = results_of_kind(rep, ResultKind::check);
  expect_lines_in_order(
      render_checks_table(checks, style),
      {R"(check\s+dtype\s+status\s+ran\s+device median±IQR\s+CPU median±IQR\s+speed-up\s+of bound\s+note)",
       R"(\[matmul\])",
       R"(gemm\s+bf16\s+ok\s+kernels\s+100 µs ±2%\s+10\.0 ms ±3%\s+100x\s+71%\s+gemm: cuBLASLt)",
       R"(\[elementwise\])", R"(add\s+fp32\s+ok\s+kernels\s+30\.0 µs ±3%\s+600 µs ±3%\s+20\.0x\s+75%\s*)",
       R"(\[fft\])", R"(fft\s+fp16\s+error\s+-\s+-\s+-\s+-\s+-\s+cuFFT half precision.*)", R"(\[indexing\])",
       R"(nonzero\s+fp32\s+ok\s+FALLBACK\s+80\.0 µs ±5%\s+-\s+-\s+-\s+no device kernels.*)", R"(\[linalg\])",
       R"(svd\s+bf16\s+unavailable\s+-\s+-\s+-\s+-\s+-\s+"svd_cuda_gesvdj" no.*)", R"(\[norm\])",
       R"(layer_norm\s+fp16\s+mismatch\s+kernels\s+40\.0 µs ±2%\s+-\s+-\s+-\s+relative error 0\.012.*)"});
  EXPECT_EQ(
      checks_summary_line(checks, "cuda:0"),
      "Summary: 3/6 ok on cuda:0 | 1 error | 1 mismatch | 1 unavailable | median speed-up 60.0x vs CPU");
  style.width = 120;
  expect_lines_in_order(render_check_problems(checks, style),
                        {R"(● ops/fft/fft/fp16 \[error\] on cuda:0: cuFFT only supports .*)",
                         R"(    cause:   cuFFT half precision needs power-of-two sizes)",
                         R"(    fix:     Pad the signal to a power of two or compute the FFT in float32)",
                         R"(    see:     https://pytorch\.org/.*)",
                         R"(● ops/indexing/nonzero/fp32 \[cpu_fallback\] on cuda:0$)",
                         R"(    ran on the CPU: no device kernels; 2 copies host<->device \(4\.0 MiB\))",
                         R"(● ops/norm/layer_norm/fp16 \[mismatch\] on cuda:0: relative error 0\.0123.*)"});
}

TEST(ConsoleOutput, UnavailableChecksWithOneCauseAreOneEntry) {
  auto unavailable = [](const std::string& name, const std::string& kernel) {
    Result r;
    r.key = "ops/elementwise/" + name + "/fp16";
    r.kind = ResultKind::check;
    r.category = "elementwise";
    r.name = name;
    r.dtype = "fp16";
    r.device = "cpu";
    r.status = Status::unavailable;
    r.error =
        ErrorInfo{"\"" + kernel + "\" not implemented for 'Half'", "cpu_half",
                  "a half-precision operator ran on the CPU", "run it in float32", "https://example.org"};
    r.reason = r.error->message;
    return r;
  };
  std::vector<Result> rs{unavailable("sqrt", "sqrt_vml_cpu"), unavailable("exp", "exp_vml_cpu"),
                         unavailable("log", "log_vml_cpu")};
  Result lone = unavailable("erf", "erf_vml_cpu");
  lone.error->cause_id = "other";
  lone.error->cause = "another cause";
  rs.push_back(lone);
  ConsoleStyle style;
  style.width = 120;
  const std::string out = render_check_problems(rs, style);
  expect_lines_in_order(
      out, {R"(● 3 checks \[unavailable\] on cpu: a half-precision operator ran on the CPU)",
            R"(    checks:  ops/elementwise/sqrt/fp16, ops/elementwise/exp/fp16, ops/elementwise/log/fp16)",
            R"(    e\.g\.:    "sqrt_vml_cpu" not implemented for 'Half')",
            R"(    fix:     run it in float32)", R"(● ops/elementwise/erf/fp16 \[unavailable\] on cpu: .*)"});
  EXPECT_EQ(out.find("exp_vml_cpu"), std::string::npos) << "one entry, not three";
}

TEST(ConsoleOutput, ChecksAbovePeakSayWhy) {
  Report rep = fixture();
  auto checks = results_of_kind(rep, ResultKind::check);
  Result cached = checks[1];  // add fp32: bytes-only under the DRAM roof
  cached.name = "add_cached";
  cached.roofline->percent_of_bound = 441;
  cached.roofline->above_peak = true;
  cached.roofline->intensity_flop_per_byte = 0;
  cached.roofline->achieved_tflops = 0;
  cached.roofline->bound_tflops = 0;
  cached.roofline->bandwidth_gbps = 4200;
  cached.work.bytes = 8e6;
  Result fast = checks[0];  // gemm bf16 above its compute roof
  fast.name = "gemm_fast";
  fast.roofline->percent_of_bound = 180;
  fast.roofline->above_peak = true;
  ConsoleStyle style;
  style.width = 160;
  expect_lines_in_order(render_checks_table({fast, cached}, style),
                        {R"(gemm_fast\s+bf16\s+ok.*\s180%!\s+above the peak: likely a timing error; gemm:)",
                         R"(\s{100,}cuBLASLt)",  // a long note wraps under its column, never cut (issue 19)
                         R"(add_cached\s+fp32\s+ok.*\s441%!\s+above the DRAM roof: data in caches)"});
}

TEST(ConsoleOutput, BenchAndLlmTables) {
  const Report rep = fixture();
  ConsoleStyle style;
  style.width = 140;
  expect_lines_in_order(
      render_bench_table(results_of_kind(rep, ResultKind::bench), style),
      {R"(benchmark\s+dtype\s+shape\s+device\s+median±IQR\s+figure\s+of bound\s+note)", R"(\[gemm\])",
       R"(square\s+bf16\s+8192x8192x8192\s+cuda:0\s+1\.54 ms ±1%\s+712 TFLOP/s\s+72%\s*)", R"(\[memory\])",
       R"(copy\s+fp32\s+1GiB x2 sets\s+cuda:0\s+.*4\.02 TB/s\s+84%\s*)"});
  expect_lines_in_order(
      render_llm_table(results_of_kind(rep, ResultKind::llm), style),
      {R"(test\s+batch\s+model\s+dtype\s+device\s+tokens/s\s+latency\s+roofline\s+vs CPU\s+note)",
       R"(pp512\s+1\s+llama-3\.2-1b\s+bf16\s+cuda:0\s+4\.65e\+04\s+TTFT 11\.0 ms\s+17% GEMM\s+-\s*)",
       R"(tg128@d512\s+1\s+llama-3\.2-1b\s+bf16\s+cuda:0\s+410\s+p50 2\.41 ms p90 2\.60 ms\s+62% BW\s+35\.0x\s+launch-bound.*)",
       R"(tg128@d512 graph\s+1\s+llama-3\.2-1b\s+bf16\s+cuda:0\s+598\s+-\s+91% BW\s+-\s*)",
       R"(Decode, device time per step by class:)",
       R"(  tg128@d512 b1 cuda:0: GEMM 700 µs, attention 120 µs, norm 80\.0 µs; busy 900 µs of a 2\.40 ms step, idle 62%, 215 kernels)",
       R"(    launch-bound: the device is busy 900 µs of each 2400 µs step \(38%\))",
       R"(Peak device memory:)", R"(  tg128@d512 b1 cuda:0 2\.4 GiB)"});
}

TEST(ConsoleOutput, LlmSweepRowsDifferByBatchAndFailuresAreSpelledOut) {
  Result a;
  a.key = "llm/cpu/tiny/fp32/b1/pp16";
  a.kind = ResultKind::llm;
  a.category = "tiny";
  a.name = "pp16";
  a.dtype = "fp32";
  a.shape = "batch 1";
  a.device = "cpu";
  a.status = Status::ok;
  a.metrics = {{"tokens_per_s", 1000}};
  Result b = a;
  b.key = "llm/cpu/tiny/fp32/b2/pp16";
  b.shape = "batch 2";
  b.metrics = {{"tokens_per_s", 1900}};
  Result bad = a;
  bad.key = "llm/cpu/tiny/fp32/b4/pp16";
  bad.shape = "batch 4";
  bad.status = Status::error;
  bad.metrics.clear();
  bad.reason = "weights: /data/model/config.json has no 'vocab_size' (a Llama-family config needs it)";
  ConsoleStyle style;
  style.width = 80;
  expect_lines_in_order(
      render_llm_table({a, b, bad}, style),
      {R"(pp16\s+1\s+tiny\s+fp32\s+cpu\s+1000\s.*)", R"(pp16\s+2\s+tiny\s+fp32\s+cpu\s+1900\s.*)",
       R"(pp16\s+4\s+tiny\s+fp32\s+cpu\s+-.*error.*)", R"(Not measured or failed:)",
       R"(  error llm/cpu/tiny/fp32/b4/pp16: weights: /data/model/config\.json has no)",
       R"(.*'vocab_size'.*)"});
}

TEST(ConsoleOutput, NarrowTerminalsKeepEveryLineWithinTheWidth) {
  const Report rep = fixture();
  for (const int width : {40, 60, 80, 100}) {
    for (const bool color : {false, true}) {
      ConsoleStyle style;
      style.width = width;
      style.color = color;
      const std::string out = all_console(rep, style);
      for (const auto& line : lines_of(strip_ansi(out))) {
        EXPECT_LE(columns(line), static_cast<std::size_t>(width)) << "width " << width << ": " << line;
      }
    }
  }
  // At 60 columns the rows stay readable: name, dtype, status and device time survive.
  ConsoleStyle narrow;
  narrow.width = 60;
  expect_lines_in_order(
      render_checks_table(results_of_kind(rep, ResultKind::check), narrow),
      {R"(check\s+dtype\s+status\s+device median…\s+note)", R"(\[matmul\])",
       R"(gemm\s+bf16\s+ok\s+100 µs ±2%\s+gemm:)", R"(\s+cuBLASLt)",
       // notes of more than two lines of the narrow column go below the table
       R"(fft\s+fp16\s+error\s+-\s+\[1\])", R"(\[1\] cuFFT half precision needs power-of-two sizes)"});
  expect_lines_in_order(render_bench_table(results_of_kind(rep, ResultKind::bench), narrow),
                        {R"(benchmark\s+dtype\s+figure\s+of bound\s+note)", R"(\[gemm\])",
                         R"(square\s+bf16\s+712 TFLOP/s\s+72%\s*)"});
}

TEST(ConsoleOutput, ExitReasonListsEachFailedResult) {
  Result ok;
  ok.key = "bench/cpu/gemm/square/fp32/512x512x512";
  ok.status = Status::ok;
  Result bad = ok;
  bad.key = "bench/cpu/gemm/llm_decode/bf16/1x4096x4096";
  bad.status = Status::mismatch;
  bad.reason = "8x8 block of C, relative error 0.122 (tolerance 0.011): this kernel accumulates in bf16";
  ConsoleStyle style;
  style.width = 200;
  EXPECT_EQ(render_exit_reason("bench", {ok}, false, style), "");
  const std::string out = render_exit_reason("bench", {ok, bad}, false, style);
  expect_lines_in_order(out,
                        {R"(bench exits 1: 1 of 2 benchmarks failed:)",
                         R"(● bench/cpu/gemm/llm_decode/bf16/1x4096x4096 \[mismatch\]: 8x8 block of C, .*)"
                         R"(this kernel accumulates in bf16)"});
  EXPECT_EQ(render_exit_reason("ops", {ok, bad}, true, style),
            "ops exits 1: 1 of 2 checks failed (listed above)\n");
}

TEST(ConsoleOutput, NoColourWithoutATerminalOrWithNoColor) {
  EXPECT_TRUE(color_allowed(true, false, nullptr));
  EXPECT_TRUE(color_allowed(true, false, ""));  // NO_COLOR set but empty: no effect (no-color.org)
  EXPECT_FALSE(color_allowed(false, false, nullptr));
  EXPECT_FALSE(color_allowed(true, true, nullptr));
  EXPECT_FALSE(color_allowed(true, false, "1"));
  const Report rep = fixture();
  ConsoleStyle plain;
  plain.color = false;
  EXPECT_EQ(all_console(rep, plain).find('\x1b'), std::string::npos);
  ConsoleStyle colour;
  colour.color = true;
  EXPECT_NE(all_console(rep, colour).find("\x1b["), std::string::npos);
}

// ---------------------------------------------------------------- Markdown

TEST(MarkdownOutput, HeadingsTablesAndEnvironment) {
  const std::string md = render_markdown(fixture());
  expect_lines_in_order(
      md,
      {R"(## accel-doctor report)",
       R"(\*\*Verdict:\*\* cuda:0 works with problems: 3/6 checks ok, 1 CPU fallback)",
       R"(<sub>accel-doctor 0\.1\.0 \(abc123def456\) · command `doctor` · device `cuda:0` · 2026-11-29T21:00:00Z</sub>)",
       R"(### Findings \(2\))", R"(- \*\*critical\*\* nonzero runs on the CPU)",
       R"(  - Evidence: ops/indexing/nonzero/fp32: no device kernels, 2 copies)",
       R"(  - Fix: Upgrade torch; avoid nonzero in the hot loop)",
       R"(- \*\*warning\*\* Decode is launch-bound)", R"(### Key numbers)",
       R"(\| what \| measured \| against \|)", R"(\| --- \| --- \| --- \|)",
       R"(\| operator checks \| 3/6 ok on cuda:0 \\\| 1 error .* \| - \|)",
       R"(\| bf16 GEMM on cuda:0 \(square 8192x8192x8192\) \| 712 TFLOP/s \| 72% of 990 TFLOP/s \(datasheet\) \|)",
       R"(\| memory copy on cuda:0 \(1GiB x2 sets\) \| 4\.02 TB/s \| 84% of 4\.80 TB/s \(datasheet\) \|)",
       R"(\| llama-3\.2-1b bf16 pp512 on cuda:0 \(prefill, batch 1\) \| 4\.65e\+04 tokens/s \| 17% of the measured GEMM ceiling \|)",
       R"(\| llama-3\.2-1b bf16 tg128@d512 on cuda:0 \(decode, batch 1\) \| 410 tokens/s \| 62% of the bandwidth roofline \(660 tokens/s\); 35\.0x vs CPU \|)",
       R"(\| llama-3\.2-1b bf16 tg128@d512 graph on cuda:0 \(graph replay, batch 1\) \| 598 tokens/s \| 91% .*\|)",
       R"(### Failing checks \(3\))", R"(\| item \| status \| problem \| cause \| fix \|)",
       // A pipe inside a cell is escaped, so the row keeps its five cells.
       R"(\| `ops/fft/fft/fp16` \| error \| cuFFT only supports dimensions whose sizes are powers of two \\\| when computing in half precision \| cuFFT half precision needs power-of-two sizes \| Pad the signal .* \|)",
       R"(\| `ops/indexing/nonzero/fp32` \| cpu fallback \| ran on the CPU: no device kernels; 2 copies host&lt;-&gt;device \(4\.0 MiB\) \|  \|  \|)",
       R"(\| `ops/norm/layer_norm/fp16` \| mismatch \| relative error 0\.0123 \(tolerance 0\.005\) \|  \|  \|)",
       R"(### Environment)", R"(\| GPU \| cuda:0: NVIDIA H200 \(sm_90, 140\.4 GiB, 132 SMs\) - measured \|)",
       R"(\| driver \| NVIDIA 580\.95\.05, CUDA driver API 13\.0 \|)",
       R"(\| torch \| 2\.11\.0\+cu130, cuda build, CUDA 13\.0, cuDNN 91300, archs sm_80 sm_90 sm_100, built with BLAS mkl \|)",
       R"(\| CPU BLAS \(loaded\) \| openblas 0\.3\.21 \(/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas\.so\.3\) \|)",
       R"(\| CPU \| Intel\(R\) Xeon\(R\) Platinum 8480C, 16 logical cores, 128\.0 GiB RAM \|)",
       R"(\| GPU environment variables \| `CUDA_VISIBLE_DEVICES=0` \|)"});
  // Every table row has as many cells as its header.
  for (const auto& line : lines_of(md)) {
    if (line.rfind("| item |", 0) == 0 || line.rfind("| `ops/", 0) == 0) {
      const std::string unescaped = std::regex_replace(line, std::regex(R"(\\\|)"), "");
      EXPECT_EQ(std::count(unescaped.begin(), unescaped.end(), '|'), 6) << line;
    }
  }
}

TEST(MarkdownOutput, SaysNoFindingsWhenThereAreNone) {
  Report rep = fixture();
  rep.findings.clear();
  rep.verdict.clear();
  expect_lines_in_order(render_markdown(rep),
                        {R"(\*\*Verdict:\*\* no verdict recorded: 3/6 checks ok on cuda:0)",
                         R"(### Findings \(0\))", R"(No findings\.)"});
}

// ---------------------------------------------------------------- JSON Lines

TEST(JsonlOutput, OneObjectPerLineContextResultsEnd) {
  const Report rep = fixture();
  const std::string text = render_jsonl(rep);
  const auto lines = lines_of(text);
  ASSERT_EQ(lines.size(), rep.results.size() + 2);
  ASSERT_EQ(text.back(), '\n');
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind("{\"type\":\"", 0), 0u) << "the type comes first: " << lines[i].substr(0, 40);
    const json j = json::parse(lines[i]);  // throws on a broken line
    ASSERT_TRUE(j.is_object());
    if (i == 0) {
      EXPECT_EQ(j["type"], "context");
      EXPECT_EQ(j["schema_version"], kSchemaVersion);
      EXPECT_EQ(j["context"]["environment"]["devices"][0]["name"], "NVIDIA H200");
    } else if (i + 1 == lines.size()) {
      EXPECT_EQ(j["type"], "end");
      EXPECT_EQ(j["verdict"], rep.verdict);
      EXPECT_EQ(j["findings"].size(), 2u);
      EXPECT_EQ(j["summary"]["results"], rep.results.size());
      EXPECT_EQ(j["summary"]["failures"], 2);
      EXPECT_EQ(j["summary"]["by_status"]["ok"], 8);
    } else {
      EXPECT_EQ(j["type"], "result");
      EXPECT_EQ(j["result"]["key"], rep.results[i - 1].key);
      // A result line reads back as the Result it came from.
      const Result back = j["result"].get<Result>();
      EXPECT_EQ(back.status, rep.results[i - 1].status);
    }
  }
  // The streaming pieces are the same lines.
  EXPECT_EQ(jsonl_result_line(rep.results[2]), lines[3] + "\n");
  // Newlines in the data stay escaped inside one line.
  Result r = rep.results[0];
  r.reason = "two\nlines";
  EXPECT_EQ(lines_of(jsonl_result_line(r)).size(), 1u);
}

// ---------------------------------------------------------------- HTML

namespace {
int count_of(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

/// The text of <script type="application/json" id="ID" ...>...</script>.
std::string island(const std::string& html, const std::string& id) {
  const auto open = html.find("id=\"" + id + "\"");
  if (open == std::string::npos) return "";
  const auto start = html.find('>', open) + 1;
  return html.substr(start, html.find("</script>", start) - start);
}
}  // namespace

TEST(HtmlOutput, SelfContainedWithInlinedVegaAndDataIslands) {
  const Report rep = fixture();
  const std::string html = render_html(rep);
  ASSERT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // The charting code is inlined whole, and none of it could end its <script> early.
  for (const std::string_view code :
       {web_assets::vega_js(), web_assets::vega_lite_js(), web_assets::vega_embed_js()}) {
    ASSERT_GT(code.size(), 10000u);
    EXPECT_NE(html.find(std::string(code)), std::string::npos);
    EXPECT_EQ(std::string(code).find("</script"), std::string::npos);
  }
  EXPECT_NE(std::string(web_assets::versions()).find("vega-lite"), std::string::npos);
  EXPECT_NE(std::string(web_assets::license_vega()).find("Redistribution"), std::string::npos);
  // Nothing is fetched: no external script, stylesheet, image or frame.
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(<script[^>]*\bsrc\s*=)", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(
      html, std::regex(R"(<(link|img|iframe)[^>]*(href|src)\s*=\s*"https?:)", std::regex::icase)));
  EXPECT_EQ(html.find("@import"), std::string::npos);
  // Every <script> closes once.
  EXPECT_EQ(count_of(html, "<script"), count_of(html, "</script>"));

  // Verdict and findings come first, before the charts.
  const auto verdict = html.find("id=\"verdict\"");
  const auto findings = html.find("id=\"findings\"");
  const auto roofline = html.find("id=\"chart-roofline\"");
  ASSERT_NE(verdict, std::string::npos);
  EXPECT_LT(verdict, findings);
  EXPECT_LT(findings, roofline);
  EXPECT_NE(html.find("nonzero runs on the CPU"), std::string::npos);

  // One spec island per chart container, each valid JSON with inline data.
  const std::vector<std::string> charts{"roofline",        "speedup",     "bench-gemm",
                                        "bench-bandwidth", "llm-prefill", "llm-decode"};
  EXPECT_EQ(count_of(html, "class=\"chart\""), static_cast<int>(charts.size()));
  EXPECT_EQ(count_of(html, "class=\"chart-spec\""), static_cast<int>(charts.size()));
  EXPECT_NE(
      html.find(R"(<pre id="render-status">{"charts": 6, "drawn": 0, "errors": [], "done": false}</pre>)"),
      std::string::npos);
  for (const auto& c : charts) {
    EXPECT_NE(html.find("<div class=\"chart\" id=\"chart-" + c + "\" data-spec=\"spec-" + c + "\""),
              std::string::npos)
        << c;
    const json spec = json::parse(island(html, "spec-" + c));
    EXPECT_TRUE(spec.contains("data") || spec.contains("layer")) << c;
  }
  // The roofline: the check and benchmark placed by intensity, the bf16 roof
  // reaching the datasheet peak, log-log axes.
  const json roof_spec = json::parse(island(html, "spec-roofline"));
  const json& lines = roof_spec["layer"][0]["data"]["values"];
  const json& points = roof_spec["layer"][1]["data"]["values"];
  double top = 0;
  for (const auto& p : lines) top = std::max(top, p["tflops"].get<double>());
  EXPECT_DOUBLE_EQ(top, 989.5);
  EXPECT_EQ(roof_spec["layer"][0]["encoding"]["x"]["scale"]["type"], "log");
  EXPECT_EQ(roof_spec["layer"][0]["encoding"]["y"]["scale"]["type"], "log");
  std::vector<std::string> keys;
  for (const auto& p : points) keys.push_back(p["key"]);
  EXPECT_NE(std::find(keys.begin(), keys.end(), "ops/matmul/gemm/bf16"), keys.end());
  EXPECT_NE(std::find(keys.begin(), keys.end(), "bench/cuda/gemm/square/bf16/8192x8192x8192"), keys.end());
  // Decode: measured and roofline lines.
  const json decode = json::parse(island(html, "spec-llm-decode"));
  int roofline_rows = 0;
  for (const auto& row : decode["data"]["values"]) roofline_rows += row["measure"] == "roofline";
  EXPECT_EQ(roofline_rows, 2);
  // The whole report rides along and reads back.
  const Report back = parse_report(island(html, "accel-report"), "html");
  EXPECT_EQ(back.results.size(), rep.results.size());
  // The operator matrix explains the failing cell on hover and click.
  EXPECT_NE(html.find("Pad the signal to a power of two"), std::string::npos);
  EXPECT_TRUE(std::regex_search(html, std::regex(R"(<td class="cell st-error" title="fft fp16: 1 check)")));
}

TEST(HtmlOutput, EscapesEverythingThatComesFromTheReport) {
  Report rep = fixture();
  rep.results[0].key = "ops/matmul/</script><script>alert(1)</script>";
  rep.results[0].name = "<b>gemm</b>";
  rep.findings[0].title = "<img src=x onerror=alert(1)>";
  const std::string html = render_html(rep);
  EXPECT_EQ(html.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<b>gemm</b>"), std::string::npos);
  EXPECT_EQ(count_of(html, "<script"), count_of(html, "</script>"));
  EXPECT_EQ(json_for_script(json("</script>&")), R"("\u003c/script\u003e\u0026")");
}

TEST(HtmlOutput, SaysNoFindingsAndDrawsNoEmptyCharts) {
  Report rep;
  rep.context.command = "env";
  const std::string html = render_html(rep);
  EXPECT_NE(html.find("No findings."), std::string::npos);
  EXPECT_EQ(count_of(html, "class=\"chart\""), 0);
  EXPECT_NE(html.find(R"({"charts": 0, "drawn": 0, "errors": [], "done": false})"), std::string::npos);
}

// ---------------------------------------------------------------- progress

TEST(ProgressOutput, EstimateFromTheTimePerFinishedItem) {
  ProgressState st;
  st.total = 4;
  st.done = 0;
  st.elapsed_s = 3;
  st.current_s = 3;
  EXPECT_EQ(progress_eta_s(st), std::nullopt);
  EXPECT_NE(format_progress_line(st, 100, false).find("estimating"), std::string::npos);
  st.done = 2;
  st.elapsed_s = 20;
  st.current_s = 5;  // two items took 15 s: 7.5 s each; two left, 5 s already spent on the third
  ASSERT_TRUE(progress_eta_s(st));
  EXPECT_DOUBLE_EQ(*progress_eta_s(st), 10);
  st.current = "ops/matmul/gemm/bf16";
  expect_lines_in_order(format_progress_line(st, 100, false),
                        {R"(\[#{10}-{10}\] 2/4 50% 20s ~10s left  ops/matmul/gemm/bf16 \(5s\))"});
  st.done = 4;
  st.current = "";
  expect_lines_in_order(format_progress_line(st, 100, false), {R"(\[#{20}\] 4/4 100% 20s  )"});
  st.done = 2;
  st.current = "ops/matmul/gemm/bf16";
  EXPECT_EQ(format_duration(125), "2m05s");
  EXPECT_EQ(format_duration(3725), "1h02m");
  for (int width = 10; width <= 200; width += 7) {
    for (const bool unicode : {false, true}) {
      EXPECT_LE(columns(format_progress_line(st, width, unicode)), static_cast<std::size_t>(width)) << width;
    }
  }
}
