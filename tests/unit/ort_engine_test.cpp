// The ONNX Runtime engine against the real runtime (ort_test_util.hpp): both
// model paths give the same model, the check runner's statuses (ok with the
// placement on the CPU, mismatch, unavailable), and run_engine's device
// choice on a runtime that lists CUDA without shipping its library.
#include <gtest/gtest.h>

#include "engines/onnxruntime/checks/check.hpp"
#include "engines/onnxruntime/engine.hpp"
#include "engines/onnxruntime/run_check.hpp"
#include "engines/onnxruntime/session.hpp"
#include "ort_test_util.hpp"

namespace {

using namespace accel;
using namespace accel::ort;

/// One runtime and environment for the whole test program (never released).
const Env& test_env(const std::string& lib) {
  static Runtime* rt = Runtime::open(lib).release();
  static Env* env = new Env(*rt);
  return *env;
}

const CheckDef& row(const std::string& name) {
  for (const auto& d : catalog()) {
    if (d.name == name) return d;
  }
  throw std::runtime_error("no row " + name);
}

CheckRunner cpu_runner(const Env& env) {
  Target t;
  t.candidate.device = "cpu";
  t.candidate.ep = "CPUExecutionProvider";
  RunOptions o;
  o.quick = true;
  o.scratch_dir = std::filesystem::temp_directory_path().string();
  return CheckRunner(env, t, o);
}

TEST(OrtSession, ModelEditorAndProtobufWriterGiveTheSameModel) {
  ACCEL_NEED_ORT(lib);
  const Env& env = test_env(lib);
  ASSERT_NE(env.runtime().editor(), nullptr);
  for (const char* name : {"gemm_bias_transb", "conv2d_3x3", "layernorm", "topk"}) {
    Build b(DType::fp32, DType::fp32, true, 3);
    row(name).build(b);
    std::vector<HostTensor> inputs;
    for (std::size_t i = 0; i < b.graph().inputs.size(); ++i) {
      const auto& spec = b.graph().inputs[i];
      inputs.push_back({spec, encode(spec.dtype, draw_values(b.fills()[i], spec.elements(), 11 + i))});
    }
    std::vector<std::vector<HostTensor>> outs;
    for (bool writer : {false, true}) {
      const Model m = Model::build(env, b.graph(), writer);
      EXPECT_EQ(m.path(), writer ? ModelPath::protobuf : ModelPath::model_editor);
      Session s = Session::create(env, m, SessionConfig{});
      EXPECT_EQ(s.input_count(), b.graph().inputs.size());
      EXPECT_EQ(s.output_count(), b.graph().outputs.size());
      s.bind_inputs(inputs);
      s.run();
      outs.push_back(s.outputs());
    }
    ASSERT_EQ(outs[0].size(), outs[1].size()) << name;
    for (std::size_t i = 0; i < outs[0].size(); ++i) {
      EXPECT_EQ(outs[0][i].spec.dims, outs[1][i].spec.dims) << name;
      EXPECT_EQ(outs[0][i].data, outs[1][i].data) << name << ": the two builders gave different models";
    }
  }
}

TEST(OrtChecks, MatMulOnTheCpuProvider) {
  ACCEL_NEED_ORT(lib);
  const Result r = cpu_runner(test_env(lib)).run(row("matmul"), DType::fp32);
  EXPECT_EQ(r.status, Status::ok) << r.reason << (r.error ? r.error->message : "");
  EXPECT_EQ(r.key, "ort/linalg/matmul/fp32");
  EXPECT_EQ(r.category, "ort-linalg");
  EXPECT_EQ(r.device, "cpu");
  ASSERT_TRUE(r.profile);
  EXPECT_EQ(to_string(r.profile->where), "host");
  EXPECT_EQ(r.profile->kernel_count, 1);
  ASSERT_TRUE(r.accuracy);
  EXPECT_EQ(r.accuracy->method, "cpu_provider_fp64");
  EXPECT_LT(r.accuracy->rel_error, 1e-5);
  EXPECT_GT(r.accuracy->rel_error, 0) << "fp32 against fp64 is never bit-exact for a 256-long sum";
  ASSERT_TRUE(r.timing);
  EXPECT_GT(r.timing->median_us, 0);
  EXPECT_GE(r.timing->samples_us.size(), 3u);
  EXPECT_EQ(r.timing->method, "host_clock_run");
  EXPECT_DOUBLE_EQ(r.work.flops, 2.0 * 256 * 256 * 256);
  EXPECT_GT(r.metrics.at("tflops"), 0);
  EXPECT_FALSE(r.cpu_timing) << "no CPU twin when the CPU is the target";
}

TEST(OrtChecks, WrongResultIsAMismatch) {
  ACCEL_NEED_ORT(lib);
  // A row whose model differs from its reference: +1 only in the row's dtype.
  CheckDef bad{"add_one_off", "test", {DType::fp32}, "R*C", "2*R*C*elem", [](Build& b) {
                 const auto x = b.input("x", {16, 16});
                 const std::string y = b.graph_dtype() == DType::fp32
                                           ? b.node("Add", {x, b.constant("one", {}, {1.0})})
                                           : b.node("Identity", {x});
                 b.output(y, {16, 16});
                 b.bytes = 2048;
                 b.shape = "16x16";
               }};
  const Result r = cpu_runner(test_env(lib)).run(bad, DType::fp32);
  EXPECT_EQ(r.status, Status::mismatch);
  EXPECT_NE(r.reason.find("relative error"), std::string::npos) << r.reason;
}

TEST(OrtChecks, MissingKernelIsUnavailable) {
  ACCEL_NEED_ORT(lib);
  CheckDef none{"no_such_op", "test", {DType::fp32}, "0 (test)", "0", [](Build& b) {
                  b.opset("com.example", 1);
                  const auto x = b.input("x", {4});
                  b.output(b.node("NoSuchOp", {x}, {}, "com.example"), {4});
                  b.bytes = 32;
                  b.shape = "4";
                }};
  const Result r = cpu_runner(test_env(lib)).run(none, DType::fp32);
  EXPECT_EQ(r.status, Status::unavailable) << (r.error ? r.error->message : r.reason);
  EXPECT_NE(r.reason.find("CPUExecutionProvider"), std::string::npos) << r.reason;
}

TEST(OrtEngine, RunsASelectionOnTheCpuAndSaysWhatItFound) {
  ACCEL_NEED_ORT(lib);
  for (bool writer : {false, true}) {
    EngineOptions o;
    o.search.explicit_path = lib;
    o.search.use_python = false;
    o.device = "cpu";
    o.quick = true;
    o.force_writer = writer;
    o.filters = {"ort/linalg/gemv/fp32", "ort/workload/mlp_mnist/fp32"};
    const EngineRun run = run_engine(o);
    ASSERT_EQ(run.setup_error, "");
    EXPECT_EQ(run.info.version, "1.30.0");
    EXPECT_EQ(run.info.found_by, "--onnxruntime");
    EXPECT_EQ(run.info.model_path, writer ? "protobuf" : "model_editor");
    EXPECT_EQ(run.info.device, "cpu");
    EXPECT_FALSE(run.info.ep_devices.empty());
    ASSERT_EQ(run.results.size(), 2u);
    EXPECT_EQ(run.results[0].key, "ort/linalg/gemv/fp32");
    EXPECT_EQ(run.results[0].evidence.value("model_path", ""), writer ? "protobuf" : "model_editor");
    EXPECT_EQ(run.results[1].key, "bench/ort-cpu/workload/mlp_mnist/fp32/b64");
    EXPECT_EQ(to_string(run.results[1].kind), "bench");
    for (const auto& r : run.results) EXPECT_EQ(r.status, Status::ok) << r.key << " " << r.reason;
    EXPECT_GT(run.results[1].metrics.at("samples_per_s"), 0);
  }
}

TEST(OrtEngine, AnInterruptSkipsTheRest) {
  ACCEL_NEED_ORT(lib);
  EngineOptions o;
  o.search.explicit_path = lib;
  o.search.use_python = false;
  o.device = "cpu";
  o.quick = true;
  o.workloads = false;
  o.filters = {"ort/activation/relu/", "ort/activation/tanh/"};
  int polls = 0;
  o.interrupted = [&] { return ++polls > 1; };  // Ctrl-C during the first item
  const EngineRun run = run_engine(o);
  ASSERT_EQ(run.results.size(), 4u);
  EXPECT_EQ(run.results[0].status, Status::ok);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(run.results[i].status, Status::skipped) << run.results[i].key;
    EXPECT_EQ(run.results[i].reason, "not run: interrupted");
  }
}

