#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/profile.hpp"

using namespace accel;

namespace {
std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<TraceEvent> h200_trace() {
  return parse_chrome_trace(
      read_file(std::string(ACCEL_TEST_FIXTURES) + "/traces/h200-torch2.11-python-profiler.json"));
}

TraceEvent ev(TraceEvent::Kind k, const std::string& name, double dur = 1, double bytes = 0) {
  TraceEvent e;
  e.kind = k;
  e.name = name;
  e.dur_us = dur;
  e.bytes = bytes;
  if (k == TraceEvent::Kind::memcpy) e.copy = copy_direction(name);
  return e;
}

ImplementationTable table() { return ImplementationTable::load(ACCEL_KB_DIR); }
}  // namespace

TEST(Trace, ParsesRecordedH200Trace) {
  const auto events = h200_trace();
  int kernels = 0, memcpy = 0, memset = 0, syncs = 0;
  double h2d = 0, d2h = 0;
  for (const auto& e : events) {
    kernels += e.kind == TraceEvent::Kind::kernel;
    memset += e.kind == TraceEvent::Kind::memset;
    syncs += e.kind == TraceEvent::Kind::sync;
    if (e.kind == TraceEvent::Kind::memcpy) {
      ++memcpy;
      if (e.copy == "HtoD") h2d += e.bytes;
      if (e.copy == "DtoH") d2h += e.bytes;
    }
  }
  EXPECT_EQ(kernels, 6);
  EXPECT_EQ(memcpy, 2);
  EXPECT_EQ(memset, 4);
  EXPECT_DOUBLE_EQ(h2d, 4194304);  // h = torch.randn(1 << 20) in fp32
  EXPECT_DOUBLE_EQ(d2h, 2097152);  // the 1024x1024 bf16 tensor
  EXPECT_GE(syncs, 1);             // torch.cuda.synchronize()
}

TEST(Trace, MalformedTraceIsAnError) {
  EXPECT_THROW(parse_chrome_trace("{"), ReportError);
  EXPECT_THROW(parse_chrome_trace("{\"x\": 1}"), ReportError);
  EXPECT_TRUE(parse_chrome_trace("{\"traceEvents\": []}").empty());
}

TEST(Implementations, NamesTheLibrariesSeenOnTheH200) {
  const auto found = table().identify(h200_trace());
  EXPECT_EQ(found.at("gemm"), "cuBLASLt (nvjet)");
  EXPECT_EQ(found.at("conv"), "cuDNN");
  EXPECT_EQ(found.at("sdpa"), "cuDNN attention");
}

TEST(Implementations, RocmAndMathPaths) {
  const auto t = table();
  EXPECT_EQ(
      t.identify({ev(TraceEvent::Kind::kernel, "Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1")}).at("gemm"),
      "rocBLAS (Tensile)");
  EXPECT_EQ(t.identify({ev(TraceEvent::Kind::op, "aten::scaled_dot_product_attention"),
                        ev(TraceEvent::Kind::op, "aten::_scaled_dot_product_attention_math")})
                .at("sdpa"),
            "math (unfused matmul + softmax)");
  EXPECT_EQ(t.identify({ev(TraceEvent::Kind::kernel, "MIOpenBatchNormFwdTrainSpatial")}).at("norm"),
            "MIOpen");
  EXPECT_EQ(t.identify({ev(TraceEvent::Kind::kernel, "MIOpenBatchNormFwdTrainSpatial")}).count("conv"), 0u)
      << "a MIOpen normalisation kernel is not a convolution";
  EXPECT_TRUE(t.identify({ev(TraceEvent::Kind::kernel, "some_unknown_kernel")}).empty());
}

TEST(Classify, DeviceKernels) {
  const auto p = classify_events(h200_trace(), {}, nullptr);
  EXPECT_EQ(to_string(p.where), "device_kernels");
  EXPECT_EQ(p.kernel_count, 6);
  EXPECT_FALSE(p.kernels.empty());
  EXPECT_EQ(p.kernels.front().rfind("sm80_xmma_fprop", 0), 0u);  // longest kernel first (20.4 µs conv)
}

TEST(Classify, CpuFallbackCountsTheCopiesItCosts) {
  const std::vector<TraceEvent> events{
      ev(TraceEvent::Kind::op, "aten::_embedding_bag"),
      ev(TraceEvent::Kind::memcpy, "Memcpy DtoH (Device -> Pageable)", 40, 1 << 20),
      ev(TraceEvent::Kind::op, "aten::_embedding_bag_cpu"),
      ev(TraceEvent::Kind::memcpy, "Memcpy HtoD (Pageable -> Device)", 60, 1 << 19),
      ev(TraceEvent::Kind::sync, "cudaStreamSynchronize"),
  };
  const auto p = classify_events(events, {}, nullptr);
  EXPECT_EQ(to_string(p.where), "cpu_fallback");
  EXPECT_DOUBLE_EQ(p.fallback_cost_us, 100);
  EXPECT_EQ(p.h2d_count, 1);
  EXPECT_EQ(p.d2h_count, 1);
  EXPECT_DOUBLE_EQ(p.d2h_bytes, 1 << 20);
  EXPECT_EQ(p.sync_count, 1);
}

