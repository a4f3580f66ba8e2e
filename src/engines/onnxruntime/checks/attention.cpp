// Attention: the exported-model form (MatMul, scale, Softmax, MatMul), the
// ai.onnx Attention op (opset 23) and the com.microsoft contrib ops
// MultiHeadAttention and Attention (fused QKV projection) that ONNX Runtime's
// transformer optimiser produces, where the provider has them.
#include "engines/onnxruntime/checks/check.hpp"

#include <cmath>

#include <fmt/format.h>

namespace accel::ort {

namespace {
struct AttnShape {
  std::int64_t b, h, s, d;
};
AttnShape attn_shape(const Build& b) { return {2, b.size(8, 4), b.size(512, 128), 64}; }
const char* kAttnFlops = "4*B*H*S^2*D (QK^T and PV)";
const char* kAttnBytes = "(4*B*H*S*D)*elem (Q, K, V, output)";
void attn_work(Build& b, const AttnShape& a) {
  b.flops = 4.0 * a.b * a.h * a.s * a.s * a.d;
  b.bytes = b.elem_bytes(4.0 * a.b * a.h * a.s * a.d);
  b.accumulation_length = a.s;  // the PV sum (QK^T sums D < S terms)
}
}  // namespace

void add_attention_checks(std::vector<CheckDef>& out) {
  out.push_back({"sdpa_composed", "attention", float_dtypes(), kAttnFlops, kAttnBytes, [](Build& b) {
                   const auto a = attn_shape(b);
                   const auto q = b.input("q", {a.b, a.h, a.s, a.d});
                   const auto k = b.input("k", {a.b, a.h, a.s, a.d});
                   const auto v = b.input("v", {a.b, a.h, a.s, a.d});
                   const auto kt = b.node("Transpose", {k},
                                          {Attribute::of("perm", std::vector<std::int64_t>{0, 1, 3, 2})});
                   const auto scores = b.node("MatMul", {q, kt});
                   const auto scale = b.constant("scale", {}, {1.0 / std::sqrt(double(a.d))});
                   const auto scaled = b.node("Mul", {scores, scale});
                   const auto p = b.node("Softmax", {scaled}, {Attribute::of("axis", -1)});
                   b.output(b.node("MatMul", {p, v}), {a.b, a.h, a.s, a.d});
                   attn_work(b, a);
                   b.shape = fmt::format("B={} H={} S={} D={}, MatMul-Softmax-MatMul", a.b, a.h, a.s, a.d);
                 }});
  out.push_back({"attention_onnx", "attention", float_dtypes(), kAttnFlops, kAttnBytes, [](Build& b) {
                   b.opset("", 23);  // ai.onnx Attention: opset 23
                   const auto a = attn_shape(b);
                   const auto q = b.input("q", {a.b, a.h, a.s, a.d});
                   const auto k = b.input("k", {a.b, a.h, a.s, a.d});
                   const auto v = b.input("v", {a.b, a.h, a.s, a.d});
                   b.output(b.node("Attention", {q, k, v}), {a.b, a.h, a.s, a.d});
                   attn_work(b, a);
                   b.shape =
                       fmt::format("B={} H={} S={} D={}, ai.onnx Attention (opset 23)", a.b, a.h, a.s, a.d);
                 }});
  CheckDef mha{
      "mha_contrib", "attention", float_dtypes(), kAttnFlops, kAttnBytes, [](Build& b) {
        b.opset("com.microsoft", 1);
        const auto a = attn_shape(b);
        const std::int64_t hidden = a.h * a.d;
        const auto q = b.input("q", {a.b, a.s, hidden});
        const auto k = b.input("k", {a.b, a.s, hidden});
        const auto v = b.input("v", {a.b, a.s, hidden});
        b.output(b.node("MultiHeadAttention", {q, k, v}, {Attribute::of("num_heads", a.h)}, "com.microsoft"),
                 {a.b, a.s, hidden});
        attn_work(b, a);
        b.shape = fmt::format("B={} S={} hidden={} ({} heads), com.microsoft MultiHeadAttention", a.b, a.s,
                              hidden, a.h);
      }};
  mha.contrib = true;
  out.push_back(std::move(mha));
  CheckDef fused{
      "attention_contrib",
      "attention",
      float_dtypes(),
      "4*B*H*S^2*D + 6*B*S*hidden^2 (QKV projection)",
      "(2*B*S*hidden + 3*hidden^2 + 3*hidden)*elem",
      [](Build& b) {
        b.opset("com.microsoft", 1);
        const auto a = attn_shape(b);
        const std::int64_t hidden = a.h * a.d;
        const auto x = b.input("x", {a.b, a.s, hidden});
        const auto w = b.weight("qkv_weight", {hidden, 3 * hidden}, 1.0 / std::sqrt(double(hidden)));
        const auto bias = b.weight("qkv_bias", {3 * hidden}, 0.02);
        b.output(b.node("Attention", {x, w, bias}, {Attribute::of("num_heads", a.h)}, "com.microsoft"),
                 {a.b, a.s, hidden});
        b.flops = 4.0 * a.b * a.h * a.s * a.s * a.d + 6.0 * a.b * a.s * hidden * hidden;
        b.bytes = b.elem_bytes(2.0 * a.b * a.s * hidden + 3.0 * hidden * hidden + 3.0 * hidden);
        b.accumulation_length = std::max(a.s, hidden);
        b.shape = fmt::format("B={} S={} hidden={} ({} heads), com.microsoft Attention (fused QKV)", a.b, a.s,
                              hidden, a.h);
      }};
  fused.contrib = true;
  fused.tolerance_scale = 2;  // projection, then attention: two chained sums of products
  out.push_back(std::move(fused));
}

}  // namespace accel::ort
