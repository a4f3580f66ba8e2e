// Our own writer of the few ONNX protobuf messages a check needs (ModelProto,
// OperatorSetIdProto, GraphProto, NodeProto, AttributeProto, TensorProto,
// ValueInfoProto, TypeProto.Tensor, TensorShapeProto), so a runtime older
// than the Model Editor API (ONNX Runtime < 1.22) still runs the catalog,
// without linking libprotobuf. Field numbers: onnx/onnx.proto3 (onnx 1.12+,
// IR version 8+); wire format: protobuf's encoding guide (varints, length-
// delimited fields, packed repeated scalars). Tested with Debian's
// python3-onnx checker (tests/unit/ort_onnx_writer_test.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "engines/onnxruntime/graph.hpp"

namespace accel::ort {

/// The IR version a model with this highest ai.onnx opset needs (onnx's
/// VERSION_TABLE: opset <= 18: 8, <= 20: 9, <= 22: 10, else 11).
int ir_version_for_opset(int opset);

/// The serialised ModelProto of `g` (producer "accel-doctor"). Pure.
std::string write_onnx_model(const Graph& g);

namespace pb {
/// Protobuf wire primitives (exposed for tests).
void put_varint(std::string& out, std::uint64_t v);
void put_tag(std::string& out, int field, int wire_type);
}  // namespace pb

}  // namespace accel::ort
