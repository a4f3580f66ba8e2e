// Peaks: kb/gpus.json loading and lookup by the names devices really report,
// datasheet figures, estimates for unknown GPUs and for the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/kb.hpp"
#include "core/peaks.hpp"

using namespace accel;

namespace {

const GpuPeakTable& table() {
  static const GpuPeakTable t = GpuPeakTable::load(ACCEL_KB_DIR);
  return t;
}

/// The estimates' per-architecture rates (kb/arch.json peak_rates).
const PeakRates& rates() { return table().rates(); }

bool has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

GpuPeakRow row_by_id(const std::string& id) {
  for (const auto& r : table().rows()) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "no row " << id;
  return {};
}

/// A minimal valid gpus.json with one row; `patch` replaces a fragment.
std::string one_row(const std::string& patterns = R"(["^Test GPU$"])",
                    const std::string& peaks = R"({"fp32": 10})",
                    const std::string& source = R"({"title": "t", "url": "https://example.com"})") {
  return R"({"schema": 1, "gpus": [{"id": "t", "name": "Test", "vendor": "nvidia", "arch": "sm_90", "patterns": )" +
         patterns + R"(, "peaks": )" + peaks + R"(, "source": )" + source + "}]}";
}

}  // namespace

// ---------------------------------------------------------------- loading

TEST(PeakTable, LoadsRepositoryTable) {
  ASSERT_NO_THROW(table());
  EXPECT_GE(table().rows().size(), 30u);
  for (const auto& r : table().rows()) {
    SCOPED_TRACE(r.id);
    EXPECT_FALSE(r.source_title.empty());
    EXPECT_TRUE(has(r.source_url, "https://")) << r.source_url;
    EXPECT_TRUE(r.bandwidth_gbps.has_value());
    EXPECT_TRUE(r.memory_gb.has_value());
    EXPECT_TRUE(r.units.has_value());
    ASSERT_TRUE(r.peaks.count("fp32"));
    // Sanity of dense figures: matrix dtypes never below the fp32 vector rate,
    // int8 never below fp16 where both exist.
    for (const char* d : {"fp16", "bf16", "tf32"}) {
      if (r.peaks.count(d)) EXPECT_GE(r.peaks.at(d), r.peaks.at("fp32") * 0.99) << d;
    }
    if (r.peaks.count("int8") && r.peaks.count("fp16"))
      EXPECT_GE(r.peaks.at("int8"), r.peaks.at("fp16") * 0.99);
  }
}

TEST(PeakTable, LastLevelCacheHasItsOwnSource) {
  int with = 0;
  for (const auto& r : table().rows()) {
    if (!r.llc) continue;
    SCOPED_TRACE(r.id);
    ++with;
    EXPECT_GE(r.llc->bytes, 2ull << 20);    // no GPU of the table has under 2 MiB
    EXPECT_LE(r.llc->bytes, 256ull << 20);  // MI300X's Infinity Cache is the largest
    EXPECT_TRUE(r.llc->level == "L2" || r.llc->level == "Infinity Cache");
    // A vendor document, or the record of a measurement on that card.
    EXPECT_TRUE(r.llc->source_url.rfind("https://", 0) == 0 ||
                r.llc->source_url.rfind("docs/validation/", 0) == 0)
        << r.llc->source_url;
    EXPECT_FALSE(r.llc->source_title.empty());
  }
  EXPECT_GE(with, 20);
  EXPECT_EQ(table().lookup("AMD Radeon RX 6650 XT")->llc->bytes, 32ull << 20);
  EXPECT_EQ(table().lookup("NVIDIA H100 80GB HBM3")->llc->describe(), "50 MiB L2");

  auto with_llc = [](const std::string& llc) {
    std::string row = one_row();
    return row.replace(row.find(R"(, "source")"), 0, R"(, "llc": )" + llc);
  };
  const std::string src = R"("source": {"title": "t", "url": "https://example.com"})";
  EXPECT_NO_THROW(GpuPeakTable::parse(with_llc(R"({"bytes": 1048576, "level": "L2", )" + src + "}"), "t"));
  EXPECT_NO_THROW(GpuPeakTable::parse(with_llc("null"), "t"));
  EXPECT_THROW(GpuPeakTable::parse(with_llc(R"({"bytes": 0, "level": "L2", )" + src + "}"), "t"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(with_llc(R"({"bytes": 1.5, "level": "L2", )" + src + "}"), "t"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(with_llc(R"({"bytes": 1048576, "level": "L3", )" + src + "}"), "t"),
               KbError);
  EXPECT_THROW(GpuPeakTable::parse(with_llc(R"({"bytes": 1048576, "level": "L2"})"), "t"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(with_llc("32"), "t"), KbError);
  try {
    GpuPeakTable::parse(with_llc(R"({"bytes": 1048576, "level": "L9", )" + src + "}"), "gpus.json");
    ADD_FAILURE() << "no error";
  } catch (const KbError& e) {
    EXPECT_TRUE(has(e.what(), "gpu 't': llc")) << e.what();
  }
}

TEST(PeakTable, MissingFileIsKbError) { EXPECT_THROW(GpuPeakTable::load("/nonexistent/kb"), KbError); }

TEST(PeakTable, MalformedDataIsKbError) {
  EXPECT_NO_THROW(GpuPeakTable::parse(one_row(), "test"));
  EXPECT_THROW(GpuPeakTable::parse("{", "test"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(R"({"gpus": 3})", "test"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"(["(unclosed"])"), "test"), KbError);  // bad RE2
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"([])"), "test"), KbError);             // no patterns
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"(["x"])", R"({"fp32": -1})"), "test"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"(["x"])", R"({"fp8": 1})"), "test"), KbError);  // unknown key
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"(["x"])", R"({"fp32": "fast"})"), "test"), KbError);
  EXPECT_THROW(GpuPeakTable::parse(one_row(R"(["x"])", R"({"fp32": 1})", R"({"title": "t"})"), "test"),
               KbError);
  try {
    GpuPeakTable::parse(one_row(R"(["(unclosed"])"), "gpus.json");
  } catch (const KbError& e) {
    EXPECT_TRUE(has(e.what(), "gpus.json")) << e.what();
    EXPECT_TRUE(has(e.what(), "'t'")) << e.what();  // names the row
  }
}

