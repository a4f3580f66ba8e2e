// The ONNX Runtime op-check catalog: a check is a row (name, category,
// dtypes, FLOPs and bytes formulas, how to build its graph); adding an
// operator is adding a row to one of the category files in this folder.
// The same row builds the model the target provider runs (in the row's
// dtype) and the one the CPU provider runs as the reference (fp64 where the
// CPU has kernels, else fp32), from the same input values and weights.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engines/onnxruntime/graph.hpp"

namespace accel::ort {

/// How a graph input is filled (deterministically, from the check's seed).
struct InputFill {
  enum class Kind { normal, uniform, integers } kind = Kind::normal;
  double lo = 0, hi = 1;  ///< uniform range, or integers in [lo, hi)
  double scale = 1;       ///< normal: standard deviation
};

/// `n` values drawn as `fill` says (splitmix64 + Box-Muller: the same
/// seed gives the same values on every machine).
std::vector<double> draw_values(const InputFill& fill, std::int64_t n, std::uint64_t seed);

/// How an output is compared with the reference.
/// relative: Frobenius error against the tolerance; exact: every element
/// equal (integer outputs); mostly: at least 99% of the elements equal
/// (indices of fp16 values, where rounding makes ties); skip: not compared.
enum class Compare { relative, exact, mostly, skip };

/// What a row's builder makes for one dtype.
class Build {
 public:
  /// `compute`: the row's dtype (every float value is rounded to it);
  /// `graph`: the model's float type (compute, or the reference's).
  Build(DType compute, DType graph, bool quick, std::uint64_t seed);

  DType compute() const { return compute_; }
  DType graph_dtype() const { return graph_dtype_; }
  bool quick() const { return quick_; }
  /// `full` normally, `small` with --quick.
  std::int64_t size(std::int64_t full, std::int64_t small) const { return quick_ ? small : full; }

  /// A float graph input of the model's float type.
  const std::string& input(const std::string& name, std::vector<std::int64_t> dims, InputFill fill = {});
  /// A graph input of a fixed element type (a Cast's source, whatever the model's float type).
  const std::string& typed_input(const std::string& name, DType dtype, std::vector<std::int64_t> dims,
                                 InputFill fill = {});
  /// An int64 graph input with values in [lo, hi).
  const std::string& index_input(const std::string& name, std::vector<std::int64_t> dims, std::int64_t lo,
                                 std::int64_t hi);
  /// A float initializer: normal(0, scale) values rounded to the row's dtype.
  std::string weight(const std::string& name, std::vector<std::int64_t> dims, double scale = 1.0,
                     double mean = 0.0);
  /// A float initializer with given values (rounded to the row's dtype).
  std::string constant(const std::string& name, std::vector<std::int64_t> dims,
                       const std::vector<double>& values);
  /// An int64 initializer (shapes, axes, pads).
  std::string ints(const std::string& name, const std::vector<std::int64_t>& values,
                   std::vector<std::int64_t> dims = {});
  /// A 0-D int64 initializer (CumSum's axis).
  std::string scalar_int(const std::string& name, std::int64_t value);
  /// Adds a node; returns its (first) output, named "t<n>" when `outputs` is empty.
  std::string node(const std::string& op, std::vector<std::string> inputs, std::vector<Attribute> attrs = {},
                   std::string domain = "", std::vector<std::string> outputs = {});
  /// Declares a graph output of `dtype` (default: the model's float type).
  void output(const std::string& name, std::vector<std::int64_t> dims, Compare compare = Compare::relative);
  void output(const std::string& name, std::vector<std::int64_t> dims, DType dtype, Compare compare);
  /// Requires an opset ("" = ai.onnx, "com.microsoft" for contrib ops).
  void opset(const std::string& domain, int version) { g_.use_opset(domain, version); }

  // What the row's formulas evaluate to for this shape.
  double flops = 0;
  double bytes = 0;
  std::string shape;
  std::string tag;         ///< workloads: the size in the key ("n8192", "b256")
  std::int64_t items = 0;  ///< workloads: samples or images one call processes
  /// K of a sum of products (half-precision tolerance, core/accumulation.hpp); 0 otherwise.
  std::int64_t accumulation_length = 0;

  Graph& graph() { return g_; }
  const Graph& graph() const { return g_; }
  const std::vector<InputFill>& fills() const { return fills_; }
  const std::vector<Compare>& compares() const { return compares_; }
  /// Bytes of `n` elements of the row's dtype (for byte formulas).
  double elem_bytes(double n) const { return n * static_cast<double>(element_size(compute_)); }

 private:
  DType compute_, graph_dtype_;
  bool quick_;
  std::uint64_t seed_;
  std::uint64_t draws_ = 0;
  Graph g_;
  std::vector<InputFill> fills_;
  std::vector<Compare> compares_;
};

struct CheckDef {
  CheckDef(std::string name_, std::string category_, std::vector<DType> dtypes_, std::string flops_formula_,
           std::string bytes_formula_, std::function<void(Build&)> build_)
      : name(std::move(name_)),
        category(std::move(category_)),
        dtypes(std::move(dtypes_)),
        flops_formula(std::move(flops_formula_)),
        bytes_formula(std::move(bytes_formula_)),
        build(std::move(build_)) {}
  std::string name;      ///< no space or slash; the key is ort/<category>/<name>/<dtype>
  std::string category;  ///< linalg, conv, pooling, norm, activation, attention, indexing, reduction, resize,
                         ///< cast, rnn
  std::vector<DType> dtypes;
  std::string flops_formula;  ///< or "0 (why)"
  std::string bytes_formula;
  std::function<void(Build&)> build;
  double tolerance_scale = 1;  ///< >= 1: ops that chain roundings
  /// A contrib op (com.microsoft): providers other than CPU, CUDA and DML may lack it.
  bool contrib = false;
  /// Compare with the CPU reference (off for the seed's 8192^2 MatMul: the
  /// fp64 reference would take longer than the whole run; `linalg/matmul` checks MatMul).
  bool verify = true;
  /// Workloads: what one call processes, for the throughput metric ("images", "samples").
  std::string unit;
};

/// Every check, in catalog order (checks/check.cpp).
const std::vector<CheckDef>& catalog();
/// The workloads (checks/workloads.cpp): the seed's MatMul, an MNIST-shaped
/// MLP and a YOLO-like conv block; run like checks, reported as bench rows.
const std::vector<CheckDef>& workloads();
/// "bench/ort-<device type>/workload/<name>/<dtype>/<shape tag>" for a workload row.
std::string workload_key(const CheckDef& def, DType dtype, const std::string& device_type,
                         const std::string& tag);
/// "ort/<category>/<name>/<dtype>".
std::string check_key(const CheckDef& def, DType dtype);

// One per category file.
void add_linalg_checks(std::vector<CheckDef>& out);
void add_conv_checks(std::vector<CheckDef>& out);
void add_norm_checks(std::vector<CheckDef>& out);
void add_activation_checks(std::vector<CheckDef>& out);
void add_attention_checks(std::vector<CheckDef>& out);
void add_data_checks(std::vector<CheckDef>& out);  ///< indexing, reduction, resize, cast
void add_rnn_checks(std::vector<CheckDef>& out);

/// fp32 and fp16.
inline std::vector<DType> float_dtypes() { return {DType::fp32, DType::fp16}; }

}  // namespace accel::ort
