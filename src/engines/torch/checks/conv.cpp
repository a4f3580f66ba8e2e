// Convolution, pooling and resampling: cuDNN / MIOpen / oneDNN do the work
// on their platforms. Shapes are ResNet/UNet-like (56x56 and 28x28 feature
// maps) with a small batch so that the float64 CPU reference stays cheap.
#include <cmath>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "conv";
  c.dtypes = float_dtypes();
  c.shape = std::move(shape);
  return c;
}

/// Work of a 2-D convolution: 2*N*Cout*(Cin/groups)*kh*kw*Hout*Wout.
void conv_work(CheckDef& c, double n, double cin, double cout, double k2, double hout_wout, double hin_win,
               double groups = 1) {
  c.flops = 2.0 * n * cout * (cin / groups) * k2 * hout_wout;
  c.accumulation_length = static_cast<int64_t>(cin / groups * k2);
  c.flops_formula = groups == 1 ? "2*N*Cout*Cin*kh*kw*Hout*Wout" : "2*N*Cout*(Cin/groups)*kh*kw*Hout*Wout";
  const double w = cout * (cin / groups) * k2;
  c.bytes = [=](double e) { return (n * cin * hin_win + w + n * cout * hout_wout) * e; };
  c.bytes_formula = "(input + weight + output)*elem";
}

/// Work of a pooling/resampling op: `per_out` FLOPs per output element.
void pool_work(CheckDef& c, double in_elems, double out_elems, double per_out, const std::string& formula) {
  c.flops = per_out * out_elems;
  c.flops_formula = formula;
  c.bytes = [=](double e) { return (in_elems + out_elems) * e; };
  c.bytes_formula = "(input + output)*elem";
}

at::Tensor he_weight(at::IntArrayRef shape, double fan_in) {
  return randn64(shape) * std::sqrt(2.0 / fan_in);
}
}  // namespace