// ---------------------------------------------------------------- lookup by reported name

TEST(PeakLookup, EveryRequiredGpuByItsReportedName) {
  // The names as torch (cudaDeviceProp/hipDeviceProp/XPU) or NVML report them.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NVIDIA H100 80GB HBM3", "h100-sxm"},
      {"NVIDIA H100 PCIe", "h100-pcie"},
      {"NVIDIA H200", "h200-sxm"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb"},
      {"NVIDIA A100-SXM4-40GB", "a100-sxm4-40gb"},
      {"NVIDIA A100 80GB PCIe", "a100-pcie-80gb"},
      {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb"},
      {"NVIDIA L4", "l4"},
      {"NVIDIA L40S", "l40s"},
      {"NVIDIA GeForce RTX 3060", "rtx-3060-12gb"},
      {"NVIDIA GeForce RTX 3080", "rtx-3080-10gb"},
      {"NVIDIA GeForce RTX 3090", "rtx-3090"},
      {"NVIDIA GeForce RTX 4060", "rtx-4060"},
      {"NVIDIA GeForce RTX 4070", "rtx-4070"},
      {"NVIDIA GeForce RTX 4080", "rtx-4080"},
      {"NVIDIA GeForce RTX 4090", "rtx-4090"},
      {"NVIDIA GeForce RTX 5090", "rtx-5090"},
      {"AMD Radeon RX 6600", "rx-6600"},
      {"AMD Radeon RX 6650 XT", "rx-6650-xt"},
      {"AMD Radeon RX 6700 XT", "rx-6700-xt"},
      {"AMD Radeon RX 6800 XT", "rx-6800-xt"},
      {"AMD Radeon RX 6900 XT", "rx-6900-xt"},
      {"AMD Radeon RX 7600", "rx-7600"},
      {"AMD Radeon RX 7800 XT", "rx-7800-xt"},
      {"AMD Radeon RX 7900 XTX", "rx-7900-xtx"},
      {"Radeon RX 7900 XTX", "rx-7900-xtx"},
      {"AMD Radeon RX 9070 XT", "rx-9070-xt"},
      {"AMD Instinct MI210", "mi210"},
      {"AMD Instinct MI250X", "mi250x-gcd"},
      {"AMD Instinct MI300X", "mi300x"},
      {"Intel(R) Arc(TM) A770 Graphics", "arc-a770-16gb"},
      {"Intel(R) Arc(TM) B580 Graphics", "arc-b580"},
  };
  for (const auto& [name, id] : cases) {
    const auto row = table().lookup(name);
    ASSERT_TRUE(row.has_value()) << name;
    EXPECT_EQ(row->id, id) << name;
    EXPECT_FALSE(row->matched_by.empty());
  }
}

TEST(PeakLookup, SimilarNamesOfOtherProductsDoNotMatch) {
  for (const char* name :
       {"NVIDIA GeForce RTX 4090 Laptop GPU", "NVIDIA GeForce RTX 4090 D", "NVIDIA GeForce RTX 4080 SUPER",
        "NVIDIA GeForce RTX 3060 Ti", "NVIDIA GeForce RTX 4060 Ti", "NVIDIA GeForce RTX 4070 SUPER",
        "NVIDIA GeForce RTX 3090 Ti", "NVIDIA GeForce RTX 5090 D", "NVIDIA GH200 480GB", "NVIDIA L40",
        "NVIDIA H100 NVL", "AMD Radeon RX 6600 XT", "AMD Radeon RX 7900 XT", "AMD Radeon RX 7600 XT",
        "AMD Radeon RX 9070", "AMD Radeon RX 6950 XT", "AMD Instinct MI300A",
        "Intel(R) Arc(TM) A750 Graphics", "Some Future GPU 9000"}) {
    EXPECT_FALSE(table().lookup(name).has_value()) << name;
  }
  const auto nvl = table().lookup("NVIDIA H200 NVL");
  ASSERT_TRUE(nvl.has_value());
  EXPECT_EQ(nvl->id, "h200-nvl");  // not the SXM row
}

TEST(PeakLookup, VariantsSharingANameAreToldApartByUnitsAndMemory) {
  EXPECT_EQ(table().lookup("NVIDIA GeForce RTX 3080", "sm_86", {70, std::nullopt})->id, "rtx-3080-12gb");
  EXPECT_EQ(table().lookup("NVIDIA GeForce RTX 3080", "sm_86", {68, std::nullopt})->id, "rtx-3080-10gb");
  EXPECT_EQ(table().lookup("NVIDIA GeForce RTX 3060", "sm_86", {28, 8.0 * (1 << 30)})->id, "rtx-3060-8gb");
  EXPECT_EQ(table().lookup("NVIDIA GeForce RTX 3060", "sm_86", {28, 12.0 * (1 << 30)})->id, "rtx-3060-12gb");
  EXPECT_EQ(table().lookup("AMD Instinct MI250X/MI250", "gfx90a", {104, std::nullopt})->id, "mi250-gcd");
  EXPECT_EQ(table().lookup("AMD Instinct MI250X/MI250", "gfx90a", {110, std::nullopt})->id, "mi250x-gcd");
  EXPECT_EQ(table().lookup("Intel(R) Arc(TM) A770 Graphics", "", {512, 8.0e9})->id, "arc-a770-8gb");
  const auto ambiguous = table().lookup("AMD Instinct MI250X/MI250");
  ASSERT_TRUE(ambiguous.has_value());
  EXPECT_TRUE(has(ambiguous->matched_by, "first of 2")) << ambiguous->matched_by;
}

TEST(PeakLookup, ByArchOnlyWhenUniqueAndConsistent) {
  // A generic name carries no model number: the arch decides when one row has it.
  auto r = table().lookup("AMD Radeon Graphics", "gfx1201");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, "rx-9070-xt");
  EXPECT_TRUE(has(r->matched_by, "arch")) << r->matched_by;
  // The CU count confirms or rejects an arch match.
  EXPECT_EQ(table().lookup("", "gfx942", {304, std::nullopt})->id, "mi300x");
  EXPECT_FALSE(table().lookup("", "gfx942", {38, std::nullopt}).has_value());  // CPX partition
  EXPECT_FALSE(table().lookup("AMD Radeon RX 9070", "gfx1201", {56, std::nullopt}).has_value());
  // A named product the table does not list is not given another product's row.
  EXPECT_FALSE(table().lookup("NVIDIA GeForce RTX 5080", "sm_120").has_value());
  // Several rows share the arch: no arch match.
  EXPECT_FALSE(table().lookup("AMD Radeon Graphics", "gfx1032").has_value());
  EXPECT_FALSE(table().lookup("NVIDIA Graphics Device", "sm_90").has_value());
  // Unknown everything.
  EXPECT_FALSE(table().lookup("Mystery Accelerator 3000", "").has_value());
  EXPECT_FALSE(table().lookup("", "").has_value());
}

