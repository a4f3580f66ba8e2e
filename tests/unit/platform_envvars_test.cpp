// The environment variables reported with their effect, over a fake environment
// and the real kb/env_vars.json.
#include <gtest/gtest.h>

#include "core/kb.hpp"
#include "platform/probes.hpp"

namespace accel::platform {
namespace {

const KnowledgeBase& kb() {
  static const KnowledgeBase k = KnowledgeBase::load(ACCEL_KB_DIR);
  return k;
}

const EnvVar* find(const std::vector<EnvVar>& vars, const std::string& name) {
  for (const auto& v : vars) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST(ProbeEnvVars, ExactPrefixAndUnknown) {
  const auto vars =
      probe_env_vars(kb(), {"HOME=/root", "CUDA_VISIBLE_DEVICES=1,0", "HSA_OVERRIDE_GFX_VERSION=10.3.0",
                            "HSA_OVERRIDE_GFX_VERSION_2=11.0.0", "MIOPEN_FIND_MODE=FAST",
                            "MIOPEN_DEBUG_CONV_GEMM=0", "ROCBLAS_CHECK_NUMERICS=1", "PATH=/usr/bin",
                            "MY_OWN_VAR=x", "OMP_NUM_THREADS=4", "EMPTY=", "=weird", "NOEQUALS"});
  ASSERT_NE(find(vars, "CUDA_VISIBLE_DEVICES"), nullptr);
  EXPECT_EQ(find(vars, "CUDA_VISIBLE_DEVICES")->value, "1,0");
  EXPECT_NE(find(vars, "CUDA_VISIBLE_DEVICES")->effect.find("renumbers"), std::string::npos);

  // The exact entry, not the per-device prefix or HSA_*.
  ASSERT_NE(find(vars, "HSA_OVERRIDE_GFX_VERSION"), nullptr);
  EXPECT_NE(find(vars, "HSA_OVERRIDE_GFX_VERSION")->effect.find("every AMD GPU"), std::string::npos);
  ASSERT_NE(find(vars, "HSA_OVERRIDE_GFX_VERSION_2"), nullptr);
  EXPECT_NE(find(vars, "HSA_OVERRIDE_GFX_VERSION_2")->effect.find("node n only"), std::string::npos);

  // Exact MIOpen entry vs the MIOPEN_* prefix.
  ASSERT_NE(find(vars, "MIOPEN_FIND_MODE"), nullptr);
  EXPECT_NE(find(vars, "MIOPEN_FIND_MODE")->effect.find("HYBRID"), std::string::npos);
  ASSERT_NE(find(vars, "MIOPEN_DEBUG_CONV_GEMM"), nullptr);
  EXPECT_NE(find(vars, "MIOPEN_DEBUG_CONV_GEMM")->effect.find("MIOpen setting"), std::string::npos);
  ASSERT_NE(find(vars, "ROCBLAS_CHECK_NUMERICS"), nullptr);
  ASSERT_NE(find(vars, "OMP_NUM_THREADS"), nullptr);
  EXPECT_EQ(find(vars, "OMP_NUM_THREADS")->value, "4");

  EXPECT_EQ(find(vars, "HOME"), nullptr);
  EXPECT_EQ(find(vars, "PATH"), nullptr);
  EXPECT_EQ(find(vars, "MY_OWN_VAR"), nullptr);
  EXPECT_EQ(find(vars, "EMPTY"), nullptr);
  EXPECT_EQ(vars.size(), 7u);
  for (std::size_t i = 1; i < vars.size(); ++i) EXPECT_LT(vars[i - 1].name, vars[i].name);  // sorted
}

TEST(ProbeEnvVars, FirstDefinitionWinsAndEmptyValueIsKept) {
  const auto vars = probe_env_vars(kb(), {"CUDA_VISIBLE_DEVICES=", "CUDA_VISIBLE_DEVICES=0"});
  ASSERT_EQ(vars.size(), 1u);
  EXPECT_EQ(vars[0].value, "");  // an empty CUDA_VISIBLE_DEVICES hides every GPU: it must show
}

TEST(ProbeEnvVars, KbCoversTheVariablesUsersAskAbout) {
  for (const char* name : {"CUDA_VISIBLE_DEVICES",
                           "HIP_VISIBLE_DEVICES",
                           "ROCR_VISIBLE_DEVICES",
                           "GPU_DEVICE_ORDINAL",
                           "HSA_OVERRIDE_GFX_VERSION",
                           "HSA_OVERRIDE_GFX_VERSION_1",
                           "PYTORCH_CUDA_ALLOC_CONF",
                           "PYTORCH_HIP_ALLOC_CONF",
                           "PYTORCH_ROCM_ARCH",
                           "PYTORCH_MPS_HIGH_WATERMARK_RATIO",
                           "PYTORCH_MPS_LOW_WATERMARK_RATIO",
                           "PYTORCH_ENABLE_MPS_FALLBACK",
                           "OMP_NUM_THREADS",
                           "MKL_NUM_THREADS",
                           "OPENBLAS_NUM_THREADS",
                           "MIOPEN_USER_DB_PATH",
                           "MIOPEN_FIND_MODE",
                           "MIOPEN_ENABLE_LOGGING",
                           "ROCBLAS_LAYER",
                           "HIPBLASLT_LOG_LEVEL",
                           "CUBLAS_WORKSPACE_CONFIG",
                           "CUDA_LAUNCH_BLOCKING",
                           "AMD_SERIALIZE_KERNEL",
                           "TORCH_USE_CUDA_DSA",
                           "NVIDIA_TF32_OVERRIDE",
                           "CUDA_MODULE_LOADING",
                           "LD_LIBRARY_PATH",
                           "TORCH_BLAS_PREFER_HIPBLASLT",
                           "TORCH_ROCM_AOTRITON_ENABLE_EXPERIMENTAL",
                           "ZE_AFFINITY_MASK",
                           "ONEAPI_DEVICE_SELECTOR"}) {
    EXPECT_FALSE(kb().env_var_effect(name).empty()) << name;
  }
}

TEST(ProbeEnvVars, LiveEnvironmentDoesNotThrow) { EXPECT_NO_THROW(probe_env_vars(kb())); }

}  // namespace
}  // namespace accel::platform