void add_conv_checks(std::vector<CheckDef>& out) {
  // ---- convolutions
  {
    static constexpr int64_t N = 1, C = 64, K = 64, H = 56;
    CheckDef c = make("conv2d_3x3", "1x64x56x56, 64 filters 3x3, pad 1");
    c.inputs = [] {
      return Tensors{randn64({N, C, H, H}), he_weight({K, C, 3, 3}, C * 9), randn64({K}) * 0.1};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv2d(in[0], in[1], in[2], 1, 1); };
    conv_work(c, N, C, K, 9, H * H, H * H);
    out.push_back(c);
  }
  {
    static constexpr int64_t N = 2, C = 128, K = 256, H = 28;
    CheckDef c = make("conv2d_1x1", "2x128x28x28, 256 filters 1x1");
    c.inputs = [] { return Tensors{randn64({N, C, H, H}), he_weight({K, C, 1, 1}, C)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv2d(in[0], in[1]); };
    conv_work(c, N, C, K, 1, H * H, H * H);
    out.push_back(c);
  }
  {
    // MobileNet/ConvNeXt depthwise: one filter per channel.
    static constexpr int64_t N = 2, C = 128, H = 56;
    CheckDef c = make("conv2d_depthwise", "2x128x56x56, depthwise 3x3, pad 1");
    c.inputs = [] { return Tensors{randn64({N, C, H, H}), he_weight({C, 1, 3, 3}, 9)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv2d(in[0], in[1], {}, 1, 1, 1, C); };
    conv_work(c, N, C, C, 9, H * H, H * H, C);
    out.push_back(c);
  }
  {
    // ResNeXt-style grouped convolution.
    static constexpr int64_t N = 2, C = 128, H = 28, G = 8;
    CheckDef c = make("conv2d_grouped", "2x128x28x28, 128 filters 3x3, 8 groups");
    c.inputs = [] { return Tensors{randn64({N, C, H, H}), he_weight({C, C / G, 3, 3}, C / G * 9)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv2d(in[0], in[1], {}, 1, 1, 1, G); };
    conv_work(c, N, C, C, 9, H * H, H * H, G);
    out.push_back(c);
  }
  {
    // Temporal convolution (audio, sequence models).
    static constexpr int64_t N = 4, C = 128, K = 128, L = 512;
    CheckDef c = make("conv1d", "4x128x512, 128 filters k=3, pad 1");
    c.inputs = [] { return Tensors{randn64({N, C, L}), he_weight({K, C, 3}, C * 3), randn64({K}) * 0.1}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv1d(in[0], in[1], in[2], 1, 1); };
    conv_work(c, N, C, K, 3, L, L);
    c.flops_formula = "2*N*Cout*Cin*k*L";
    out.push_back(c);
  }
  {
    // UNet/GAN up-sampling: 4x4 stride-2 transposed convolution, 28 -> 56.
    static constexpr int64_t N = 2, C = 64, K = 32, H = 28, Ho = 56;
    CheckDef c = make("conv_transpose2d", "2x64x28x28 -> 2x32x56x56, 4x4 stride 2, pad 1");
    c.inputs = [] { return Tensors{randn64({N, C, H, H}), he_weight({C, K, 4, 4}, C * 4)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv_transpose2d(in[0], in[1], {}, 2, 1); };
    c.flops = 2.0 * N * C * K * 16 * H * H;
    c.accumulation_length = C * 4;  // stride 2: each output sums Cin x 2x2 of the 4x4 taps
    c.flops_formula = "2*N*Cin*Cout*kh*kw*Hin*Win";
    c.bytes = [](double e) { return (N * C * H * H + C * K * 16.0 + N * K * Ho * Ho) * e; };
    c.bytes_formula = "(input + weight + output)*elem";
    out.push_back(c);
  }
  {
    // Video / volumetric models.
    static constexpr int64_t N = 2, C = 16, K = 16, D = 16;
    CheckDef c = make("conv3d", "2x16x16x16x16, 16 filters 3x3x3, pad 1");
    c.inputs = [] { return Tensors{randn64({N, C, D, D, D}), he_weight({K, C, 3, 3, 3}, C * 27)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::conv3d(in[0], in[1], {}, 1, 1); };
    c.flops = 2.0 * N * K * C * 27 * D * D * D;
    c.accumulation_length = C * 27;
    c.flops_formula = "2*N*Cout*Cin*27*D*H*W";
    c.bytes = [](double e) { return (N * C * D * D * D + K * C * 27.0 + N * K * D * D * D) * e; };
    c.bytes_formula = "(input + weight + output)*elem";
    out.push_back(c);
  }

  // ---- pooling
  static constexpr int64_t N = 4, C = 64, H = 56;
  static constexpr double in_elems = static_cast<double>(N) * C * H * H;
  {
    CheckDef c = make("max_pool2d", "4x64x56x56, 3x3 stride 2 pad 1");
    c.inputs = [] { return Tensors{randn64({N, C, H, H})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::max_pool2d(in[0], {3, 3}, {2, 2}, {1, 1}); };
    c.verify = Verify::exact;  // a maximum is one of the inputs
    pool_work(c, in_elems, in_elems / 4, 9, "9*N*C*Hout*Wout (comparisons)");
    out.push_back(c);
  }
  {
    CheckDef c = make("avg_pool2d", "4x64x56x56, 2x2 stride 2");
    c.inputs = [] { return Tensors{randn64({N, C, H, H})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::avg_pool2d(in[0], {2, 2}, {2, 2}); };
    pool_work(c, in_elems, in_elems / 4, 4, "4*N*C*Hout*Wout");
    out.push_back(c);
  }
  {
    CheckDef c = make("adaptive_avg_pool2d", "4x64x56x56 -> 7x7");
    c.inputs = [] { return Tensors{randn64({N, C, H, H})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::adaptive_avg_pool2d(in[0], {7, 7}); };
    pool_work(c, in_elems, N * C * 49.0, 64, "64*N*C*7*7 (8x8 windows)");
    out.push_back(c);
  }

  // ---- resampling (F.interpolate's kernels)
  static constexpr int64_t Hs = 28;
  static constexpr double small_elems = static_cast<double>(N) * C * Hs * Hs;
  {
    CheckDef c = make("upsample_nearest2d", "4x64x28x28 -> 56x56");
    c.inputs = [] { return Tensors{randn64({N, C, Hs, Hs})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> size{2 * Hs, 2 * Hs};
      return at::upsample_nearest2d(in[0], at::IntArrayRef(size));
    };
    c.verify = Verify::exact;  // copies of input values
    pool_work(c, small_elems, small_elems * 4, 0, "0 (copies)");
    out.push_back(c);
  }
  {
    CheckDef c = make("upsample_bilinear2d", "4x64x28x28 -> 56x56, align_corners=false");
    c.inputs = [] { return Tensors{randn64({N, C, Hs, Hs})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> size{2 * Hs, 2 * Hs};
      return at::upsample_bilinear2d(in[0], at::IntArrayRef(size), false);
    };
    pool_work(c, small_elems, small_elems * 4, 7, "7*N*C*Hout*Wout");
    out.push_back(c);
  }
  {
    CheckDef c = make("upsample_bicubic2d", "4x64x28x28 -> 56x56, align_corners=false");
    c.inputs = [] { return Tensors{randn64({N, C, Hs, Hs})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> size{2 * Hs, 2 * Hs};
      return at::upsample_bicubic2d(in[0], at::IntArrayRef(size), false);
    };
    pool_work(c, small_elems, small_elems * 4, 31, "31*N*C*Hout*Wout (16 taps)");
    out.push_back(c);
  }
}

}  // namespace accel::engine
