// Facts a log carries whatever its message (issue 15, evidence extraction):
// the torch build written in prose, GPU marketing names mapped through
// kb/gpus.json, the OS from paths and words, the compute capability in
// parentheses. Each fact changes the reading or the fix.
#include <gtest/gtest.h>

#include <sstream>

#include "kb_test_util.hpp"

namespace accel {
namespace {

using testing::contains_ci;
using testing::has_id;
using testing::repo_kb;

MachineFacts facts_of(const std::string& log) {
  std::istringstream in(log);
  return repo_kb().explain_stream(in, MachineContext{}).facts;
}

TEST(KbLogFacts, ACpuTorchNamedInProseIsReadWithoutAnError) {
  const auto ds =
      repo_kb().explain("I have torch 2.4.0+cpu installed and training is slow\n", MachineContext{});
  ASSERT_TRUE(has_id(ds, "torch_build_evidence"));
  EXPECT_TRUE(contains_ci(ds.front().cause, "CPU-only"));
  EXPECT_EQ(facts_of("pytorch version 2.5.1+cu121 on my box\n").torch_version, "2.5.1+cu121");
  // A version without a wheel tag says nothing about the build.
  EXPECT_TRUE(repo_kb().explain("I use torch 2.4 and it is slow\n", MachineContext{}).empty());
}

TEST(KbLogFacts, AGpuNameInProseGivesItsArchitecture) {
  EXPECT_EQ(facts_of("I am using an RTX 3060 with torch 2.8.0+cu128\n").sm, "sm_86");
  EXPECT_EQ(facts_of("GPU 0: NVIDIA GeForce GTX 1080 (sm_61)\n").sm, "sm_61");
  const auto amd = facts_of("my AMD Radeon RX 6650 XT is not used\n");
  EXPECT_EQ(amd.gfx, "gfx1032");
  EXPECT_EQ(amd.vendor, "amd");
  // lspci's display controller lines, with the code names of Vega APUs.
  EXPECT_EQ(
      facts_of("05:00.0 VGA compatible controller: Advanced Micro Devices, Inc. [AMD/ATI] Cezanne [Radeon "
               "Vega Series / Radeon Vega Mobile Series] (rev c6)\n")
          .gfx,
      "gfx90c");
  EXPECT_EQ(facts_of("AMD Radeon 860M Graphics\n").gfx, "gfx1152");
}

TEST(KbLogFacts, ARequiredComputeCapabilityIsNotTheMachines) {
  // Messages that state a requirement name a capability the GPU lacks (SageAttention, FP8 models).
  EXPECT_EQ(
      facts_of("Error: SM89 kernel is not available. Make sure you GPUs with compute capability 8.9.\n").sm,
      "");
  EXPECT_EQ(facts_of("ERROR: FP8 models require a GPU with Compute Capability 8.9 or higher\n").sm, "");
  EXPECT_EQ(facts_of("Sorry, need at least compute capability 7.0+!\n").sm, "");
  // The GPU's own capability, as tools and frameworks print it.
  EXPECT_EQ(facts_of("  Device 0: A100-SXM4-40GB, compute capability 8.0\n").sm, "sm_80");
  EXPECT_EQ(facts_of("Your Tesla T4 GPU has compute capability 7.5.\n").sm, "sm_75");
  EXPECT_EQ(
      facts_of("(device: 0, name: GeForce GTX 1070, pci bus id: 0000:01:00.0, compute capability: 6.1)\n").sm,
      "sm_61");
  EXPECT_EQ(facts_of("TensorFlow was not built with CUDA kernel binaries compatible with compute capability "
                     "12.0.\n")
                .sm,
            "sm_120");
}

TEST(KbLogFacts, AStatedPythonVersionWinsOverAWheelTag) {
  // A wheel's cp tag is an inference: pip chose it for this Python, or was asked to install it.
  EXPECT_EQ(facts_of("  Downloading torch-2.5.1-cp312-cp312-win_amd64.whl (2.4 GB)\n").python, "3.12");
  EXPECT_EQ(facts_of(" pip install .\\torch_directml-0.2.0.dev230426-cp310-cp310-win_amd64.whl\n"
                     "Python --version     Python 3.11.3\n")
                .python,
            "3.11");
  // A wheel pip refuses is not for this Python.
  EXPECT_EQ(
      facts_of("ERROR: torch_directml-0.2.0.dev230426-cp310-cp310-win_amd64.whl is not a supported wheel "
               "on this platform.\n")
          .python,
      "");
  EXPECT_EQ(facts_of("$ python -V Python 3.9.7\n").python, "3.9");
  EXPECT_EQ(facts_of("$ python3.13 --version Python 3.13.0rc1\n").python, "3.13");
}

TEST(KbLogFacts, AWindowsScriptOrProgramNameIsAWeakOsFact) {
  // webui-user.bat, train.ps1, python.exe: a Windows machine, unless a line says otherwise.
  EXPECT_EQ(
      facts_of("Error: No module named 'triton' (run install-cn.ps1 success, run train.ps1 error)\n").os,
      "windows");
  EXPECT_EQ(facts_of("python.exe -m pip install torch\n").os, "windows");
  // A POSIX path to an .exe (WSL's view of C:, a package's bundled launcher) is not a Windows machine.
  EXPECT_EQ(facts_of("/mnt/c/Windows/System32/nvidia-smi.exe\n").os, "");
  EXPECT_EQ(facts_of("copying setuptools/cli-64.exe -> build/lib.linux-x86_64-cpython-310/setuptools\n").os,
            "");
  EXPECT_EQ(facts_of("Launching webui-user.bat\nOS: Ubuntu 22.04.4 LTS (x86_64)\n").os, "linux");
  EXPECT_EQ(facts_of("see the batch size in config.yaml\n").os, "") << "a word, not a file name";
}

TEST(KbLogFacts, TheOsComesFromPathsAndWords) {
  EXPECT_EQ(facts_of("File \"C:\\Users\\me\\venv\\lib\\site-packages\\torch\\__init__.py\", line 1\n").os,
            "windows");
  EXPECT_EQ(facts_of("running on Windows 11 with an RX 6600\n").os, "windows");
  EXPECT_EQ(facts_of("File \"/Users/me/miniforge3/lib/python3.11/site-packages/torch/nn.py\"\n").os, "macos");
  EXPECT_EQ(facts_of("/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link\n").os, "wsl");
  // Ollama prints the WSL library path in its search globs on every Linux host.
  EXPECT_EQ(
      facts_of("msg=\"gpu library search\" globs=\"[/usr/lib/wsl/lib/libcuda.so* /usr/local/cuda*/lib]\"\n")
          .os,
      "");
  EXPECT_EQ(facts_of("File \"/home/me/venv/lib/python3.11/site-packages/torch/nn.py\"\n").os, "");
}

TEST(KbLogFacts, TheOsChangesTheFix) {
  // The same HIP error: an override on Linux, no override on Windows.
  const std::string err = "RuntimeError: HIP error: invalid device function\n";
  const auto win = repo_kb().explain("my RX 6650 XT on Windows\n" + err, MachineContext{});
  ASSERT_FALSE(win.empty());
  EXPECT_FALSE(contains_ci(win.front().fix, "export HSA_OVERRIDE_GFX_VERSION"));
  const auto lin = repo_kb().explain("my RX 6650 XT on Ubuntu 22.04\n" + err, MachineContext{});
  ASSERT_FALSE(lin.empty());
  EXPECT_TRUE(contains_ci(lin.front().fix, "HSA_OVERRIDE_GFX_VERSION=10.3.0"));
}

}  // namespace
}  // namespace accel
