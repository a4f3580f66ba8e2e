// Hardware peaks: the ceilings the roofline compares measurements against.
//
// Three kinds of figure, each labelled with its basis (ARCHITECTURE.md:
// "every figure has a source"):
//   datasheet  a row of kb/gpus.json (vendor datasheet or architecture
//              whitepaper, named with its URL in the row)
//   estimated  a formula over the device's properties, shown with its inputs
//              (unknown GPU, CPU, a datasheet figure scaled to another clock)
//   measured   a figure this run measured (e.g. copy bandwidth)
// A figure that can be neither looked up nor justified is "unknown" (value 0)
// and its source says why: never a guess.
//
// Pure core code: no torch, no platform layer. Inputs to the estimates come
// as plain structs (GpuProperties, CpuProperties) that the engine fills from
// torch, NVML or the KFD; the per-architecture rates they multiply are data
// (kb/arch.json `peak_rates`, core/peaks_rates.hpp). Formats and formulas:
// docs/roofline.md.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/gpu_cache.hpp"
#include "core/peaks_rates.hpp"

namespace accel {

/// One ceiling. `value` is in `unit`: "TFLOP/s" (1e12 FLOP/s) for fp64, fp32,
/// tf32, fp16 and bf16, "TOPS" (1e12 int ops/s) for int8, "GB/s" (1e9 B/s)
/// for memory bandwidth.
struct Peak {
  double value = 0;  ///< 0 when unknown
  std::string unit;
  std::string basis;  ///< "datasheet", "estimated", "measured", or "unknown" (value 0)
  /// Datasheet: the row's source (title, URL) and the row name; estimated:
  /// the formula with its inputs and result; unknown: why.
  std::string source;
  /// The dtype has no hardware support and runs as another one; `value` is
  /// the rate of the dtype it runs as (e.g. bf16 computed in fp32 on RDNA2).
  bool emulated = false;
  /// Clock (MHz) the figure assumes: the row's rated boost clock or the clock
  /// used by the estimate; 0 when not clock-based or not known.
  double clock_mhz = 0;

  bool known() const { return value > 0; }
};

/// The dtypes a compute peak exists for, in the order reports list them.
inline constexpr const char* kPeakDtypes[] = {"fp64", "fp32", "tf32", "fp16", "bf16", "int8"};

/// "fp32" for "fp32", "float32", "float", "torch.float32"; "bf16" for
/// "bfloat16"; "fp16" for "half"/"float16"; "fp64" for "double"/"float64";
/// "int8" for "int8"/"uint8"/"qint8"; "tf32". Empty for any other dtype.
std::string normalize_peak_dtype(std::string_view dtype);
/// "TOPS" for int8, "TFLOP/s" otherwise.
std::string peak_unit(std::string_view dtype);

// ---------------------------------------------------------------- kb/gpus.json

/// What a dtype without its own hardware rate runs as (kb/gpus.json `fallback`).
struct DtypeFallback {
  std::string use;        ///< dtype whose rate applies ("fp32"); empty when none is known
  bool emulated = false;  ///< computed in another dtype (no hardware support)
  std::string why;
};

/// One row of kb/gpus.json. Peaks are dense; absent keys are unknown.
struct GpuPeakRow {
  std::string id;
  std::string name;
  std::string vendor;  ///< "nvidia", "amd", "intel"
  std::string arch;    ///< "sm_90", "gfx1032", "Xe-HPG"
  std::vector<std::string> patterns;
  std::optional<int> units;  ///< SMs / CUs / EUs of one device as the runtime reports them
  std::string unit_name;     ///< "SM", "CU", "EU", "XVE"
  std::optional<double> boost_mhz;
  std::optional<double> memory_gb;
  std::string memory_type;
  std::optional<double> bandwidth_gbps;
  /// The last-level cache (L2, or AMD's Infinity Cache) with its source; none
  /// where no source at hand publishes it.
  std::optional<CacheFact> llc;
  /// "fp64", "fp64_matrix", "fp32", "fp32_matrix", "tf32", "fp16", "bf16", "int8".
  std::map<std::string, double> peaks;
  std::map<std::string, DtypeFallback> fallback;
  std::map<std::string, std::string> dtype_notes;
  std::string derived;  ///< how figures not printed in the source were computed
  std::string notes;
  std::string source_title;
  std::string source_url;
  /// Filled by GpuPeakTable::lookup: how the row was chosen ("name",
  /// "name and CU count", "arch gfx942 and CU count", ...).
  std::string matched_by;
};

/// What else is known about the device, to tell apart rows that share a name
/// (RTX 3080 10 GB / 12 GB, MI250X / MI250) and to check an arch match.
struct DeviceHints {
  std::optional<int> multiprocessors;  ///< torch's multi_processor_count (SMs, CUs, EUs)
  std::optional<double> memory_bytes;  ///< total device memory
};

class GpuPeakTable {
 public:
  /// Loads `gpus.json` from a kb directory, and the rates of the estimates
  /// from its `arch.json` (`peak_rates`, PeakRates::load). Throws KbError
  /// (core/kb.hpp) when a file is missing, is not JSON, a row is malformed
  /// or has no source, or a pattern is not a valid RE2 expression; the
  /// message names the file and the row.
  static GpuPeakTable load(const std::string& kb_dir);
  /// The rows from the text of a gpus.json (no rates: estimates through
  /// this table are unknown); `origin` names it in error messages.
  static GpuPeakTable parse(const std::string& text, const std::string& origin);

