// Normalisation layers: a reduction for the statistics, then an elementwise
// pass. Transformer shapes (1024 tokens x 1024 hidden) for the row norms,
// CNN shapes (8x64x28x28) for the channel norms.
#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "norm";
  c.dtypes = float_dtypes();
  c.shape = std::move(shape);
  return c;
}

/// Statistics pass + normalise pass: about `per_elem` FLOPs per element,
/// input read twice (statistics, then normalisation) and output written once.
void norm_work(CheckDef& c, double elems, double params, double per_elem) {
  c.flops = per_elem * elems;
  c.flops_formula = std::to_string(static_cast<int>(per_elem)) + "*N";
  c.bytes = [=](double e) { return (3.0 * elems + params) * e; };
  c.bytes_formula = "(3*N + params)*elem (two reads, one write)";
}

// Transformer rows.
constexpr int64_t kTokens = 1024, kHidden = 1024;
constexpr double kRowElems = static_cast<double>(kTokens) * kHidden;
const std::string kRowShape = "1024x1024";
// CNN feature maps.
constexpr int64_t kN = 8, kC = 64, kH = 28;
constexpr double kMapElems = static_cast<double>(kN) * kC * kH * kH;
const std::string kMapShape = "8x64x28x28";
constexpr double kEps = 1e-5;

}  // namespace