// ---------------------------------------------------------------- datasheet figures

TEST(PeakDatasheet, H200DenseBf16AndBandwidth) {
  const auto row = table().lookup("NVIDIA H200");
  ASSERT_TRUE(row.has_value());
  const Peak bf16 = compute_peak(*row, "bf16");
  EXPECT_NEAR(bf16.value, 989, 1.0);  // dense; the datasheet's 1979 is with sparsity
  EXPECT_EQ(bf16.unit, "TFLOP/s");
  EXPECT_EQ(bf16.basis, "datasheet");
  EXPECT_FALSE(bf16.emulated);
  EXPECT_TRUE(has(bf16.source, "H200")) << bf16.source;
  EXPECT_TRUE(has(bf16.source, "https://")) << bf16.source;
  EXPECT_DOUBLE_EQ(bf16.clock_mhz, 1980);

  const Peak bw = memory_bandwidth_peak(*row);
  EXPECT_NEAR(bw.value, 4800, 1.0);
  EXPECT_EQ(bw.unit, "GB/s");
  EXPECT_EQ(bw.basis, "datasheet");

  EXPECT_NEAR(compute_peak(*row, "fp32").value, 67, 0.5);
  EXPECT_NEAR(compute_peak(*row, "fp64").value, 67, 0.5);  // FP64 tensor cores, larger than the vector 34
  EXPECT_NEAR(compute_peak(*row, "int8").value, 1979, 1.0);
  EXPECT_EQ(compute_peak(*row, "int8").unit, "TOPS");
  EXPECT_NEAR(compute_peak(*row, "torch.bfloat16").value, 989, 1.0);
}

