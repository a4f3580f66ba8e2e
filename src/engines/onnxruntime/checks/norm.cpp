// Normalisation: BatchNormalization (inference), LayerNormalization (opset
// 17), GroupNormalization (opset 18), InstanceNormalization, Softmax and
// LogSoftmax (the last axis of attention-shaped scores).
#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

namespace accel::ort {

void add_norm_checks(std::vector<CheckDef>& out) {
  out.push_back({"batchnorm", "norm", float_dtypes(), "2*N*C*H*W", "(2*N*C*H*W + 4*C)*elem", [](Build& b) {
                   const std::int64_t n = 4, c = b.size(64, 16), h = b.size(56, 28), w = h;
                   const auto x = b.input("x", {n, c, h, w});
                   const auto scale = b.weight("scale", {c}, 0.2, 1.0);
                   const auto bias = b.weight("bias", {c}, 0.1);
                   const auto mean = b.weight("mean", {c}, 0.1);
                   std::vector<double> var(static_cast<std::size_t>(c));
                   for (std::size_t i = 0; i < var.size(); ++i)
                     var[i] = 0.5 + 0.01 * static_cast<double>(i % 50);
                   const auto v = b.constant("var", {c}, var);
                   b.output(b.node("BatchNormalization", {x, scale, bias, mean, v}), {n, c, h, w});
                   b.flops = 2.0 * n * c * h * w;
                   b.bytes = b.elem_bytes(2.0 * n * c * h * w + 4.0 * c);
                   b.shape = fmt::format("{}x{}x{}x{}", n, c, h, w);
                 }});
  out.push_back(
      {"layernorm", "norm", float_dtypes(), "8*R*D", "(2*R*D + 2*D)*elem", [](Build& b) {
         const std::int64_t r = b.size(2048, 256), d = b.size(768, 256);
         const auto x = b.input("x", {r, d});
         const auto scale = b.weight("scale", {d}, 0.2, 1.0);
         const auto bias = b.weight("bias", {d}, 0.1);
         b.output(b.node("LayerNormalization", {x, scale, bias}, {Attribute::of("axis", -1)}), {r, d});
         b.flops = 8.0 * r * d;
         b.bytes = b.elem_bytes(2.0 * r * d + 2.0 * d);
         b.shape = fmt::format("{}x{}, last axis", r, d);
         b.accumulation_length = d;  // the mean and variance sums
       }});
  out.push_back({"groupnorm", "norm", float_dtypes(), "8*N*C*H*W", "(2*N*C*H*W + 2*C)*elem", [](Build& b) {
                   b.opset("", 18);  // GroupNormalization: opset 18 (scale and bias per group there)
                   const std::int64_t n = 2, c = b.size(64, 32), h = b.size(32, 16), w = h, groups = 8;
                   const auto x = b.input("x", {n, c, h, w});
                   const auto scale = b.weight("scale", {groups}, 0.2, 1.0);
                   const auto bias = b.weight("bias", {groups}, 0.1);
                   b.output(
                       b.node("GroupNormalization", {x, scale, bias}, {Attribute::of("num_groups", groups)}),
                       {n, c, h, w});
                   b.flops = 8.0 * n * c * h * w;
                   b.bytes = b.elem_bytes(2.0 * n * c * h * w + 2.0 * groups);
                   b.shape = fmt::format("{}x{}x{}x{}, {} groups", n, c, h, w, groups);
                   b.accumulation_length = c / groups * h * w;
                 }});
  out.push_back({"instancenorm", "norm", float_dtypes(), "8*N*C*H*W", "(2*N*C*H*W + 2*C)*elem", [](Build& b) {
                   const std::int64_t n = 2, c = b.size(64, 16), h = b.size(32, 16), w = h;
                   const auto x = b.input("x", {n, c, h, w});
                   const auto scale = b.weight("scale", {c}, 0.2, 1.0);
                   const auto bias = b.weight("bias", {c}, 0.1);
                   b.output(b.node("InstanceNormalization", {x, scale, bias}), {n, c, h, w});
                   b.flops = 8.0 * n * c * h * w;
                   b.bytes = b.elem_bytes(2.0 * n * c * h * w + 2.0 * c);
                   b.shape = fmt::format("{}x{}x{}x{}", n, c, h, w);
                   b.accumulation_length = h * w;
                 }});
  out.push_back({"softmax", "norm", float_dtypes(), "5*R*L", "2*R*L*elem", [](Build& b) {
                   const std::int64_t r = b.size(4096, 512), l = b.size(1024, 256);
                   const auto x = b.input("x", {r, l}, InputFill{InputFill::Kind::normal, 0, 1, 2.0});
                   b.output(b.node("Softmax", {x}, {Attribute::of("axis", -1)}), {r, l});
                   b.flops = 5.0 * r * l;
                   b.bytes = b.elem_bytes(2.0 * r * l);
                   b.shape = fmt::format("{}x{}, last axis", r, l);
                 }});
  out.push_back({"log_softmax", "norm", float_dtypes(), "5*R*L", "2*R*L*elem", [](Build& b) {
                   const std::int64_t r = b.size(1024, 256), l = b.size(1000, 1000);
                   const auto x = b.input("x", {r, l}, InputFill{InputFill::Kind::normal, 0, 1, 2.0});
                   b.output(b.node("LogSoftmax", {x}, {Attribute::of("axis", -1)}), {r, l});
                   b.flops = 5.0 * r * l;
                   b.bytes = b.elem_bytes(2.0 * r * l);
                   b.shape = fmt::format("{}x{}, last axis", r, l);
                 }});
}

}  // namespace accel::ort
