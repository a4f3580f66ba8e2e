// A small ONNX graph in plain data: what an op check builds, and what both
// model builders (the Model Editor API, model_builder.hpp; our protobuf
// writer, onnx_writer.hpp) turn into a model. Pure: no runtime here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace accel::ort {

/// Element types the checks use; the numbers are onnx TensorProto.DataType
/// (= ONNXTensorElementDataType).
enum class DType : int {
  fp32 = 1,
  uint8 = 2,
  int8 = 3,
  int32 = 6,
  int64 = 7,
  boolean = 9,
  fp16 = 10,
  fp64 = 11
};

/// "fp32", "fp16", "fp64", "int64", "int32", "int8", "uint8", "bool" (report dtype names).
std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view name);
/// Bytes per element.
std::size_t element_size(DType t);
bool is_float(DType t);

/// IEEE 754 binary16 <-> binary32 (round to nearest even; overflow to inf,
/// NaN kept). Used for fp16 inputs and outputs.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);

/// A tensor's name, element type and shape (every dimension fixed).
struct TensorSpec {
  std::string name;
  DType dtype = DType::fp32;
  std::vector<std::int64_t> dims;
  std::int64_t elements() const;
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * element_size(dtype); }
};

/// A node attribute (the kinds the checks need).
struct Attribute {
  enum class Kind { integer, real, text, integers, reals };
  std::string name;
  Kind kind = Kind::integer;
  std::int64_t i = 0;
  float f = 0;
  std::string s;
  std::vector<std::int64_t> ints;
  std::vector<float> floats;

  static Attribute of(std::string name, std::int64_t v);
  static Attribute of(std::string name, int v) { return of(std::move(name), static_cast<std::int64_t>(v)); }
  static Attribute of(std::string name, float v);
  static Attribute of(std::string name, std::string v);
  static Attribute of(std::string name, const char* v) { return of(std::move(name), std::string(v)); }
  static Attribute of(std::string name, std::vector<std::int64_t> v);
  static Attribute of(std::string name, std::vector<float> v);
};

struct Node {
  std::string op;
  std::string domain;  ///< "" (ai.onnx) or "com.microsoft"
  std::string name;
  std::vector<std::string> inputs;  ///< "" for an omitted optional input
  std::vector<std::string> outputs;
  std::vector<Attribute> attributes;
};

/// A constant tensor (weights, shapes, axes), raw little-endian bytes.
struct Initializer {
  TensorSpec spec;
  std::vector<std::uint8_t> data;
};

struct Graph {
  std::string name = "accel_doctor_check";
  std::vector<TensorSpec> inputs;  ///< fed at run time
  std::vector<TensorSpec> outputs;
  std::vector<Initializer> initializers;
  std::vector<Node> nodes;
  /// Operator sets: ("", 17) for ai.onnx, ("com.microsoft", 1) for contrib ops.
  std::vector<std::pair<std::string, int>> opsets{{"", 17}};

  /// Adds a node (named "<op>_<n>" when `name` is empty) and returns its first output.
  const std::string& add(Node node);
  /// An int64 initializer (shapes, axes, pads) named `name`; returns the name.
  std::string add_int64s(const std::string& name, const std::vector<std::int64_t>& values,
                         std::vector<std::int64_t> dims = {});
  /// A floating initializer of `dtype` from doubles (rounded to the type).
  std::string add_floats(const std::string& name, DType dtype, const std::vector<double>& values,
                         std::vector<std::int64_t> dims);
  /// Requires a domain's opset (raises the version if already present).
  void use_opset(const std::string& domain, int version);
};

/// Converts doubles to a tensor's raw bytes in `dtype` (floats rounded to
/// nearest; integers truncated toward zero; bool: != 0).
std::vector<std::uint8_t> encode(DType dtype, const std::vector<double>& values);
/// Raw bytes of `dtype` back to doubles.
std::vector<double> decode(DType dtype, const std::uint8_t* data, std::size_t elements);

/// Checks what both builders rely on: unique node and value names, every
/// node input produced by a graph input, an initializer or an earlier node,
/// every graph output produced, initializer sizes matching their shapes.
/// Returns the problems ("" when none).
std::string validate(const Graph& g);

}  // namespace accel::ort