TEST(PeakDatasheet, Rdna2Bf16IsEmulatedAtTheFp32Rate) {
  int rdna2 = 0;
  for (const auto& r : table().rows()) {
    if (r.arch.rfind("gfx103", 0) != 0) continue;
    ++rdna2;
    SCOPED_TRACE(r.id);
    const Peak bf16 = compute_peak(r, "bf16");
    const Peak fp32 = compute_peak(r, "fp32");
    EXPECT_TRUE(bf16.emulated);
    EXPECT_DOUBLE_EQ(bf16.value, fp32.value);
    EXPECT_TRUE(has(bf16.source, "fp32")) << bf16.source;
    // No matrix units: fp16 is packed math, twice fp32.
    EXPECT_NEAR(compute_peak(r, "fp16").value, 2 * fp32.value, 0.02 * fp32.value);
    EXPECT_FALSE(compute_peak(r, "fp16").emulated);
    // No TF32: fp32 rate, not emulated.
    EXPECT_DOUBLE_EQ(compute_peak(r, "tf32").value, fp32.value);
    EXPECT_FALSE(compute_peak(r, "tf32").emulated);
  }
  EXPECT_EQ(rdna2, 5);
  EXPECT_TRUE(compute_peak(*table().lookup("AMD Radeon RX 6650 XT"), "bfloat16").emulated);
}

TEST(PeakDatasheet, GeForceUsesTheFp32AccumulateRate) {
  const auto r4090 = table().lookup("NVIDIA GeForce RTX 4090");
  ASSERT_TRUE(r4090.has_value());
  const Peak fp16 = compute_peak(*r4090, "fp16");
  EXPECT_NEAR(fp16.value, 165.2, 0.1);  // not 330.3 (FP16 accumulate)
  EXPECT_TRUE(has(fp16.source, "FP32 Accumulate")) << fp16.source;
  EXPECT_NEAR(memory_bandwidth_peak(*r4090).value, 1008, 0.5);
}

TEST(PeakDatasheet, CdnaFp32UsesTheMatrixRateAndMi250xIsPerGcd) {
  const auto mi250x = table().lookup("AMD Instinct MI250X");
  ASSERT_TRUE(mi250x.has_value());
  EXPECT_NEAR(compute_peak(*mi250x, "fp32").value, 47.85, 0.01);  // MFMA, one GCD
  EXPECT_TRUE(has(compute_peak(*mi250x, "fp32").source, "matrix")) << compute_peak(*mi250x, "fp32").source;
  EXPECT_NEAR(compute_peak(*mi250x, "bf16").value, 191.5, 0.1);
  EXPECT_NEAR(memory_bandwidth_peak(*mi250x).value, 1638.4, 0.1);
  const auto mi300x = table().lookup("AMD Instinct MI300X");
  EXPECT_NEAR(compute_peak(*mi300x, "bf16").value, 1307.4, 0.1);
  EXPECT_NEAR(compute_peak(*mi300x, "tf32").value, 653.7, 0.1);
}

TEST(PeakDatasheet, UnknownFiguresStayUnknown) {
  const auto arc = table().lookup("Intel(R) Arc(TM) A770 Graphics");
  ASSERT_TRUE(arc.has_value());
  const Peak bf16 = compute_peak(*arc, "bf16");  // XMX rate not verified: never the vector rate
  EXPECT_FALSE(bf16.known());
  EXPECT_EQ(bf16.basis, "unknown");
  EXPECT_TRUE(has(bf16.source, "XMX")) << bf16.source;
  EXPECT_TRUE(compute_peak(*arc, "fp64").emulated);
  EXPECT_FALSE(compute_peak(*arc, "fp64").known());
  EXPECT_FALSE(compute_peak(row_by_id("l4"), "fp64").known());
  EXPECT_FALSE(compute_peak(row_by_id("h200-sxm"), "int64").known());
}

TEST(PeakDtype, Normalisation) {
  EXPECT_EQ(normalize_peak_dtype("float32"), "fp32");
  EXPECT_EQ(normalize_peak_dtype("torch.float16"), "fp16");
  EXPECT_EQ(normalize_peak_dtype("half"), "fp16");
  EXPECT_EQ(normalize_peak_dtype("BFloat16"), "bf16");
  EXPECT_EQ(normalize_peak_dtype("double"), "fp64");
  EXPECT_EQ(normalize_peak_dtype("uint8"), "int8");
  EXPECT_EQ(normalize_peak_dtype("tf32"), "tf32");
  EXPECT_EQ(normalize_peak_dtype("int64"), "");
  EXPECT_EQ(peak_unit("int8"), "TOPS");
  EXPECT_EQ(peak_unit("bf16"), "TFLOP/s");
}

// ---------------------------------------------------------------- rates (kb/arch.json)

