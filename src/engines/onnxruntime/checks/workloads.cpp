// The workloads: the seed guide's test (an 8192x8192 MatMul on the GPU
// provider against the CPU provider; 2048 with --quick), the seed's MNIST
// MLP (784-256-128-10 with ReLU) and a small YOLO-like backbone block
// (Conv-BN-SiLU stem, a strided conv and a residual bottleneck), fp32 and
// fp16. They run like the checks (placement, CPU-fallback switch, CPU twin)
// and become bench rows with throughput.
#include <cmath>

#include <fmt/format.h>

#include "engines/onnxruntime/checks/check.hpp"

namespace accel::ort {

namespace {

/// Conv (no bias) + BatchNormalization + SiLU; returns the output and adds its FLOPs.
std::string conv_bn_silu(Build& b, const std::string& x, const std::string& tag, std::int64_t cin,
                         std::int64_t cout, std::int64_t k, std::int64_t stride, std::int64_t oh,
                         std::int64_t ow, std::int64_t n) {
  const auto w = b.weight(tag + "_w", {cout, cin, k, k}, 1.0 / std::sqrt(double(cin * k * k)));
  const std::int64_t pad = k / 2;
  const auto y = b.node("Conv", {x, w},
                        {Attribute::of("kernel_shape", std::vector<std::int64_t>{k, k}),
                         Attribute::of("strides", std::vector<std::int64_t>{stride, stride}),
                         Attribute::of("pads", std::vector<std::int64_t>{pad, pad, pad, pad})});
  const auto scale = b.weight(tag + "_scale", {cout}, 0.1, 1.0);
  const auto bias = b.weight(tag + "_bias", {cout}, 0.1);
  const auto mean = b.weight(tag + "_mean", {cout}, 0.05);
  std::vector<double> var(static_cast<std::size_t>(cout), 1.0);
  const auto v = b.constant(tag + "_var", {cout}, var);
  const auto bn = b.node("BatchNormalization", {y, scale, bias, mean, v});
  const auto s = b.node("Sigmoid", {bn});
  b.flops += 2.0 * n * cout * oh * ow * cin * k * k + 7.0 * n * cout * oh * ow;
  b.bytes += b.elem_bytes(double(cout) * cin * k * k);
  b.accumulation_length = std::max<std::int64_t>(b.accumulation_length, cin * k * k);
  return b.node("Mul", {bn, s});
}

}  // namespace

const std::vector<CheckDef>& workloads() {
  static const std::vector<CheckDef> rows = [] {
    std::vector<CheckDef> out;
    CheckDef mm{"matmul_seed", "workload", float_dtypes(), "2*N^3", "3*N^2*elem", [](Build& b) {
                  const std::int64_t n = b.size(8192, 2048);
                  const auto a = b.input("a", {n, n});
                  const auto c = b.input("b", {n, n});
                  b.output(b.node("MatMul", {a, c}), {n, n});
                  b.flops = 2.0 * n * n * n;
                  b.bytes = b.elem_bytes(3.0 * n * n);
                  b.shape = fmt::format("{0}x{0} @ {0}x{0} (the seed guide's DirectML test)", n);
                  b.tag = fmt::format("n{}", n);
                  b.accumulation_length = n;
                }};
    mm.verify = false;
    out.push_back(std::move(mm));
    CheckDef mlp{"mlp_mnist",
                 "workload",
                 float_dtypes(),
                 "2*B*(784*256 + 256*128 + 128*10)",
                 "(B*784 + 784*256 + 256*128 + 128*10 + B*10)*elem",
                 [](Build& b) {
                   const std::int64_t batch = b.size(256, 64);
                   const auto x = b.input("images", {batch, 784}, InputFill{InputFill::Kind::uniform, 0, 1});
                   std::string h = x;
                   const std::int64_t dims[] = {784, 256, 128, 10};
                   for (int i = 0; i < 3; ++i) {
                     const auto w = b.weight(fmt::format("fc{}_w", i + 1), {dims[i], dims[i + 1]},
                                             1.0 / std::sqrt(double(dims[i])));
                     const auto bias = b.weight(fmt::format("fc{}_b", i + 1), {dims[i + 1]}, 0.05);
                     h = b.node("Add", {b.node("MatMul", {h, w}), bias});
                     if (i < 2) h = b.node("Relu", {h});
                     b.flops += 2.0 * batch * dims[i] * dims[i + 1];
                     b.bytes += b.elem_bytes(double(dims[i]) * dims[i + 1]);
                   }
                   b.output(h, {batch, 10});
                   b.bytes += b.elem_bytes(batch * 794.0);
                   b.accumulation_length = 784;
                   b.shape = fmt::format("batch {} x 784 -> 256 -> 128 -> 10 (the seed's MNIST net)", batch);
                   b.tag = fmt::format("b{}", batch);
                   b.items = batch;
                 }};
    mlp.unit = "samples";
    mlp.tolerance_scale = 2;
    out.push_back(std::move(mlp));
    CheckDef conv{"conv_block",
                  "workload",
                  float_dtypes(),
                  "sum of 2*N*K*OH*OW*C*R*S over the convs",
                  "(N*3*H*W + weights + N*64*H/4*W/4)*elem",
                  [](Build& b) {
                    const std::int64_t n = 1, h = b.size(640, 320), w = h;
                    const auto x = b.input("image", {n, 3, h, w}, InputFill{InputFill::Kind::uniform, 0, 1});
                    auto y = conv_bn_silu(b, x, "stem", 3, 16, 3, 2, h / 2, w / 2, n);
                    y = conv_bn_silu(b, y, "down", 16, 32, 3, 2, h / 4, w / 4, n);
                    // Bottleneck with a residual: 1x1 then 3x3, added back.
                    auto z = conv_bn_silu(b, y, "b1", 32, 32, 1, 1, h / 4, w / 4, n);
                    z = conv_bn_silu(b, z, "b2", 32, 32, 3, 1, h / 4, w / 4, n);
                    b.output(b.node("Add", {y, z}), {n, 32, h / 4, w / 4});
                    b.bytes += b.elem_bytes(double(n) * 3 * h * w + double(n) * 32 * (h / 4) * (w / 4));
                    b.shape = fmt::format("{}x3x{}x{}: Conv-BN-SiLU stem, strided conv, residual bottleneck",
                                          n, h, w);
                    b.tag = fmt::format("{}px", h);
                    b.items = n;
                  }};
    conv.unit = "images";
    conv.tolerance_scale = 4;  // four convolutions in a row
    out.push_back(std::move(conv));
    return out;
  }();
  return rows;
}

}  // namespace accel::ort
