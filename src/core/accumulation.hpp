// How accurate a half-precision sum of products can be, and what a measured
// error says about how a kernel accumulated. Pure: no torch.
//
// A GEMM, GEMV, dot product or convolution computes each output element as a
// sum of K products. Compared with a float64 reference on the same (rounded)
// inputs, its relative Frobenius error ||out - ref|| / ||ref|| has two
// sources for random zero-mean inputs:
//   - the output's one rounding to the format: about 0.42 u (the rms relative
//     rounding error of round-to-nearest, u = 2^-p the unit roundoff; measured
//     0.41-0.42 u for bf16 and fp16 GEMMs on the H200 and on the CPU,
//     docs/validation/2026-11-30c-h200/ops.json);
//   - a partial sum rounded to the format at each of the K additions, when a
//     kernel accumulates in the format itself: the partial sums grow as
//     sqrt(k), so the error adds up to about 0.42 u sqrt(K/2) of the result
//     (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 4.2;
//     Higham and Mary, "A New Approach to Probabilistic Rounding Error
//     Analysis", SIAM J. Sci. Comput. 41(5), 2019).
// Every GPU BLAS and oneDNN accumulate in fp32, so they land on the first
// figure; some CPU kernels (torch's bf16 GEMV and dot on CPUs without
// AVX512-BF16) accumulate in bf16 over blocks and land near the second
// (0.037 for a 1024-long bf16 mv, 2026-12-01, issue 19). The tolerance sits
// at the geometric middle of the two, so neither kind of kernel sits at it
// and a check's status does not flip between runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace accel {

/// The low-precision floating formats the model covers.
enum class HalfFormat { fp16, bf16 };

/// "fp16" / "bf16" (report dtype names); nullopt for every other name.
std::optional<HalfFormat> parse_half_format(std::string_view dtype);
const char* to_string(HalfFormat f);

/// Unit roundoff u = 2^-p (p = significand bits with the implicit one):
/// fp16 2^-11, bf16 2^-8 (IEEE 754-2008; Google's bfloat16).
double unit_roundoff(HalfFormat f);

/// The two expected errors and the tolerance between them, as relative
/// Frobenius errors (dimensionless).
struct AccumulationModel {
  HalfFormat format = HalfFormat::bf16;
  int64_t length = 0;             ///< K, the number of products summed per output element
  double expected_fp32 = 0;       ///< a kernel that accumulates in fp32 and rounds the output once
  double expected_in_format = 0;  ///< a kernel that rounds every partial sum to the format
  /// max(4 x expected_fp32, sqrt(expected_fp32 x expected_in_format)): a
  /// factor of 4 or more from an fp32-accumulating kernel at any K, and
  /// between the two kinds of kernel once K >= 512.
  double tolerance = 0;
};

/// The model for sums of `length` products in `format`; `length` < 1 counts
/// as 1 (a single rounding).
AccumulationModel accumulation_model(HalfFormat format, int64_t length);

/// One sentence on what a measured error says about the kernel, for a result
/// above the tolerance: accumulation in the format itself, partial sums
/// rounded along the way, or more error than accumulation explains.
std::string explain_accumulation_error(const AccumulationModel& m, double rel_error);

}  // namespace accel
