#include "engines/onnxruntime/onnx_writer.hpp"

#include <cstring>

namespace accel::ort {

namespace pb {

enum Wire { kVarint = 0, kFixed64 = 1, kBytes = 2, kFixed32 = 5 };

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_tag(std::string& out, int field, int wire_type) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(wire_type));
}

namespace {
void put_int(std::string& out, int field, std::int64_t v) {
  put_tag(out, field, kVarint);
  put_varint(out, static_cast<std::uint64_t>(v));  // negative int64: ten bytes, as protobuf does
}
void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_tag(out, field, kBytes);
  put_varint(out, bytes.size());
  out += bytes;
}
void put_float(std::string& out, int field, float f) {
  put_tag(out, field, kFixed32);
  char b[4];
  std::memcpy(b, &f, 4);  // little-endian hosts only (x86-64, arm64), as the runtime itself
  out.append(b, 4);
}
void put_packed_ints(std::string& out, int field, const std::vector<std::int64_t>& v) {
  std::string body;
  for (auto x : v) put_varint(body, static_cast<std::uint64_t>(x));
  put_bytes(out, field, body);
}
void put_packed_floats(std::string& out, int field, const std::vector<float>& v) {
  std::string body(v.size() * 4, '\0');
  if (!v.empty()) std::memcpy(body.data(), v.data(), body.size());
  put_bytes(out, field, body);
}
}  // namespace

}  // namespace pb

int ir_version_for_opset(int opset) {
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  return 11;
}

namespace {

// onnx.proto3 field numbers.
namespace f {
constexpr int kModelIrVersion = 1, kModelProducerName = 2, kModelProducerVersion = 3, kModelGraph = 7,
              kModelOpsetImport = 8;
constexpr int kOpsetDomain = 1, kOpsetVersion = 2;
constexpr int kGraphNode = 1, kGraphName = 2, kGraphInitializer = 5, kGraphInput = 11, kGraphOutput = 12;
constexpr int kNodeInput = 1, kNodeOutput = 2, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5,
              kNodeDomain = 7;
constexpr int kAttrName = 1, kAttrF = 2, kAttrI = 3, kAttrS = 4, kAttrFloats = 7, kAttrInts = 8,
              kAttrType = 20;
constexpr int kTensorDims = 1, kTensorDataType = 2, kTensorName = 8, kTensorRawData = 9;
constexpr int kValueInfoName = 1, kValueInfoType = 2;
constexpr int kTypeTensorType = 1;
constexpr int kTensorTypeElemType = 1, kTensorTypeShape = 2;
constexpr int kShapeDim = 1;
constexpr int kDimValue = 1;
}  // namespace f

// AttributeProto.AttributeType
enum AttrType { kFloat = 1, kInt = 2, kString = 3, kFloats = 6, kInts = 7 };

std::string attribute_message(const Attribute& a) {
  std::string m;
  pb::put_bytes(m, f::kAttrName, a.name);
  switch (a.kind) {
    case Attribute::Kind::integer:
      pb::put_int(m, f::kAttrI, a.i);
      pb::put_int(m, f::kAttrType, kInt);
      break;
    case Attribute::Kind::real:
      pb::put_float(m, f::kAttrF, a.f);
      pb::put_int(m, f::kAttrType, kFloat);
      break;
    case Attribute::Kind::text:
      pb::put_bytes(m, f::kAttrS, a.s);
      pb::put_int(m, f::kAttrType, kString);
      break;
    case Attribute::Kind::integers:
      pb::put_packed_ints(m, f::kAttrInts, a.ints);
      pb::put_int(m, f::kAttrType, kInts);
      break;
    case Attribute::Kind::reals:
      pb::put_packed_floats(m, f::kAttrFloats, a.floats);
      pb::put_int(m, f::kAttrType, kFloats);
      break;
  }
  return m;
}

std::string node_message(const Node& n) {
  std::string m;
  for (const auto& in : n.inputs) pb::put_bytes(m, f::kNodeInput, in);
  for (const auto& out : n.outputs) pb::put_bytes(m, f::kNodeOutput, out);
  pb::put_bytes(m, f::kNodeName, n.name);
  pb::put_bytes(m, f::kNodeOpType, n.op);
  for (const auto& a : n.attributes) pb::put_bytes(m, f::kNodeAttribute, attribute_message(a));
  if (!n.domain.empty()) pb::put_bytes(m, f::kNodeDomain, n.domain);
  return m;
}

std::string tensor_message(const Initializer& init) {
  std::string m;
  pb::put_packed_ints(m, f::kTensorDims, init.spec.dims);
  pb::put_int(m, f::kTensorDataType, static_cast<int>(init.spec.dtype));
  pb::put_bytes(m, f::kTensorName, init.spec.name);
  pb::put_bytes(m, f::kTensorRawData, std::string(init.data.begin(), init.data.end()));
  return m;
}

std::string value_info_message(const TensorSpec& t) {
  std::string shape;
  for (auto d : t.dims) {
    std::string dim;
    pb::put_int(dim, f::kDimValue, d);
    pb::put_bytes(shape, f::kShapeDim, dim);
  }
  std::string tensor_type;
  pb::put_int(tensor_type, f::kTensorTypeElemType, static_cast<int>(t.dtype));
  pb::put_bytes(tensor_type, f::kTensorTypeShape, shape);
  std::string type;
  pb::put_bytes(type, f::kTypeTensorType, tensor_type);
  std::string m;
  pb::put_bytes(m, f::kValueInfoName, t.name);
  pb::put_bytes(m, f::kValueInfoType, type);
  return m;
}

}  // namespace

std::string write_onnx_model(const Graph& g) {
  std::string graph;
  for (const auto& n : g.nodes) pb::put_bytes(graph, f::kGraphNode, node_message(n));
  pb::put_bytes(graph, f::kGraphName, g.name);
  for (const auto& init : g.initializers) pb::put_bytes(graph, f::kGraphInitializer, tensor_message(init));
  for (const auto& in : g.inputs) pb::put_bytes(graph, f::kGraphInput, value_info_message(in));
  for (const auto& out : g.outputs) pb::put_bytes(graph, f::kGraphOutput, value_info_message(out));

  int onnx_opset = 1;
  for (const auto& [domain, version] : g.opsets) {
    if (domain.empty() || domain == "ai.onnx") onnx_opset = std::max(onnx_opset, version);
  }
  std::string model;
  pb::put_int(model, f::kModelIrVersion, ir_version_for_opset(onnx_opset));
  pb::put_bytes(model, f::kModelProducerName, "accel-doctor");
  pb::put_bytes(model, f::kModelProducerVersion, "1");
  pb::put_bytes(model, f::kModelGraph, graph);
  for (const auto& [domain, version] : g.opsets) {
    std::string op;
    pb::put_bytes(op, f::kOpsetDomain, domain);
    pb::put_int(op, f::kOpsetVersion, version);
    pb::put_bytes(model, f::kModelOpsetImport, op);
  }
  return model;
}

}  // namespace accel::ort
