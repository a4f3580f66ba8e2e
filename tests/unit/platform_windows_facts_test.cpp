// The pure functions behind the Windows probes (platform/windows_facts.hpp),
// on values as the documented APIs return them. Runs on Linux and under Wine.
#include <gtest/gtest.h>

#include "platform/windows_facts.hpp"

namespace accel::platform::detail {
namespace {

TEST(WindowsFacts, LuidAndVersions) {
  EXPECT_EQ(format_luid(0, 0xd1a3), "0x00000000:0x0000d1a3");
  EXPECT_EQ(format_luid(-1, 0xFFFFFFFFu), "0xffffffff:0xffffffff");
  // AMD Adrenalin 24.x reports 31.0.24027.1012 as 0x001F00005DDB03F4.
  EXPECT_EQ(umd_version_string(0x001F00005DDB03F4ull), "31.0.24027.1012");
  EXPECT_EQ(file_version_string(0x0001000F, 0x00020000), "1.15.2.0");
  EXPECT_EQ(file_version_string(0x000E0028, 0x84120000), "14.40.33810.0");
}

TEST(WindowsFacts, Vendors) {
  EXPECT_EQ(pci_vendor_name(0x1002), "amd");
  EXPECT_EQ(pci_vendor_name(0x10de), "nvidia");
  EXPECT_EQ(pci_vendor_name(0x8086), "intel");
  EXPECT_EQ(pci_vendor_name(0x1414), "microsoft");
  EXPECT_EQ(pci_vendor_name(0x1234), "");
}

TEST(WindowsFacts, IntegratedFromDxcoreThenD3d12ThenHeuristic) {
  constexpr std::uint64_t MiB = 1024ull * 1024;
  // DXCore's IsIntegrated wins over D3D12 and the memory heuristic.
  auto r = adapter_integration(true, false, false, 0x1002, 8176 * MiB);
  EXPECT_EQ(r.integrated, true);
  EXPECT_NE(r.basis.find("DXCore IsIntegrated"), std::string::npos) << r.basis;
  r = adapter_integration(false, true, false, 0x1002, 256 * MiB);
  EXPECT_EQ(r.integrated, false);
  EXPECT_NE(r.basis.find("DXCore"), std::string::npos);
  r = adapter_integration(std::nullopt, true, false, 0x1002,
                          4096 * MiB);  // an APU with a big carve-out: UMA wins
  EXPECT_EQ(r.integrated, true);
  EXPECT_NE(r.basis.find("UMA"), std::string::npos);
  r = adapter_integration(std::nullopt, false, false, 0x1002, 8176 * MiB);
  EXPECT_EQ(r.integrated, false);
  r = adapter_integration(true, std::nullopt, true, 0x1414, 0);  // software: neither, whatever DXCore says
  EXPECT_FALSE(r.integrated.has_value());
  EXPECT_NE(r.basis.find("software"), std::string::npos);
  r = adapter_integration(std::nullopt, std::nullopt, false, 0x1002, 512 * MiB - 1);
  EXPECT_EQ(r.integrated, true);
  EXPECT_NE(r.basis.find("heuristic"), std::string::npos);
  r = adapter_integration(std::nullopt, std::nullopt, false, 0x8086, 1024 * MiB);
  EXPECT_EQ(r.integrated, true);
  r = adapter_integration(std::nullopt, std::nullopt, false, 0x8086, 16 * 1024 * MiB);  // Arc A770
  EXPECT_EQ(r.integrated, false);
  EXPECT_NE(r.basis.find("heuristic"), std::string::npos);
}

TEST(WindowsFacts, WddmVersionFromDxcore) {
  // D3DKMT_DRIVERVERSION values (d3dkmthk.h): KMT_DRIVERVERSION_WDDM_1_1 = 1105, _2_7 = 2700, _3_1 = 3100.
  EXPECT_EQ(wddm_version_name(2700), "WDDM 2.7");
  EXPECT_EQ(wddm_version_name(3100), "WDDM 3.1");
  EXPECT_EQ(wddm_version_name(1105), "WDDM 1.1");
  EXPECT_EQ(wddm_version_name(0), "");
  EXPECT_EQ(wddm_version_name(999), "");
}

TEST(WindowsFacts, PythonInstallsAndTheirSitePackages) {
  EXPECT_EQ(python_version_tag({"python.exe", "python3.dll", "python312.dll", "vcruntime140.dll"}), "312");
  EXPECT_EQ(python_version_tag({"PYTHON310.DLL"}), "310");
  EXPECT_EQ(python_version_tag({"python3.dll", "python.exe"}), "");
  EXPECT_EQ(python_version_tag({"python3x.dll"}), "");
  // A venv: its own Lib\site-packages, then the folder of python.exe, then the user site.
  auto c = site_packages_candidates("C:\\Users\\me\\venv\\Scripts\\python.exe",
                                    "C:\\Users\\me\\AppData\\Roaming", "312");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], "C:\\Users\\me\\venv\\Lib\\site-packages");
  EXPECT_EQ(c[2], "C:\\Users\\me\\AppData\\Roaming\\Python\\Python312\\site-packages");
  // An install or conda env: <dir>\Lib\site-packages; no user site without the version.
  c = site_packages_candidates("C:\\Users\\me\\miniconda3\\python.exe", "C:\\x", "");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0], "C:\\Users\\me\\miniconda3\\Lib\\site-packages");
}