// The per-architecture rates moved from code tables (peaks_gpu.cpp,
// peaks_cpu.cpp) to kb/arch.json `peak_rates`: the same figures come out.
TEST(PeakRates, RepositoryRatesAreTheFormerCodeTables) {
  const PeakRates& r = rates();
  const std::map<int, int> fp32 = {{50, 128}, {52, 128}, {53, 128},  {60, 64},   {61, 128},  {62, 128},
                                   {70, 64},  {72, 64},  {75, 64},   {80, 64},   {86, 128},  {87, 128},
                                   {89, 128}, {90, 128}, {100, 128}, {103, 128}, {120, 128}, {121, 128}};
  EXPECT_EQ(r.nvidia_fp32.by_cc, fp32);
  EXPECT_EQ(r.nvidia_fp64.by_cc, (std::map<int, int>{{60, 32}, {70, 32}, {80, 32}, {90, 64}}));
  ASSERT_EQ(r.nvidia_tensor.size(), 3u);
  EXPECT_EQ(r.nvidia_tensor_rates(70)->per_clock, (std::map<std::string, double>{{"fp16", 1024}}));
  EXPECT_EQ(r.nvidia_tensor_rates(80)->per_clock,
            (std::map<std::string, double>{
                {"fp16", 2048}, {"bf16", 2048}, {"tf32", 1024}, {"int8", 4096}, {"fp64", 128}}));
  EXPECT_EQ(r.nvidia_tensor_rates(90)->per_clock,
            (std::map<std::string, double>{
                {"fp16", 4096}, {"bf16", 4096}, {"tf32", 2048}, {"int8", 8192}, {"fp64", 256}}));
  EXPECT_EQ(r.nvidia_tensor_rates(86), nullptr);  // GeForce and data-center sm_86 differ
  EXPECT_TRUE(has(r.nvidia_tensor_rates(80)->source, "A100"));

  struct Amd {
    const char* target;
    const char* family;
    std::map<std::string, double> per_cu;
  };
  const Amd amd[] = {
      {"gfx1010", "RDNA1", {{"fp32", 128}, {"fp16", 256}}},
      {"gfx1032", "RDNA2", {{"fp32", 128}, {"fp16", 256}, {"int8", 512}}},
      {"gfx1100", "RDNA3", {{"fp32", 256}, {"fp16", 512}, {"bf16", 512}, {"int8", 512}}},
      {"gfx1151", "RDNA3", {{"fp32", 256}, {"fp16", 512}, {"bf16", 512}, {"int8", 512}}},
      {"gfx1201", "RDNA4", {{"fp32", 256}, {"fp16", 1024}, {"bf16", 1024}, {"int8", 2048}}},
      {"gfx908",
       "CDNA1",
       {{"fp32", 128}, {"fp32_matrix", 256}, {"fp64", 64}, {"fp16", 1024}, {"bf16", 512}, {"int8", 1024}}},
      {"gfx90a",
       "CDNA2",
       {{"fp32", 128},
        {"fp32_matrix", 256},
        {"fp64", 128},
        {"fp64_matrix", 256},
        {"fp16", 1024},
        {"bf16", 1024},
        {"int8", 1024}}},
      {"GFX942",
       "CDNA3",
       {{"fp32", 256},
        {"fp32_matrix", 256},
        {"fp64", 128},
        {"fp64_matrix", 256},
        {"tf32", 1024},
        {"fp16", 2048},
        {"bf16", 2048},
        {"int8", 4096}}},
  };
  for (const auto& a : amd) {
    SCOPED_TRACE(a.target);
    const AmdFamilyRates* f = r.amd_family(a.target);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->family, a.family);
    EXPECT_EQ(f->per_cu, a.per_cu);
  }
  for (const char* none : {"gfx906", "gfx950", "gfx9999", "gfx90c", ""})
    EXPECT_EQ(r.amd_family(none), nullptr) << none;

  EXPECT_EQ(r.intel_lanes_per_eu("Xe2-HPG"), 16);
  EXPECT_EQ(r.intel_lanes_per_eu("Xe-HPC"), 16);
  EXPECT_EQ(r.intel_lanes_per_eu("Xe-HPG"), 8);
  EXPECT_EQ(r.intel_lanes_per_eu("Xe-LPG"), 8);
  EXPECT_FALSE(r.intel_lanes_per_eu("Gen9").has_value());

  // Every row names its source.
  for (const auto& t : r.nvidia_tensor) EXPECT_FALSE(t.source.empty());
  for (const auto& f : r.amd) EXPECT_FALSE(f.source.empty()) << f.family;
  for (const auto& l : r.intel) EXPECT_FALSE(l.source.empty());
  for (const auto& [dtype, rows] : r.cpu) {
    for (const auto& row : rows) EXPECT_FALSE(row.sources.empty()) << dtype << ": " << row.how;
  }
  ASSERT_EQ(r.cpu.at("fp32").size(), 5u);  // AVX-512, AVX2+FMA, AVX, SSE, NEON
  EXPECT_DOUBLE_EQ(r.cpu.at("fp32")[0].per_cycle, 64);
}

