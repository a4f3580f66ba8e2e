// Parsing of torch's build description (`at::show_config()`, the text of
// `torch.__config__.show()`) and arch-compatibility logic. Pure functions so
// they are tested on recorded texts from real builds (tests/fixtures/torch_config/).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct ParsedTorchConfig {
  /// "Build settings: K=V, K=V" pairs (BLAS_INFO, USE_CUDA, CUDA_VERSION, ...).
  std::map<std::string, std::string> build;
  std::string cuda_runtime;    ///< "CUDA Runtime 13.0" -> "13.0"
  std::string cudnn;           ///< "CuDNN 9.13" -> "9.13"
  std::string hip_runtime;     ///< "HIP Runtime 6.2.41133" -> "6.2.41133"
  std::string miopen;          ///< "MIOpen 3.2.0" -> "3.2.0"
  std::string openmp;          ///< "OpenMP 201511 (a.k.a. OpenMP 4.5)"
  std::string cpu_capability;  ///< "AVX2", "AVX512", "NO AVX"
  std::string mkl;             ///< "Intel(R) oneAPI Math Kernel Library Version 2024..." if present
  std::string mkldnn;          ///< oneDNN line if present
  std::string compiler;        ///< "GCC 12.2"
  /// Targets the build carries: "sm_90", "compute_90" (PTX), "gfx1030".
  std::vector<std::string> arch_list;
};

/// Parses show_config text. Unknown lines are ignored; never throws.
ParsedTorchConfig parse_torch_config(const std::string& text);

/// When the loaded-library probe could not name the BLAS (name "unknown": it
/// is linked statically into libtorch_cpu, as in the PyPI wheels), names it
/// from torch's build setting BLAS_INFO (`mkl`, `open`/`openblas`, `blis`,
/// `accelerate`, `flexi`, `eigen`) and says so in the evidence. Leaves a
/// recognised BLAS and a build without BLAS_INFO as they are.
void name_static_blas(BlasInfo& blas, const std::map<std::string, std::string>& build);

/// Whether a build whose arch list is `arch_list` can run on a device of
/// arch `device_arch` ("sm_86", "gfx1032"). Returns nullopt when unknown
/// (empty list or unrecognised arch); `how` says why (exact, same-major
/// binary compatibility, PTX JIT, or missing).
///
/// NVIDIA rules (CUDA C Programming Guide, "Binary Compatibility"): a cubin
/// for sm_XY runs on sm_XZ with Z >= Y (same major); PTX for compute_XY is
/// JIT-compiled for any device with capability >= X.Y. Arch-specific targets
/// (sm_90a) run only on that exact arch. AMD gfx targets must match exactly
/// (a code object is built for one ISA); HSA_OVERRIDE_GFX_VERSION can make the
/// runtime treat a device as another target, which is reported separately.
std::optional<bool> arch_in_build(const std::vector<std::string>& arch_list, const std::string& device_arch,
                                  std::string* how = nullptr);

}  // namespace accel