TEST(WindowsFacts, TorchVersionPy) {
  // As a ROCm wheel writes torch/version.py (annotated assignments), and an older CPU one.
  const auto rocm = parse_torch_version_py(
      "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
      "__version__ = '2.6.0+rocm6.2.4'\ndebug = False\ncuda: Optional[str] = None\n"
      "git_version = '1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340'\nhip: Optional[str] = "
      "'6.2.41134-65d174c3e'\n");
  EXPECT_EQ(rocm.version, "2.6.0+rocm6.2.4");
  EXPECT_EQ(rocm.hip, "6.2.41134-65d174c3e");
  EXPECT_EQ(rocm.cuda, "");
  const auto cu = parse_torch_version_py("__version__ = \"2.5.1+cu124\"\ncuda = '12.4'\nhip = None\n");
  EXPECT_EQ(cu.version, "2.5.1+cu124");
  EXPECT_EQ(cu.cuda, "12.4");
  EXPECT_EQ(cu.hip, "");
  EXPECT_EQ(parse_torch_version_py("hipster = '1'\ncudaversion = '2'\n").hip, "");
  EXPECT_EQ(parse_torch_version_py("").version, "");
  // onnxruntime/__init__.py names its version the same way (for wheels whose capi has only the .pyd).
  EXPECT_EQ(parse_torch_version_py(
                "\"\"\"ONNX Runtime\"\"\"\n__version__ = \"1.22.0\"\n__author__ = \"Microsoft\"\n")
                .version,
            "1.22.0");
}

TEST(WindowsFacts, DirectmlImportInADll) {
  // The DirectML build of onnxruntime.dll names DirectML.dll among its delay-load imports.
  const std::string dml = std::string("MZ\x90\0...\0DirectML.dll\0d3d12.dll\0", 30);
  EXPECT_TRUE(bytes_mention_ascii_ci(dml, "DirectML.dll"));
  EXPECT_TRUE(bytes_mention_ascii_ci("xxdirectml.DLLyy", "DirectML.dll"));
  EXPECT_FALSE(bytes_mention_ascii_ci("onnxruntime CPU provider only", "DirectML.dll"));
  EXPECT_FALSE(bytes_mention_ascii_ci("DirectML", "DirectML.dll"));
}