namespace {

/// The repository's arch.json with `from` replaced by `to` (once).
std::string arch_with(const std::string& from, const std::string& to) {
  std::ifstream in(std::string(ACCEL_KB_DIR) + "/arch.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string rates_error(const std::string& text) {
  try {
    PeakRates::parse(text, "arch.json");
  } catch (const KbError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(PeakRates, BadOrMissingRowsAreKbErrorsNamingTheRow) {
  EXPECT_NO_THROW(PeakRates::parse(arch_with("", ""), "arch.json"));
  EXPECT_TRUE(has(rates_error(R"({"gfx": {}})"), "missing 'peak_rates'")) << rates_error(R"({"gfx": {}})");
  EXPECT_TRUE(has(rates_error("{"), "arch.json is not valid JSON"));
  const std::string no_source = rates_error(
      arch_with(R"("source": "NVIDIA A100 Tensor Core GPU architecture whitepaper")", R"("source": "")"));
  EXPECT_TRUE(
      has(no_source, "arch.json: peak_rates.nvidia.tensor_per_sm[1]: missing or empty string 'source'"))
      << no_source;
  const std::string bad_dtype =
      rates_error(arch_with(R"("per_clock": {"fp16": 1024})", R"("per_clock": {"fp8": 1024})"));
  EXPECT_TRUE(has(bad_dtype, "tensor_per_sm[0].per_clock: unknown dtype 'fp8'")) << bad_dtype;
  const std::string bad_cc = rates_error(arch_with(R"("sm_50": 128)", R"("rtx": 128)"));
  EXPECT_TRUE(has(bad_cc, "fp32_lanes_per_sm.lanes.rtx: 'rtx' is not a compute capability")) << bad_cc;
  const std::string negative =
      rates_error(arch_with(R"("per_cu": {"fp32": 128, "fp16": 256})", R"("per_cu": {"fp32": -128})"));
  EXPECT_TRUE(has(negative, "peak_rates.amd[0].per_cu.fp32: expected a positive number")) << negative;
  const std::string target = rates_error(arch_with(R"("targets": ["gfx908"])", R"("targets": ["908"])"));
  EXPECT_TRUE(has(target, "amd[4].targets: '908' is not a gfx target")) << target;
  const std::string both =
      rates_error(arch_with(R"("fp32_times": 0.5,)", R"("fp32_times": 0.5, "per_cycle": 8,)"));
  EXPECT_TRUE(has(both, "peak_rates.cpu.fp64[0]: needs exactly one of 'per_cycle' and 'fp32_times'")) << both;
  const std::string intel = rates_error(arch_with(R"("lanes_per_eu": 16)", R"("lanes_per_eu": 0)"));
  EXPECT_TRUE(has(intel, "intel[0].lanes_per_eu: expected a positive integer")) << intel;
  const std::string cpu_dtype = rates_error(arch_with(R"("bf16": [)", R"("tf32": [)"));
  EXPECT_TRUE(has(cpu_dtype, "peak_rates.cpu.tf32: not a CPU dtype")) << cpu_dtype;
}

TEST(PeakRates, TheTableLoadsThemAndUnloadedRatesEstimateNothing) {
  EXPECT_FALSE(rates().empty());
  EXPECT_TRUE(GpuPeakTable::parse(one_row(), "gpus.json").rates().empty());
  // A kb with gpus.json but no arch.json: the table refuses to load.
  const auto dir = std::filesystem::temp_directory_path() / "accel_peaks_no_arch";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "gpus.json") << one_row();
  std::filesystem::remove(dir / "arch.json");
  try {
    GpuPeakTable::load(dir.string());
    ADD_FAILURE() << "no error";
  } catch (const KbError& e) {
    EXPECT_TRUE(has(e.what(), "arch.json")) << e.what();
  }
  std::filesystem::remove_all(dir);

  const PeakRates none;
  GpuProperties g;
  g.name = "NVIDIA H200";
  g.arch = "sm_90";
  g.multiprocessors = 132;
  g.max_clock_mhz = 1980;
  const Peak p = compute_peak(none, g, "fp32");
  EXPECT_FALSE(p.known());
  EXPECT_TRUE(has(p.source, "peak_rates")) << p.source;
  CpuProperties c;
  c.arch = "x86_64";
  c.physical_cores = 2;
  c.max_clock_mhz = 2000;
  c.simd = {"avx2", "fma"};
  EXPECT_FALSE(compute_peak(none, c, "fp32").known());
  EXPECT_TRUE(has(compute_peak(none, c, "fp32").source, "peak_rates"));
}

// ---------------------------------------------------------------- estimates

TEST(PeakEstimate, UnknownNvidiaGpuGetsALabelledFormula) {
  GpuProperties g;
  g.name = "NVIDIA Mystery GPU 9000";
  g.arch = "sm_90";
  g.multiprocessors = 132;
  g.max_clock_mhz = 1980;
  ASSERT_FALSE(table().lookup(g.name, g.arch, {g.multiprocessors, std::nullopt}).has_value());
  const Peak fp32 = compute_peak(rates(), g, "fp32");
  EXPECT_EQ(fp32.basis, "estimated");
  EXPECT_NEAR(fp32.value, 132 * 128 * 2 * 1980e6 / 1e12, 1e-9);  // 66.9
  for (const char* n : {"132", "128", "1980", "sm_90", "Arithmetic Instructions", "66.9"}) {
    EXPECT_TRUE(has(fp32.source, n)) << n << " not in: " << fp32.source;
  }
  const Peak bf16 = compute_peak(rates(), g, "bf16");  // sm_90: 4096 dense FLOP/clock/SM
  EXPECT_EQ(bf16.basis, "estimated");
  EXPECT_NEAR(bf16.value, 132 * 4096 * 1980e6 / 1e12, 1e-9);
  EXPECT_TRUE(has(bf16.source, "4096")) << bf16.source;

  // The convenience path takes the estimate when the table has no row.
  EXPECT_EQ(device_compute_peak(table(), g, "fp32").basis, "estimated");
  g.name = "NVIDIA H200";
  EXPECT_EQ(device_compute_peak(table(), g, "bf16").basis, "datasheet");
}

// bench's tf32 rows ask this. Blackwell (sm_100, sm_120) was read as major 1
// by the sscanf("sm_%1d") it replaced, and its tf32 rows said "unavailable".
TEST(PeakEstimate, Tf32IsAmpereAndNewerAndCdna3) {
  for (const char* yes :
       {"sm_80", "sm_86", "8.9", "sm_90a", "sm_100", "sm_103", "sm_120", "compute_121", "gfx942", "GFX950"})
    EXPECT_TRUE(arch_has_tf32(yes)) << yes;
  for (const char* no :
       {"sm_61", "sm_70", "sm_75", "7.5", "gfx90a", "gfx1032", "gfx1100", "", "cpu", "Xe-HPG"})
    EXPECT_FALSE(arch_has_tf32(no)) << no;
}

TEST(PeakEstimate, Fp32LanesPerSmFollowTheProgrammingGuide) {
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_70"), 64);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_75"), 64);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_80"), 64);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_86"), 128);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("8.9"), 128);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_90a"), 128);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_100"), 128);
  EXPECT_EQ(rates().nvidia_fp32_lanes_per_sm("sm_120"), 128);
  EXPECT_FALSE(rates().nvidia_fp32_lanes_per_sm("sm_999").has_value());
  EXPECT_FALSE(rates().nvidia_fp32_lanes_per_sm("gfx1100").has_value());
}

