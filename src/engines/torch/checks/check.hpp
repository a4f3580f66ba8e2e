// A check is a row in a table: name, category, dtypes, shape, how to build
// its inputs, the op, and the FLOPs/bytes formulas. Adding an operator is
// adding a row in one of the category files beside this header.
//
// Inputs are built once on the CPU (floating tensors in float64, seeded), then
// cast to the dtype under test and moved to the device outside the timed
// region. The reference runs the same op on the CPU in float64 over the
// *rounded* inputs (cast to the dtype, then back to float64), so the
// comparison measures the op, not the input rounding.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

using Tensors = std::vector<at::Tensor>;

/// Where and in what dtype the op runs. `dtype` is the dtype under test, or
/// kDouble for the reference run.
struct OpEnv {
  c10::Device device = c10::kCPU;
  at::ScalarType dtype = at::kFloat;
  at::TensorOptions options() const { return at::TensorOptions().device(device).dtype(dtype); }
};

enum class Verify {
  reference,    ///< compare to the float64 CPU reference (relative Frobenius error)
  exact,        ///< compare exactly (integer results, permutations, copies)
  statistical,  ///< random ops: `statistic` decides
  none,         ///< not verifiable (documented per row)
};

struct CheckDef {
  std::string name;
  std::string category;
  std::vector<at::ScalarType> dtypes;
  std::string shape;
  /// Builds inputs on the CPU; floating tensors in float64.
  std::function<Tensors()> inputs = [] { return Tensors{}; };
  /// The operation; inputs arrive in `env.dtype` on `env.device`.
  std::function<at::Tensor(const Tensors&, const OpEnv&)> op;
  /// FLOPs per call and the formula as text (for --list and the report).
  double flops = 0;
  std::string flops_formula = "0";
  /// Bytes per call for an element size; empty = inputs + output as measured.
  std::function<double(double elem_bytes)> bytes;
  std::string bytes_formula = "inputs + output";
  Verify verify = Verify::reference;
  /// For Verify::statistical: returns "" when the sample is plausible, else why not.
  std::function<std::string(const at::Tensor& out_cpu, at::ScalarType dtype)> statistic;
  /// Multiplies the dtype's tolerance (ops that chain several roundings).
  double tolerance_scale = 1.0;
  /// Products summed per output element (K of a GEMM, the length of a dot
  /// product, C_in/groups x kernel size of a convolution); 0 for ops that
  /// are no sum of products. Sets the fp16/bf16 tolerance
  /// (core/accumulation.hpp) instead of the dtype's constant.
  int64_t accumulation_length = 0;
  /// The output is on the host by design (device-to-host copies).
  bool output_on_host = false;
  /// Inputs stay on the host (host-to-device copies move them in the op).
  bool inputs_on_host = false;
  /// The op is a host<->device transfer: copies are its work, not a fallback.
  bool transfer = false;
  /// Returns "" when the op exists in this torch, else why it is unavailable.
  std::function<std::string()> available;
  /// Time on the CPU too (off for ops whose CPU twin means nothing).
  bool compare_cpu = true;
  /// Extra evidence about the call, asked of torch itself (e.g. which SDPA
  /// backend its selection API picks for these inputs); merged into the
  /// result's `evidence`. Runs once, outside the timed region; may throw
  /// (recorded as evidence, never a failed check).
  std::function<json(const Tensors&, const OpEnv&)> evidence;
};

/// Every check, in a stable order. Test-only checks (throw, wrong value,
/// abort, hang) are included only when `include_test_checks` is set.
const std::vector<CheckDef>& catalog(bool include_test_checks);

/// Category registration functions, one per file.
void add_creation_checks(std::vector<CheckDef>& out);
void add_elementwise_checks(std::vector<CheckDef>& out);
void add_reduction_checks(std::vector<CheckDef>& out);
void add_linalg_checks(std::vector<CheckDef>& out);
void add_conv_checks(std::vector<CheckDef>& out);
void add_norm_checks(std::vector<CheckDef>& out);
void add_attention_checks(std::vector<CheckDef>& out);
void add_indexing_checks(std::vector<CheckDef>& out);
void add_shape_checks(std::vector<CheckDef>& out);
void add_fft_checks(std::vector<CheckDef>& out);
void add_loss_autograd_checks(std::vector<CheckDef>& out);
void add_test_checks(std::vector<CheckDef>& out);

// ---- helpers for rows

/// The three floating dtypes most ops take.
inline const std::vector<at::ScalarType>& float_dtypes() {
  static const std::vector<at::ScalarType> d{at::kFloat, at::kHalf, at::kBFloat16};
  return d;
}
/// Seeded float64 normal tensor on the CPU (values drawn in float32).
at::Tensor randn64(at::IntArrayRef shape);
/// Seeded float64 uniform tensor in [lo, hi) on the CPU (drawn in float32).
at::Tensor uniform64(at::IntArrayRef shape, double lo, double hi);
/// Seeded int64 tensor in [0, high) on the CPU.
at::Tensor randint64(at::IntArrayRef shape, int64_t high);
/// Product of the dimensions.
double numel(at::IntArrayRef shape);
/// A row that only moves data: no FLOPs (`flops_reason` says why) and
/// `bytes` (of the element size) with its formula.
void movement(CheckDef& c, std::function<double(double)> bytes, std::string formula,
              std::string flops_reason = "0 (data movement)");

}  // namespace accel::engine
