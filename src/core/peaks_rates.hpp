// The per-architecture rates behind the hardware-peak estimates (core/peaks.hpp
// `compute_peak(rates, GpuProperties|CpuProperties, dtype)`): NVIDIA lanes and
// tensor-core rates per SM by compute capability, AMD per-CU rates by gfx
// family, Intel lanes per EU, the CPU's FLOP/cycle/core by instruction set.
// Data, not code: kb/arch.json `peak_rates`, each row with its source
// (docs/knowledge-base.md, docs/roofline.md). Loaded with kb/gpus.json by
// GpuPeakTable::load.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel {

/// Results per clock per SM, by compute capability (90 = sm_90).
struct NvidiaLanes {
  std::map<int, int> by_cc;
  std::string source;  ///< shown in the estimate's formula
  std::string url;
  std::string note;
};

/// Dense tensor-core rates of one compute capability, FLOP (int8: ops) per
/// clock per SM, where one rate holds for every product of it.
struct NvidiaTensorRates {
  int cc = 0;
  std::map<std::string, double> per_clock;  ///< dtype -> rate
  std::string note;
  std::string source;
};

/// Per-CU rates (FLOP or int8 ops per clock per CU, dense) of one AMD gfx
/// family. `per_cu` keys: fp32, fp32_matrix, fp64, fp64_matrix, tf32, fp16,
/// bf16, int8; an absent key has no such rate (0 from rate()).
struct AmdFamilyRates {
  std::string family;                ///< "RDNA2"
  std::vector<std::string> targets;  ///< "gfx908", or a prefix "gfx103*"
  std::map<std::string, double> per_cu;
  std::string fp32_note;  ///< how the vector FP32 rate is counted
  std::string fp16_how;   ///< "packed math, no matrix units", "WMMA", "MFMA"
  std::string int8_how;
  std::string source;

  double rate(const std::string& key) const;
};

/// FP32 lanes per EU/XVE of the Intel architectures whose name holds one of
/// `names` (case-insensitive substrings of the arch torch reports).
struct IntelLanes {
  int lanes_per_eu = 0;
  std::vector<std::string> names;
  std::string note;
  std::string source;
};

/// One CPU rate: the first row of a dtype whose `needs` flags (/proc/cpuinfo
/// names) are all present, on `isa` ("x86", "arm", or any when empty), gives
/// `per_cycle` FLOP (int8: ops) per cycle per core, or `fp32_times` x the
/// fp32 rate.
struct CpuRate {
  std::vector<std::string> needs;
  std::string isa;
  double per_cycle = 0;
  double fp32_times = 0;
  std::string how;
  std::vector<std::string> sources;
};

/// kb/arch.json `peak_rates`. Default-constructed it is empty: every
/// estimate is unknown and says the rates were not loaded.
struct PeakRates {
  NvidiaLanes nvidia_fp32;
  NvidiaLanes nvidia_fp64;
  std::vector<NvidiaTensorRates> nvidia_tensor;
  std::vector<AmdFamilyRates> amd;
  std::vector<IntelLanes> intel;
  std::map<std::string, std::vector<CpuRate>> cpu;  ///< dtype -> rows, first match wins

  /// Reads `peak_rates` of `arch.json` in a kb directory. Throws KbError
  /// (core/kb.hpp) when the file is missing or not JSON, the section is
  /// missing, or a row is malformed or has no source; the message names the
  /// file and the row.
  static PeakRates load(const std::string& kb_dir);
  /// The same from the text of an arch.json; `origin` names it in errors.
  static PeakRates parse(const std::string& text, const std::string& origin);

  bool empty() const;

  /// The FP32 lanes per SM of an NVIDIA compute capability in any spelling
  /// ("sm_90a", "8.6", "compute_121"); nullopt for one not listed.
  std::optional<int> nvidia_fp32_lanes_per_sm(std::string_view arch) const;
  std::optional<int> nvidia_fp64_lanes_per_sm(int cc) const;
  const NvidiaTensorRates* nvidia_tensor_rates(int cc) const;
  /// The family of a gfx target ("gfx1032" -> RDNA2), or nullptr.
  const AmdFamilyRates* amd_family(std::string_view target) const;
  std::optional<int> intel_lanes_per_eu(std::string_view arch) const;
};

}  // namespace accel