void add_norm_checks(std::vector<CheckDef>& out) {
  // ---- channel norms (CNN)
  {
    // Training mode: batch statistics; the running statistics are updated
    // in place but do not enter the output.
    CheckDef c = make("batch_norm_train", kMapShape);
    c.inputs = [] {
      return Tensors{randn64({kN, kC, kH, kH}) * 2 + 0.5, uniform64({kC}, 0.5, 1.5), randn64({kC}) * 0.1,
                     at::zeros({kC}, at::kDouble), at::ones({kC}, at::kDouble)};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::batch_norm(in[0], in[1], in[2], in[3], in[4], /*training=*/true, 0.1, kEps,
                            /*cudnn_enabled=*/true);
    };
    norm_work(c, kMapElems, 4 * kC, 8);
    out.push_back(c);
  }
  {
    // Inference: the running statistics normalise (a fused scale and shift).
    CheckDef c = make("batch_norm_eval", kMapShape);
    c.inputs = [] {
      return Tensors{randn64({kN, kC, kH, kH}), uniform64({kC}, 0.5, 1.5), randn64({kC}) * 0.1,
                     randn64({kC}) * 0.1, uniform64({kC}, 0.5, 2.0)};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::batch_norm(in[0], in[1], in[2], in[3], in[4], /*training=*/false, 0.1, kEps,
                            /*cudnn_enabled=*/true);
    };
    c.flops = 2 * kMapElems;
    c.flops_formula = "2*N (scale and shift)";
    c.bytes = [](double e) { return (2.0 * kMapElems + 4 * kC) * e; };
    c.bytes_formula = "(2*N + 4*C)*elem";
    out.push_back(c);
  }
  {
    CheckDef c = make("group_norm", kMapShape + ", 8 groups");
    c.inputs = [] {
      return Tensors{randn64({kN, kC, kH, kH}), uniform64({kC}, 0.5, 1.5), randn64({kC}) * 0.1};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::group_norm(in[0], 8, in[1], in[2], kEps); };
    norm_work(c, kMapElems, 2 * kC, 8);
    out.push_back(c);
  }
  {
    CheckDef c = make("instance_norm", kMapShape);
    c.inputs = [] {
      return Tensors{randn64({kN, kC, kH, kH}), uniform64({kC}, 0.5, 1.5), randn64({kC}) * 0.1};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::instance_norm(in[0], in[1], in[2], {}, {}, /*use_input_stats=*/true, 0.1, kEps,
                               /*cudnn_enabled=*/true);
    };
    norm_work(c, kMapElems, 2 * kC, 8);
    out.push_back(c);
  }
  {
    // AlexNet/GoogLeNet LRN, written as torch.nn.functional.local_response_norm
    // does it: average of squares over `size` neighbouring channels.
    static constexpr int64_t size = 5;
    CheckDef c = make("local_response_norm", kMapShape + ", size 5");
    c.inputs = [] { return Tensors{randn64({kN, kC, kH, kH})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const at::Tensor& x = in[0];
      at::Tensor div = x.mul(x).unsqueeze(1);
      div = at::constant_pad_nd(div, {0, 0, 0, 0, size / 2, (size - 1) / 2});
      div = at::avg_pool3d(div, {size, 1, 1}, {1, 1, 1}).squeeze(1);
      div = div.mul(1e-4).add(1.0).pow(0.75);
      return x / div;
    };
    norm_work(c, kMapElems, 0, 10);
    c.flops_formula = "10*N (square, 5-tap average, pow, divide)";
    out.push_back(c);
  }

  // ---- row norms (transformers)
  {
    CheckDef c = make("layer_norm", kRowShape);
    c.inputs = [] {
      return Tensors{randn64({kTokens, kHidden}), uniform64({kHidden}, 0.5, 1.5), randn64({kHidden}) * 0.1};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> shape{kHidden};
      return at::layer_norm(in[0], shape, in[1], in[2], kEps);
    };
    norm_work(c, kRowElems, 2 * kHidden, 8);
    out.push_back(c);
  }
  {
    // RMSNorm as Llama implementations write it: statistics in fp32 whatever
    // the model dtype, then back to the dtype before the weight.
    CheckDef c = make("rms_norm_llama", kRowShape);
    c.inputs = [] { return Tensors{randn64({kTokens, kHidden}), uniform64({kHidden}, 0.5, 1.5)}; };
    c.op = [](const Tensors& in, const OpEnv& env) {
      const at::ScalarType acc = env.dtype == at::kDouble ? at::kDouble : at::kFloat;
      const at::Tensor h = in[0].to(acc);
      const at::Tensor var = h.pow(2).mean({-1}, /*keepdim=*/true);
      return in[1] * (h * at::rsqrt(var + 1e-6)).to(in[0].scalar_type());
    };
    norm_work(c, kRowElems, kHidden, 5);
    out.push_back(c);
  }
  {
    // RMSNorm entirely in the model dtype (no upcast): x * rsqrt(mean(x^2) + eps) * w.
    CheckDef c = make("rms_norm_naive", kRowShape);
    c.inputs = [] { return Tensors{randn64({kTokens, kHidden}), uniform64({kHidden}, 0.5, 1.5)}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const at::Tensor& x = in[0];
      return x * at::rsqrt(x.pow(2).mean({-1}, /*keepdim=*/true) + 1e-6) * in[1];
    };
    norm_work(c, kRowElems, kHidden, 5);
    out.push_back(c);
  }
  {
    // The fused kernel (torch >= 2.4).
    CheckDef c = make("rms_norm", kRowShape);
    c.inputs = [] { return Tensors{randn64({kTokens, kHidden}), uniform64({kHidden}, 0.5, 1.5)}; };
#if ACCEL_TORCH_AT_LEAST(2, 4)
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> shape{kHidden};
      return at::rms_norm(in[0], shape, in[1], 1e-6);
    };
#else
    c.op = [](const Tensors& in, const OpEnv&) { return in[0]; };
    c.available = [] { return std::string("at::rms_norm needs torch >= 2.4"); };
#endif
    norm_work(c, kRowElems, kHidden, 5);
    out.push_back(c);
  }
  {
    // torch.nn.functional.normalize: x / max(||x||_2, eps) along the last dim.
    CheckDef c = make("normalize_l2", kRowShape);
    c.inputs = [] { return Tensors{randn64({kTokens, kHidden})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      const std::vector<int64_t> dim{-1};
      return in[0] / in[0].norm(2, dim, /*keepdim=*/true).clamp_min(1e-12);
    };
    norm_work(c, kRowElems, 0, 3);
    out.push_back(c);
  }
}

}  // namespace accel::engine