TEST(Classify, TransferChecksAreDeviceWork) {
  ClassifyOptions o;
  o.transfer_check = true;
  const auto p =
      classify_events({ev(TraceEvent::Kind::memcpy, "Memcpy HtoD (Pinned -> Device)", 10, 4096)}, o);
  EXPECT_EQ(to_string(p.where), "device_kernels");
}

TEST(Classify, ViewsDoNoDeviceWork) {
  const auto p = classify_events({ev(TraceEvent::Kind::op, "aten::view")}, {}, nullptr);
  EXPECT_EQ(to_string(p.where), "no_device_work");
}

TEST(Classify, BlindProfilerBlamesNoOperator) {
  ClassifyOptions o;
  o.profiler_sees_device = false;
  const auto p = classify_events({ev(TraceEvent::Kind::op, "aten::mm")}, o);
  EXPECT_EQ(to_string(p.where), "profiler_blind");
  EXPECT_NE(p.detail.find("cannot tell"), std::string::npos);
}

TEST(Classify, HostTarget) {
  ClassifyOptions o;
  o.target_is_host = true;
  EXPECT_EQ(to_string(classify_events({ev(TraceEvent::Kind::op, "aten::mm")}, o).where), "host");
}

TEST(Trace, CopyDirections) {
  EXPECT_EQ(copy_direction("Memcpy HtoD (Pageable -> Device)"), "HtoD");
  EXPECT_EQ(copy_direction("Memcpy DtoH (Device -> Pinned)"), "DtoH");
  EXPECT_EQ(copy_direction("Memcpy DtoD (Device -> Device)"), "DtoD");
  EXPECT_EQ(copy_direction("CopyHostToDevice"), "HtoD");
  EXPECT_EQ(copy_direction("Memset (Device)"), "");
  EXPECT_TRUE(is_sync_call("cudaStreamSynchronize"));
  EXPECT_TRUE(is_sync_call("hipDeviceSynchronize"));
  EXPECT_FALSE(is_sync_call("cudaLaunchKernel"));
}

TEST(MergeTraces, StreamsPartsInOrderSkipsInvalidOnesAndReplacesBadUtf8) {
  const std::vector<std::string> names{"ops/linalg/matmul/fp32", "broken", "ops/bad\xff/name"};
  const std::vector<std::string> texts{
      R"({"traceEvents":[{"name":"k1","ph":"X","ts":20,"dur":1},{"name":"k2","ph":"X","ts":10,"dur":1}]})",
      "{not json", R"({"traceEvents":[{"name":"k3","ph":"X","ts":5,"dur":1}]})"};
  std::vector<std::size_t> read_order;
  std::ostringstream out;
  const std::size_t merged = merge_chrome_traces(out, names, [&](std::size_t i) {
    read_order.push_back(i);
    return texts[i];
  });
  EXPECT_EQ(merged, 2u);
  EXPECT_EQ(read_order, (std::vector<std::size_t>{0, 1, 2}));
  const auto doc = nlohmann::json::parse(out.str());
  const auto& ev = doc.at("traceEvents");
  ASSERT_EQ(ev.size(), 5u);  // k1, k2, marker, k3, marker
  EXPECT_EQ(ev[2].at("name"), "ops/linalg/matmul/fp32");
  EXPECT_EQ(ev[2].at("ts"), 10);  // the part's first timestamp
  EXPECT_EQ(ev[3].at("name"), "k3");
  EXPECT_NE(ev[4].at("name").get<std::string>().find("ops/bad"), std::string::npos);
  // The string form agrees with the streamed one.
  std::vector<std::pair<std::string, std::string>> parts;
  for (std::size_t i = 0; i < names.size(); ++i) parts.emplace_back(names[i], texts[i]);
  EXPECT_EQ(merge_chrome_traces(parts), out.str());
}