TEST(PeakEstimate, TensorRatesOnlyWhereJustified) {
  GpuProperties g;
  g.name = "NVIDIA GeForce RTX 3070";
  g.arch = "sm_86";
  g.multiprocessors = 46;
  g.max_clock_mhz = 1725;
  EXPECT_TRUE(compute_peak(rates(), g, "fp32").known());
  const Peak fp16 = compute_peak(rates(), g, "fp16");  // GeForce vs A-series differ on sm_86
  EXPECT_FALSE(fp16.known());
  EXPECT_EQ(fp16.basis, "unknown");
  EXPECT_TRUE(has(fp16.source, "GeForce")) << fp16.source;
}

TEST(PeakEstimate, MissingInputsGiveUnknownWithTheReason) {
  GpuProperties g;
  g.name = "NVIDIA Something";
  g.arch = "sm_90";
  g.multiprocessors = 132;
  const Peak p = compute_peak(rates(), g, "fp32");
  EXPECT_FALSE(p.known());
  EXPECT_TRUE(has(p.source, "max clock")) << p.source;
  EXPECT_FALSE(memory_bandwidth_peak(g).known());
  GpuProperties nothing;
  EXPECT_FALSE(compute_peak(rates(), nothing, "fp32").known());
}

TEST(PeakEstimate, AmdFamilies) {
  GpuProperties g;
  g.name = "AMD Radeon RX 7900 XT";
  g.arch = "gfx1100";
  g.multiprocessors = 84;
  g.max_clock_mhz = 2400;
  const Peak fp32 = compute_peak(rates(), g, "fp32");
  EXPECT_EQ(fp32.basis, "estimated");
  EXPECT_NEAR(fp32.value, 84 * 64 * 2 * 2 * 2400e6 / 1e12, 1e-9);  // 51.6 with dual-issue
  EXPECT_TRUE(has(fp32.source, "dual-issue")) << fp32.source;
  EXPECT_NEAR(compute_peak(rates(), g, "bf16").value, 84 * 512 * 2400e6 / 1e12, 1e-9);

  g.name = "AMD Radeon RX 6800";
  g.arch = "gfx1030";
  g.multiprocessors = 60;
  g.max_clock_mhz = 2105;
  const Peak bf16 = compute_peak(rates(), g, "bf16");
  EXPECT_TRUE(bf16.emulated);
  EXPECT_NEAR(bf16.value, 60 * 128 * 2105e6 / 1e12, 1e-9);
  EXPECT_NEAR(compute_peak(rates(), g, "fp16").value, 60 * 256 * 2105e6 / 1e12, 1e-9);

  g.arch = "gfx9999";  // unknown family: the plain formula, said so
  const Peak plain = compute_peak(rates(), g, "fp32");
  EXPECT_NEAR(plain.value, 60 * 64 * 2 * 2105e6 / 1e12, 1e-9);
  EXPECT_FALSE(compute_peak(rates(), g, "fp16").known());
}

TEST(PeakEstimate, BandwidthFromMemoryClockAndBusWidth) {
  GpuProperties g;
  g.name = "NVIDIA H200";
  g.memory_clock_mhz = 3201;  // nvidia-smi -q "Max Clocks / Memory" on the H200
  g.memory_bus_width_bits = 6144;
  const Peak bw = memory_bandwidth_peak(g);
  EXPECT_EQ(bw.basis, "estimated");
  EXPECT_NEAR(bw.value, 3201e6 * 2 * 6144 / 8 / 1e9, 1e-9);  // 4917 GB/s
  for (const char* n : {"3201", "6144", "x 2"}) EXPECT_TRUE(has(bw.source, n)) << n << ": " << bw.source;
}

