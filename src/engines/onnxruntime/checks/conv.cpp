// Convolution and pooling: Conv (3x3, 1x1, depthwise, strided, 1-D),
// ConvTranspose, MaxPool, AveragePool, GlobalAveragePool.
#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

namespace accel::ort {

namespace {

struct ConvShape {
  std::int64_t n, c, h, w, k, r, stride, pad, group;
  std::int64_t oh() const { return (h + 2 * pad - r) / stride + 1; }
  std::int64_t ow() const { return (w + 2 * pad - r) / stride + 1; }
};

void conv2d(Build& b, const ConvShape& s) {
  const auto x = b.input("x", {s.n, s.c, s.h, s.w});
  const auto w =
      b.weight("w", {s.k, s.c / s.group, s.r, s.r}, 1.0 / std::sqrt(double(s.c / s.group * s.r * s.r)));
  const auto bias = b.weight("bias", {s.k}, 0.1);
  b.output(b.node("Conv", {x, w, bias},
                  {Attribute::of("kernel_shape", std::vector<std::int64_t>{s.r, s.r}),
                   Attribute::of("strides", std::vector<std::int64_t>{s.stride, s.stride}),
                   Attribute::of("pads", std::vector<std::int64_t>{s.pad, s.pad, s.pad, s.pad}),
                   Attribute::of("group", s.group)}),
           {s.n, s.k, s.oh(), s.ow()});
  const double outputs = double(s.n) * s.k * s.oh() * s.ow();
  b.accumulation_length = s.c / s.group * s.r * s.r;
  b.flops = 2.0 * outputs * double(b.accumulation_length);
  b.bytes =
      b.elem_bytes(double(s.n) * s.c * s.h * s.w + double(s.k) * (s.c / s.group) * s.r * s.r + s.k + outputs);
  b.shape =
      fmt::format("{}x{}x{}x{} * {}x{}x{}x{}, stride {}, pad {}{}", s.n, s.c, s.h, s.w, s.k, s.c / s.group,
                  s.r, s.r, s.stride, s.pad, s.group > 1 ? fmt::format(", {} groups", s.group) : "");
}

const char* kConvFlops = "2*N*K*OH*OW*(C/groups)*R*S";
const char* kConvBytes = "(N*C*H*W + K*(C/groups)*R*S + K + N*K*OH*OW)*elem";

void pool(Build& b, const std::string& op, bool global) {
  const std::int64_t n = 4, c = b.size(64, 16), h = b.size(56, 28), w = h;
  const auto x = b.input("x", {n, c, h, w});
  std::vector<Attribute> attrs;
  std::int64_t oh = 1, ow = 1;
  if (!global) {
    attrs = {Attribute::of("kernel_shape", std::vector<std::int64_t>{3, 3}),
             Attribute::of("strides", std::vector<std::int64_t>{2, 2}),
             Attribute::of("pads", std::vector<std::int64_t>{1, 1, 1, 1})};
    oh = (h + 2 - 3) / 2 + 1;
    ow = (w + 2 - 3) / 2 + 1;
  }
  b.output(b.node(op, {x}, attrs), {n, c, oh, ow});
  b.flops = global ? double(n) * c * h * w : double(n) * c * oh * ow * 9;
  b.bytes = b.elem_bytes(double(n) * c * h * w + double(n) * c * oh * ow);
  b.shape = global ? fmt::format("{}x{}x{}x{}", n, c, h, w)
                   : fmt::format("{}x{}x{}x{}, 3x3 stride 2 pad 1", n, c, h, w);
}

}  // namespace

void add_conv_checks(std::vector<CheckDef>& out) {
  out.push_back({"conv2d_3x3", "conv", float_dtypes(), kConvFlops, kConvBytes, [](Build& b) {
                   conv2d(b, {4, b.size(64, 16), b.size(56, 28), b.size(56, 28), b.size(64, 16), 3, 1, 1, 1});
                 }});
  out.push_back(
      {"conv2d_1x1", "conv", float_dtypes(), kConvFlops, kConvBytes, [](Build& b) {
         conv2d(b, {4, b.size(256, 64), b.size(28, 14), b.size(28, 14), b.size(128, 32), 1, 1, 0, 1});
       }});
  out.push_back({"conv2d_depthwise", "conv", float_dtypes(), kConvFlops, kConvBytes, [](Build& b) {
                   const std::int64_t c = b.size(128, 32);
                   conv2d(b, {4, c, b.size(56, 28), b.size(56, 28), c, 3, 1, 1, c});
                 }});
  out.push_back(
      {"conv2d_stride2", "conv", float_dtypes(), kConvFlops, kConvBytes, [](Build& b) {
         conv2d(b, {4, b.size(32, 8), b.size(112, 32), b.size(112, 32), b.size(64, 16), 3, 2, 1, 1});
       }});
  out.push_back(
      {"conv1d", "conv", float_dtypes(), "2*N*K*OL*C*R", "(N*C*L + K*C*R + N*K*OL)*elem", [](Build& b) {
         const std::int64_t n = 4, c = b.size(128, 32), l = b.size(1024, 256), k = b.size(128, 32), r = 5;
         const auto x = b.input("x", {n, c, l});
         const auto w = b.weight("w", {k, c, r}, 1.0 / std::sqrt(double(c * r)));
         b.output(b.node("Conv", {x, w},
                         {Attribute::of("kernel_shape", std::vector<std::int64_t>{r}),
                          Attribute::of("pads", std::vector<std::int64_t>{2, 2})}),
                  {n, k, l});
         b.accumulation_length = c * r;
         b.flops = 2.0 * n * k * l * c * r;
         b.bytes = b.elem_bytes(double(n) * c * l + double(k) * c * r + double(n) * k * l);
         b.shape = fmt::format("{}x{}x{} * {}x{}x{}, pad 2", n, c, l, k, c, r);
       }});
  out.push_back({"conv_transpose2d", "conv", float_dtypes(), "2*N*C*H*W*K*R*S",
                 "(N*C*H*W + C*K*R*S + N*K*OH*OW)*elem", [](Build& b) {
                   const std::int64_t n = 4, c = b.size(64, 16), h = b.size(28, 14), w = h, k = b.size(32, 8);
                   const auto x = b.input("x", {n, c, h, w});
                   const auto wt = b.weight("w", {c, k, 4, 4}, 1.0 / std::sqrt(double(c * 4)));
                   const std::int64_t oh = (h - 1) * 2 - 2 + 4, ow = oh;
                   b.output(b.node("ConvTranspose", {x, wt},
                                   {Attribute::of("kernel_shape", std::vector<std::int64_t>{4, 4}),
                                    Attribute::of("strides", std::vector<std::int64_t>{2, 2}),
                                    Attribute::of("pads", std::vector<std::int64_t>{1, 1, 1, 1})}),
                            {n, k, oh, ow});
                   // Each output sums C x (R/stride) x (S/stride) products on average.
                   b.accumulation_length = c * 4;
                   b.flops = 2.0 * n * c * h * w * k * 16;
                   b.bytes =
                       b.elem_bytes(double(n) * c * h * w + double(c) * k * 16 + double(n) * k * oh * ow);
                   b.shape = fmt::format("{}x{}x{}x{} *T {}x{}x4x4, stride 2, pad 1", n, c, h, w, c, k);
                 }});
  out.push_back({"maxpool2d", "pooling", float_dtypes(), "N*C*OH*OW*9 (compares)",
                 "(N*C*H*W + N*C*OH*OW)*elem", [](Build& b) { pool(b, "MaxPool", false); }});
  out.push_back({"avgpool2d", "pooling", float_dtypes(), "N*C*OH*OW*9", "(N*C*H*W + N*C*OH*OW)*elem",
                 [](Build& b) { pool(b, "AveragePool", false); }});
  out.push_back({"global_avgpool", "pooling", float_dtypes(), "N*C*H*W", "(N*C*H*W + N*C)*elem",
                 [](Build& b) { pool(b, "GlobalAveragePool", true); }});
}

}  // namespace accel::ort