TEST(OrtEngine, AProviderListedButNotShippedIsRefusedWithTheRuntimesWords) {
  ACCEL_NEED_ORT(lib);
  EngineOptions o;
  o.search.explicit_path = lib;
  o.search.use_python = false;
  o.device = "cuda";
  o.checks = o.workloads = false;
  const EngineRun asked = run_engine(o);
  // npm's onnxruntime-node lists CUDAExecutionProvider without its provider
  // libraries; a runtime that does not list it (PyPI's CPU wheel) cannot show this.
  if (asked.setup_error.find("has no CUDAExecutionProvider") != std::string::npos)
    GTEST_SKIP() << "this runtime does not list CUDAExecutionProvider: " << asked.setup_error;
  EXPECT_NE(asked.setup_error.find("could not create a session"), std::string::npos) << asked.setup_error;
  o.device = "auto";
  const EngineRun automatic = run_engine(o);
  EXPECT_EQ(automatic.setup_error, "");
  EXPECT_EQ(automatic.info.device, "cpu");
  EXPECT_EQ(automatic.info.device_reason, "no GPU provider could create a session (see the warnings)");
  ASSERT_FALSE(automatic.info.warnings.empty());
  EXPECT_EQ(
      automatic.info.warnings[0].rfind("cuda:0 (CUDAExecutionProvider) could not create a session: ", 0), 0u)
      << automatic.info.warnings[0];
  // The runtime's words without its source location, with the kb's cause.
  EXPECT_EQ(automatic.info.warnings[0].find("[ONNXRuntimeError]"), std::string::npos)
      << automatic.info.warnings[0];
  o.device = "dml:1";
  EXPECT_EQ(run_engine(o).setup_error.find("--device dml:1: this ONNX Runtime has no DmlExecutionProvider"),
            0u);
  o.device = "tpu";
  EXPECT_NE(run_engine(o).setup_error.find("takes auto, cpu, gpu"), std::string::npos);
}

}  // namespace