TEST(Attribution, ClassesKernelsAndIdleTime) {
  // Two launches under "llm::rope", one under no annotation; kernels run at
  // device times 0-10, 10-14 and 20-30 (busy 24 of a 30 µs span).
  auto at = [](TraceEvent e, double ts, int64_t corr) {
    e.ts_us = ts;
    e.correlation = corr;
    return e;
  };
  std::vector<TraceEvent> events;
  events.push_back(at(ev(TraceEvent::Kind::annotation, "llm::rope", 50), 100, -1));
  events.push_back(at(ev(TraceEvent::Kind::runtime, "cudaLaunchKernel", 2), 110, 1));
  events.push_back(at(ev(TraceEvent::Kind::runtime, "cudaLaunchKernel", 2), 120, 2));
  events.push_back(at(ev(TraceEvent::Kind::runtime, "cudaLaunchKernel", 2), 200, 3));
  events.push_back(at(ev(TraceEvent::Kind::kernel, "elementwise_kernel", 10), 0, 1));
  events.push_back(at(ev(TraceEvent::Kind::kernel, "elementwise_kernel", 4), 10, 2));
  events.push_back(at(ev(TraceEvent::Kind::kernel, "nvjet_hsh_64x8_64x16_2x1_v_bz_splitK_TNT", 10), 20, 3));
  const auto t = table();
  const auto b = attribute_device_time(
      events, [](const std::string& a) { return a == "llm::rope" ? std::string("rotary") : std::string(); },
      &t);
  EXPECT_EQ(b.kernels, 3);
  EXPECT_DOUBLE_EQ(b.by_class_us.at("rotary"), 14);
  EXPECT_DOUBLE_EQ(b.by_class_us.at("GEMM"), 10);
  ASSERT_EQ(b.by_kernel.size(), 2u);
  EXPECT_EQ(b.by_kernel[0].name, "elementwise_kernel");
  EXPECT_EQ(b.by_kernel[0].count, 2);
  EXPECT_DOUBLE_EQ(b.by_kernel[0].total_us, 14);
  EXPECT_EQ(b.by_kernel[1].cls, "GEMM");
  EXPECT_DOUBLE_EQ(b.busy_us, 24);
  EXPECT_DOUBLE_EQ(b.span_us, 30);
  EXPECT_NEAR(b.idle_fraction, 0.2, 1e-12);
}

// ---------------------------------------------------------------- accel-doctor's own captures

namespace {
/// One check's capture by accel-doctor's libtorch profiler on the H200 (torch
/// 2.11, `ops --trace`, 2026-11-30; tests/fixtures/traces/h200-accel-doctor).
ProfileEvidence classify_capture(const std::string& check, bool transfer = false) {
  static const ImplementationTable t = table();
  ClassifyOptions o;
  o.transfer_check = transfer;
  const auto events = parse_chrome_trace(
      read_file(std::string(ACCEL_TEST_FIXTURES) + "/traces/h200-accel-doctor/" + check + ".json"));
  EXPECT_FALSE(events.empty()) << check;
  return classify_events(events, o, &t);
}
std::string implementation(const ProfileEvidence& p, const std::string& role) {
  const auto it = p.implementation.find(role);
  return it == p.implementation.end() ? "" : it->second;
}
}  // namespace

TEST(Classify, RecordedSdpaCapturesNameTheirBackend) {
  // The backends torch's selection API chose on the H200 (validation 2026-11-30b).
  const auto bf16 = classify_capture("ops_attention_sdpa_bf16");
  EXPECT_EQ(to_string(bf16.where), "device_kernels");
  EXPECT_NE(implementation(bf16, "sdpa").find("cuDNN"), std::string::npos) << implementation(bf16, "sdpa");
  // Its kernel (cudnn_generated_fort_native_sdpa_*) also matches cuDNN's
  // convolution pattern; it is attention, not a convolution.
  EXPECT_EQ(implementation(bf16, "conv"), "");
  const auto fp32 = classify_capture("ops_attention_sdpa_fp32");
  EXPECT_EQ(to_string(fp32.where), "device_kernels");
  EXPECT_NE(implementation(fp32, "sdpa").find("memory-efficient"), std::string::npos)
      << implementation(fp32, "sdpa");
}

TEST(Classify, RecordedGemmAndConvCapturesNameTheirLibrary) {
  const auto linear = classify_capture("ops_linalg_linear_bias_bf16");
  EXPECT_EQ(to_string(linear.where), "device_kernels");
  EXPECT_NE(implementation(linear, "gemm").find("cuBLAS"), std::string::npos)
      << implementation(linear, "gemm");
  EXPECT_EQ(linear.h2d_count + linear.d2h_count, 0);
  const auto conv = classify_capture("ops_conv_conv2d_1x1_fp32");
  EXPECT_EQ(to_string(conv.where), "device_kernels");
  EXPECT_GT(conv.kernel_count, 0);
  // A 1x1 convolution runs a CUTLASS GEMM kernel; the op names the library.
  EXPECT_EQ(implementation(conv, "conv"), "cuDNN");
  EXPECT_EQ(implementation(conv, "gemm"), "CUTLASS (from cuBLAS or cuDNN)");
}

TEST(Classify, RecordedPinnedCopyIsATransferNotAFallback) {
  const auto as_transfer = classify_capture("ops_shape_copy_h2d_pinned_fp32", true);
  EXPECT_EQ(to_string(as_transfer.where), "device_kernels");
  EXPECT_EQ(as_transfer.h2d_count, 1);
  EXPECT_GT(as_transfer.h2d_bytes, 0);
  // The same capture judged as an ordinary operator: a copy with no kernel
  // is not device work, and must not read as one.
  EXPECT_EQ(to_string(classify_capture("ops_shape_copy_h2d_pinned_fp32", false).where), "cpu_fallback");
}