TEST(WindowsFacts, PowerSchemesModesAndStatus) {
  EXPECT_EQ(power_scheme_name("381B4222-F694-41F0-9685-FF5BB260DF2E"), "Balanced");
  EXPECT_EQ(power_scheme_name("a1841308-3541-4fab-bc81-f71556f20b4a"), "Power saver");
  EXPECT_EQ(power_scheme_name("8c5e7fda-e8bf-4a96-9a85-a6e23a8c635c"), "High performance");
  EXPECT_EQ(power_scheme_name("11111111-2222-3333-4444-555555555555"), "");
  EXPECT_TRUE(is_power_saver_scheme("A1841308-3541-4FAB-BC81-F71556F20B4A"));
  EXPECT_FALSE(is_power_saver_scheme("381b4222-f694-41f0-9685-ff5bb260df2e"));
  EXPECT_EQ(power_mode_name("961cc777-2547-4f9d-8174-7d86181b8a7a"), "best power efficiency");
  EXPECT_EQ(power_mode_name("00000000-0000-0000-0000-000000000000"), "balanced");
  EXPECT_EQ(power_mode_name("ded574b5-45a0-4f42-8737-46345c09c238"), "best performance");
  EXPECT_EQ(power_source_name(0), "battery");
  EXPECT_EQ(power_source_name(1), "ac");
  EXPECT_EQ(power_source_name(255), "unknown");
  EXPECT_EQ(battery_percent(64), 64);
  EXPECT_FALSE(battery_percent(255).has_value());
  EXPECT_EQ(battery_saver_on(1), true);
  EXPECT_EQ(battery_saver_on(0), false);
  EXPECT_FALSE(battery_saver_on(7).has_value());
}

TEST(WindowsFacts, RegistryValues) {
  EXPECT_EQ(smart_app_control_state(0), "off");
  EXPECT_EQ(smart_app_control_state(1), "on");
  EXPECT_EQ(smart_app_control_state(2), "evaluation");
  EXPECT_EQ(smart_app_control_state(9), "unknown value 9");
  EXPECT_EQ(hardware_gpu_scheduling(2), true);
  EXPECT_EQ(hardware_gpu_scheduling(1), false);
  EXPECT_FALSE(hardware_gpu_scheduling(0).has_value());
  EXPECT_EQ(gpu_preference_name("GpuPreference=2;"), "high performance");
  EXPECT_EQ(gpu_preference_name("SwapEffectUpgradeEnable=1;GpuPreference=1;"), "power saving");
  EXPECT_EQ(gpu_preference_name("GpuPreference=0;"), "let Windows decide");
  EXPECT_EQ(gpu_preference_name("SwapEffectUpgradeEnable=1;"), "");
  EXPECT_EQ(gpu_preference_name("GpuPreference="), "");
}

TEST(WindowsFacts, PythonExecutablesAndPathLists) {
  EXPECT_TRUE(is_python_executable("C:\\Users\\me\\miniconda3\\python.exe"));
  EXPECT_TRUE(is_python_executable("C:\\Python312\\PYTHONW.EXE"));
  EXPECT_TRUE(is_python_executable("C:/venv/Scripts/python3.12.exe"));
  EXPECT_FALSE(is_python_executable("C:\\Program Files\\pythonista.exe"));
  EXPECT_FALSE(is_python_executable("C:\\Games\\game.exe"));
  const auto p = split_windows_path_list(
      "C:\\Windows\\system32;;\"C:\\Program Files\\AMD\\ROCm\\6.2\\bin\\\";"
      "c:\\windows\\System32;C:\\;  D:\\tools  ");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], "C:\\Windows\\system32");
  EXPECT_EQ(p[1], "C:\\Program Files\\AMD\\ROCm\\6.2\\bin");
  EXPECT_EQ(p[2], "C:\\");
  EXPECT_EQ(p[3], "D:\\tools");
  EXPECT_TRUE(split_windows_path_list("").empty());
}

}  // namespace
}  // namespace accel::platform::detail