  GpuPeakTable();
  ~GpuPeakTable();
  GpuPeakTable(GpuPeakTable&&) noexcept;
  GpuPeakTable& operator=(GpuPeakTable&&) noexcept;

  /// The row for a device. By name first: every row whose pattern matches;
  /// several (variants sharing a name) are narrowed by the SM/CU count, then
  /// by the memory size closest to the reported one, then the first listed.
  /// With no name match, by arch when exactly one row has that arch and
  /// either the SM/CU count agrees or, when the count is not known, the name
  /// carries no model number ("AMD Radeon Graphics", "", "NVIDIA Graphics
  /// Device"): a name with a model number that no row lists is a product
  /// the table does not know, and gets an estimate instead.
  std::optional<GpuPeakRow> lookup(std::string_view name, std::string_view arch = {},
                                   const DeviceHints& hints = {}) const;

  const std::vector<GpuPeakRow>& rows() const;
  /// The per-architecture rates the estimates use (empty after parse()).
  const PeakRates& rates() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The datasheet peak of a row for a dtype (normalised by
/// normalize_peak_dtype). fp32 and fp64 take the larger of the vector and
/// matrix figures (GEMMs run on the matrix units where they exist). A dtype
/// without a figure uses the row's fallback (labelled, `emulated` set when
/// the dtype is computed in another one); otherwise unknown.
Peak compute_peak(const GpuPeakRow& row, std::string_view dtype);
/// The row's memory bandwidth (datasheet), unknown when the row has none.
Peak memory_bandwidth_peak(const GpuPeakRow& row);

// ---------------------------------------------------------------- estimates

/// What is known about a GPU, from torch / NVML / the KFD. Empty optionals
/// are unknown.
struct GpuProperties {
  std::string name;
  std::string vendor;                   ///< "nvidia", "amd", "intel"; inferred from arch and name when empty
  std::string arch;                     ///< "sm_90" (also "9.0", "90"), "gfx1032", "Xe-HPG", "Xe2-HPG"
  std::optional<int> multiprocessors;   ///< SMs (NVIDIA), CUs (AMD), EUs/XVEs (Intel)
  std::optional<double> max_clock_mhz;  ///< NVML max SM clock, KFD max_engine_clk_fcompute
  std::optional<double> memory_clock_mhz;  ///< NVML max memory clock
  std::optional<int> memory_bus_width_bits;
  /// Transfers per memory clock in `memory_clock_mhz`'s convention: 2 for the
  /// clock NVML reports (3201 MHz on H200 HBM3e, 10501 MHz on RTX 4090
  /// GDDR6X); set it when the clock comes from elsewhere.
  double memory_transfers_per_clock = 2;
  std::optional<double> memory_bytes;
};

/// What is known about the host CPU (HostInfo: physical_cores, cpu_max_mhz, simd).
struct CpuProperties {
  std::string model;
  std::string arch;  ///< "x86_64", "aarch64"
  std::optional<int> physical_cores;
  std::optional<double> max_clock_mhz;
  std::vector<std::string>
      simd;  ///< /proc/cpuinfo flag names: "avx2", "fma", "avx512f", "amx_bf16", "asimd", ...
};

/// Estimated compute peak of a GPU from its properties and the rates, or
/// unknown with the reason. NVIDIA: SMs x FP32 lanes/SM (by compute
/// capability) x 2 x clock; tensor dtypes only where the rates have a
/// per-SM row (sm_70, sm_80, sm_90, from NVIDIA's whitepapers); AMD: CUs x
/// per-CU rate of the gfx family x clock; Intel: EUs x lanes x 2 x clock
/// (fp32 only). The rates: kb/arch.json `peak_rates` (docs/roofline.md).
Peak compute_peak(const PeakRates& rates, const GpuProperties& gpu, std::string_view dtype);
/// Estimated memory bandwidth: memory clock x transfers/clock x bus width / 8,
/// unknown when an input is missing.
Peak memory_bandwidth_peak(const GpuProperties& gpu);

/// Estimated CPU compute peak: physical cores x max clock x FLOP/cycle/core,
/// the first row of the rates' `cpu` table for the dtype whose SIMD flags
/// the CPU has (AVX-512 64, AVX2+FMA 32, AVX 16, SSE 8 fp32 FLOP/cycle, fp64
/// half; bf16 2x fp32 with avx512_bf16, 1024 with amx_bf16; ...), the
/// assumptions and sources written into the peak's source. bf16/fp16 without
/// a row: the fp32 rate, emulated. Unknown without cores, clock or flags.
Peak compute_peak(const PeakRates& rates, const CpuProperties& cpu, std::string_view dtype);

/// Whether a GPU arch has TF32 matrix math, which `bench`'s tf32 GEMM rows
/// need: NVIDIA compute capability 8.0 (Ampere) and newer, in any spelling
/// the compute-capability parser reads ("sm_80", "sm_90a", "sm_100", "sm_120",
/// "8.6"); AMD gfx942 (MI300, CDNA3: XF32) and gfx950 (MI350). Sources: the
/// NVIDIA A100 Tensor Core GPU Architecture whitepaper (TF32 introduced with
/// Ampere), AMD's CDNA3 ISA reference (XF32 MFMA). False for anything else.
bool arch_has_tf32(std::string_view arch);

/// Row lookup, then the datasheet figure; when the table has no row or the
/// row has no figure for the dtype, the estimate (with the table's rates).
Peak device_compute_peak(const GpuPeakTable& table, const GpuProperties& gpu, std::string_view dtype);
Peak device_bandwidth_peak(const GpuPeakTable& table, const GpuProperties& gpu);

/// A figure measured in this run (basis "measured").
Peak measured_peak(double value, std::string unit, std::string how);

/// A clock-based peak rescaled to the clock the device actually reaches
/// (e.g. NVML's max SM clock on a GeForce card that boosts above its rated
/// clock): value x actual_mhz / peak.clock_mhz, basis "estimated" with the
/// formula. Returned unchanged when the peak is unknown, not clock-based,
/// or `actual_mhz` is not positive.
Peak scale_peak_to_clock(const Peak& peak, double actual_mhz);

}  // namespace accel
