#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/torch_config.hpp"

using namespace accel;

namespace {
std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(ACCEL_TEST_FIXTURES) + "/torch_config/" + name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(TorchConfig, ParsesTheH200CudaBuild) {
  const auto c = parse_torch_config(read_fixture("torch-2.11-cu130-h200.txt"));
  EXPECT_EQ(c.cuda_runtime, "13.0");
  EXPECT_EQ(c.build.at("BLAS_INFO"), "mkl");
  EXPECT_EQ(c.build.at("USE_CUDA"), "ON");
  EXPECT_EQ(c.build.at("TORCH_VERSION"), "2.11.0");
  EXPECT_EQ(c.build.at("CUDNN_VERSION"), "9.19.0");
  EXPECT_EQ(c.cpu_capability, "AVX512");
  // CXX_FLAGS holds ", " inside its value only at pair boundaries; the flags stay whole.
  EXPECT_NE(c.build.at("CXX_FLAGS").find("-DUSE_KINETO"), std::string::npos);
  const std::vector<std::string> want{"compute_75",  "sm_75",  "compute_80",  "sm_80",
                                      "compute_86",  "sm_86",  "compute_90",  "sm_90",
                                      "compute_100", "sm_100", "compute_120", "sm_120"};
  EXPECT_EQ(c.arch_list, want);
}

TEST(TorchConfig, ParsesDebianCpuBuild) {
  const auto c = parse_torch_config(read_fixture("torch-1.13-debian-cpu.txt"));
  EXPECT_EQ(c.build.at("BLAS_INFO"), "generic");
  EXPECT_EQ(c.build.at("USE_CUDA"), "OFF");
  EXPECT_TRUE(c.cuda_runtime.empty());
  EXPECT_TRUE(c.arch_list.empty());
  EXPECT_NE(c.openmp.find("OpenMP 201511"), std::string::npos);
}

TEST(TorchConfig, GarbageGivesEmpty) {
  const auto c = parse_torch_config("\x01\x02 not a config\n- Build settings: \n");
  EXPECT_TRUE(c.arch_list.empty());
  EXPECT_TRUE(c.build.empty());
}

TEST(ArchInBuild, NvidiaRules) {
  const std::vector<std::string> list{"sm_50", "sm_80", "sm_90", "compute_90"};
  std::string how;
  EXPECT_EQ(arch_in_build(list, "sm_90", &how), true);
  EXPECT_EQ(arch_in_build(list, "sm_86", &how), true);  // sm_80 cubin runs on sm_86
  EXPECT_NE(how.find("sm_80"), std::string::npos);
  EXPECT_EQ(arch_in_build(list, "sm_120", &how), true);  // compute_90 PTX JIT
  EXPECT_NE(how.find("PTX"), std::string::npos);
  // The RTX 5090 case of the shared fixtures: a wheel up to sm_90 without PTX.
  EXPECT_EQ(arch_in_build({"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"}, "sm_120"), false);
  EXPECT_EQ(arch_in_build({"sm_90a"}, "sm_90"), false);  // arch-specific targets need that exact arch
  EXPECT_EQ(arch_in_build({}, "sm_90"), std::nullopt);
}

TEST(ArchInBuild, AmdTargetsMatchExactly) {
  EXPECT_EQ(arch_in_build({"gfx1030", "gfx1100"}, "gfx1032"), false);
  EXPECT_EQ(arch_in_build({"gfx1030", "gfx1100"}, "gfx1030"), true);
  EXPECT_EQ(arch_in_build({"gfx90a:xnack-"}, "gfx90a"), true);
}

TEST(NameStaticBlas, FromBuildInfoOnlyWhenTheProbeCouldNotName) {
  BlasInfo b;
  b.name = "unknown";
  b.evidence = "sgemm_ is exported by libtorch_cpu.so";
  name_static_blas(b, {{"BLAS_INFO", "mkl"}});
  EXPECT_EQ(b.name, "mkl");
  EXPECT_NE(b.evidence.find("BLAS_INFO=mkl"), std::string::npos);

  BlasInfo o;
  o.name = "unknown";
  name_static_blas(o, {{"BLAS_INFO", "open"}});
  EXPECT_EQ(o.name, "openblas");

  BlasInfo ref;
  ref.name = "reference";  // what the process really loaded wins over the build setting
  name_static_blas(ref, {{"BLAS_INFO", "mkl"}});
  EXPECT_EQ(ref.name, "reference");

  BlasInfo none;
  none.name = "unknown";
  name_static_blas(none, {});
  EXPECT_EQ(none.name, "unknown");
  name_static_blas(none, {{"BLAS_INFO", "something-new"}});
  EXPECT_EQ(none.name, "unknown");
}
