// Which CPU BLAS is loaded: the pure classification from library paths and
// identification symbols, the live probe, and the loaded-library helpers.
#include <gtest/gtest.h>

#include <fstream>

#include "platform/detail.hpp"
#include "platform/probes.hpp"
#include "platform_test_util.hpp"

namespace accel::platform {
namespace {

using detail::BlasSymbols;
using detail::classify_blas;
using detail::LoadedLibrary;

const LoadedLibrary kDebianReference{"/lib/x86_64-linux-gnu/libblas.so.3",
                                     "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"};
const LoadedLibrary kDebianLapack{"/lib/x86_64-linux-gnu/liblapack.so.3",
                                  "/usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3.11.0"};

TEST(ClassifyBlas, DebianAlternativesReference) {
  BlasSymbols s;
  s.sgemm_provider = kDebianReference.real_path;
  const BlasInfo b = classify_blas(
      {{"/usr/lib/libtorch_cpu.so", "/usr/lib/libtorch_cpu.so.1.13"}, kDebianReference, kDebianLapack}, s);
  EXPECT_EQ(b.name, "reference");
  EXPECT_EQ(b.version, "3.11.0");
  EXPECT_EQ(b.library, "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0");
  EXPECT_NE(b.evidence.find("alternatives directory blas/"), std::string::npos) << b.evidence;
  EXPECT_NE(b.evidence.find("resolves to"), std::string::npos);
  EXPECT_NE(
      b.evidence.find("LAPACK: /usr/lib/x86_64-linux-gnu/lapack/liblapack.so.3.11.0 (netlib reference)"),
      std::string::npos)
      << b.evidence;
}

TEST(ClassifyBlas, DebianAlternativesOpenblasAndAtlasByPath) {
  const BlasInfo o = classify_blas(
      {{"/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"}},
      {});
  EXPECT_EQ(o.name, "openblas");
  const BlasInfo a = classify_blas(
      {{"/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/x86_64-linux-gnu/atlas/libblas.so.3.10.3"}}, {});
  EXPECT_EQ(a.name, "atlas");
  const BlasInfo blis = classify_blas(
      {{"/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"}}, {});
  EXPECT_EQ(blis.name, "blis");
}

TEST(ClassifyBlas, OpenblasBySymbolWins) {
  BlasSymbols s;
  s.openblas_config = "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64";
  s.openblas_threads = 2;
  // Even though the file is named libblas.so.3, the exported function says OpenBLAS.
  const BlasInfo b = classify_blas(
      {{"/lib/x86_64-linux-gnu/libblas.so.3", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"}}, s);
  EXPECT_EQ(b.name, "openblas");
  EXPECT_EQ(b.version, "0.3.21");
  EXPECT_NE(b.evidence.find("openblas_get_config()"), std::string::npos);
  EXPECT_NE(b.evidence.find("openblas_get_num_threads() = 2"), std::string::npos);
}

TEST(ClassifyBlas, MklAndBlisBySymbol) {
  BlasSymbols m;
  m.mkl_version = "Intel(R) oneAPI Math Kernel Library Version 2024.0-Product Build 20231011 for Intel(R) 64";
  m.sgemm_provider = "/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2";
  const BlasInfo b = classify_blas({{"/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2", ""}}, m);
  EXPECT_EQ(b.name, "mkl");
  EXPECT_EQ(b.version, "2024.0");
  EXPECT_EQ(b.library, "/opt/intel/oneapi/mkl/latest/lib/libmkl_rt.so.2");

  BlasSymbols l;
  l.blis_version = "0.9.0";
  const BlasInfo c = classify_blas({{"/usr/lib/libblis.so.4", "/usr/lib/libblis.so.4.0.0"}}, l);
  EXPECT_EQ(c.name, "blis");
  EXPECT_EQ(c.version, "0.9.0");
  EXPECT_EQ(c.library, "/usr/lib/libblis.so.4.0.0");
}

TEST(ClassifyBlas, FlexiblasNamesItsBackend) {
  BlasSymbols s;
  s.flexiblas_backend = "NETLIB";
  const BlasInfo b = classify_blas({{"/usr/lib64/libflexiblas.so.3", "/usr/lib64/libflexiblas.so.3.4"}}, s);
  EXPECT_EQ(b.name, "reference");
  EXPECT_NE(b.evidence.find("flexiblas_current_backend()"), std::string::npos);
  s.flexiblas_backend = "OPENBLAS-OPENMP";
  EXPECT_EQ(classify_blas({}, s).name, "openblas");
}

TEST(ClassifyBlas, PlainLibblasIsLikelyReference) {
  const BlasInfo b = classify_blas({{"/usr/lib/libblas.so.3", "/usr/lib/libblas.so.3.12.0"}}, {});
  EXPECT_EQ(b.name, "reference");
  EXPECT_EQ(b.evidence.rfind("likely:", 0), 0u) << b.evidence;
}

TEST(ClassifyBlas, AccelerateByPath) {
  const BlasInfo b = classify_blas({{"/System/Library/Frameworks/Accelerate.framework/Versions/A/Frameworks/"
                                     "vecLib.framework/libBLAS.dylib",
                                     ""}},
                                   {});
  EXPECT_EQ(b.name, "accelerate");
}

TEST(ClassifyBlas, StaticInsideTorchOrNothing) {
  BlasSymbols s;
  s.sgemm_provider = "/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cpu.so";
  const BlasInfo b = classify_blas({{s.sgemm_provider, s.sgemm_provider}}, s);
  EXPECT_EQ(b.name, "unknown");
  EXPECT_NE(b.evidence.find("statically"), std::string::npos);

  const BlasInfo none = classify_blas({}, {});
  EXPECT_TRUE(none.name.empty());
  EXPECT_EQ(none.not_collected.count("name"), 1u);
}

TEST(ProbeBlas, LiveDoesNotThrow) {
  BlasInfo b;
  EXPECT_NO_THROW(b = probe_blas());
  // unit_tests links no BLAS: either nothing is found (and said so) or something is named.
  EXPECT_TRUE(!b.name.empty() || b.not_collected.count("name") == 1);
}

TEST(LoadedLibraries, FindsTheCLibrary) {
#if defined(__linux__)
  std::string err;
  const auto libs = detail::loaded_libraries(&err);
  EXPECT_TRUE(err.empty());
  EXPECT_FALSE(libs.empty());
  const std::string libc = loaded_library_path("libc.so");
  EXPECT_FALSE(libc.empty());
  EXPECT_EQ(libc.front(), '/');
  EXPECT_TRUE(loaded_library_path("libdefinitely-not-loaded-xyz.so").empty());
#endif
}

// A clang offload bundle as hipcc writes it into .hip_fatbin.
std::string bundle(const std::vector<std::string>& ids) {
  auto u64 = [](std::uint64_t v) {
    std::string s(8, '\0');
    for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return s;
  };
  std::string out = "__CLANG_OFFLOAD_BUNDLE__" + u64(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i)
    out += u64(4096 * (i + 1)) + u64(100) + u64(ids[i].size()) + ids[i];
  return out;
}

TEST(OffloadTargets, ReadsBundleIds) {
  test::TempTree t("offload");
  std::string file(5000, 'x');
  file += bundle({"host-x86_64-unknown-linux-gnu-", "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-",
                  "hipv4-amdgcn-amd-amdhsa--gfx1030"});
  file += std::string(3000, '\0');
  file += bundle(
      {"host-x86_64-unknown-linux-gnu-", "hip-amdgcn-amd-amdhsa-gfx906", "hipv4-amdgcn-amd-amdhsa--gfx1030"});
  file += "__CLANG_OFFLOAD_BUNDLE__";  // a stray magic at the end: ignored
  t.write("libfake_hip.so", file);
  EXPECT_EQ(offload_targets_in_file(t.path("libfake_hip.so")),
            (std::vector<std::string>{"gfx1030", "gfx906", "gfx90a:xnack-"}));
  EXPECT_TRUE(offload_targets_in_file(t.path("missing.so")).empty());
}

}  // namespace
}  // namespace accel::platform