TEST(PeakEstimate, ClockScaling) {
  const Peak bf16 = compute_peak(*table().lookup("NVIDIA GeForce RTX 4090"), "bf16");
  const Peak scaled = scale_peak_to_clock(bf16, 2790);
  EXPECT_NEAR(scaled.value, 165.2 * 2790 / 2520, 1e-9);
  EXPECT_EQ(scaled.basis, "estimated");
  EXPECT_TRUE(has(scaled.source, "2790")) << scaled.source;
  EXPECT_TRUE(has(scaled.source, "2520")) << scaled.source;
  EXPECT_DOUBLE_EQ(scale_peak_to_clock(bf16, 0).value, bf16.value);
  EXPECT_DOUBLE_EQ(scale_peak_to_clock(measured_peak(100, "GB/s", "copy"), 3000).value, 100);
}

TEST(PeakEstimate, MeasuredPeak) {
  const Peak m = measured_peak(3900, "GB/s", "device copy, 2 GiB, median of 20");
  EXPECT_EQ(m.basis, "measured");
  EXPECT_DOUBLE_EQ(m.value, 3900);
  EXPECT_FALSE(measured_peak(-1, "GB/s", "x").known());
  EXPECT_FALSE(measured_peak(std::nan(""), "GB/s", "x").known());
}

// ---------------------------------------------------------------- CPU

TEST(CpuPeak, TwoCoreAvx512At2GHzIs256Gflops) {
  CpuProperties c;
  c.arch = "x86_64";
  c.physical_cores = 2;
  c.max_clock_mhz = 2000;
  c.simd = {"sse4_2", "avx", "avx2", "fma", "avx512f"};
  const Peak p = compute_peak(rates(), c, "fp32");
  EXPECT_EQ(p.basis, "estimated");
  EXPECT_EQ(p.unit, "TFLOP/s");
  EXPECT_NEAR(p.value, 0.256, 1e-12);
  for (const char* n : {"2 physical cores", "2000 MHz", "64", "256 GFLOP/s", "assumption", "Optimization"}) {
    EXPECT_TRUE(has(p.source, n)) << n << " not in: " << p.source;
  }
  EXPECT_NEAR(compute_peak(rates(), c, "fp64").value, 0.128, 1e-12);
}

TEST(CpuPeak, SimdLevels) {
  CpuProperties c;
  c.arch = "x86_64";
  c.physical_cores = 4;
  c.max_clock_mhz = 3000;
  c.simd = {"sse4_2", "avx", "avx2", "fma"};
  EXPECT_NEAR(compute_peak(rates(), c, "fp32").value, 4 * 3000e6 * 32 / 1e12, 1e-12);
  c.simd = {"sse4_2", "avx"};
  EXPECT_NEAR(compute_peak(rates(), c, "fp32").value, 4 * 3000e6 * 16 / 1e12, 1e-12);
  c.simd = {};
  EXPECT_NEAR(compute_peak(rates(), c, "fp32").value, 4 * 3000e6 * 8 / 1e12,
              1e-12);  // SSE baseline of x86-64
  c.arch = "aarch64";
  c.simd = {"asimd", "asimdhp"};
  EXPECT_NEAR(compute_peak(rates(), c, "fp32").value, 4 * 3000e6 * 16 / 1e12, 1e-12);
  EXPECT_TRUE(has(compute_peak(rates(), c, "fp32").source, "assumption"));
  c.arch = "riscv64";
  c.simd = {};
  EXPECT_FALSE(compute_peak(rates(), c, "fp32").known());
}

TEST(CpuPeak, Bf16AndInt8Extensions) {
  CpuProperties c;
  c.arch = "x86_64";
  c.physical_cores = 2;
  c.max_clock_mhz = 2000;
  c.simd = {"avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8"};
  EXPECT_NEAR(compute_peak(rates(), c, "bf16").value, 2 * 2000e6 * 1024 / 1e12, 1e-12);  // AMX
  EXPECT_NEAR(compute_peak(rates(), c, "int8").value, 2 * 2000e6 * 2048 / 1e12, 1e-12);
  EXPECT_EQ(compute_peak(rates(), c, "int8").unit, "TOPS");
  c.simd = {"avx2", "fma", "avx512f", "avx512_bf16"};
  EXPECT_NEAR(compute_peak(rates(), c, "bf16").value, 2 * 2000e6 * 128 / 1e12, 1e-12);  // 2x fp32
  c.simd = {"avx2", "fma"};
  const Peak emulated = compute_peak(rates(), c, "bf16");
  EXPECT_TRUE(emulated.emulated);
  EXPECT_DOUBLE_EQ(emulated.value, compute_peak(rates(), c, "fp32").value);
  EXPECT_FALSE(compute_peak(rates(), c, "int8").known());
}

TEST(CpuPeak, MissingInputsGiveUnknown) {
  CpuProperties c;
  c.simd = {"avx2", "fma"};
  c.max_clock_mhz = 3000;
  EXPECT_FALSE(compute_peak(rates(), c, "fp32").known());
  c.physical_cores = 8;
  c.max_clock_mhz.reset();
  EXPECT_FALSE(compute_peak(rates(), c, "fp32").known());
  EXPECT_EQ(compute_peak(rates(), c, "fp32").basis, "unknown");
}
