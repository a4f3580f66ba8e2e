// Losses and backward passes. The runner holds a NoGradGuard; rows that need
// autograd enable it inside the op and make fresh leaves from their inputs
// (detach().requires_grad_()), so every call builds and frees its own graph.
// Backward rows return a gradient, compared with the float64 reference
// gradient (the same graph run on the CPU in float64).
#include <c10/core/GradMode.h>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "loss_autograd";
  c.dtypes = float_dtypes();
  c.shape = std::move(shape);
  return c;
}

at::Tensor leaf(const at::Tensor& t) { return t.detach().requires_grad_(true); }

constexpr int64_t kMean = at::Reduction::Mean;

// Pointwise regression losses over 1M elements.
constexpr int64_t kR = 1024, kC = 1024;
constexpr double kN = static_cast<double>(kR) * kC;
const std::string kShape = "1024x1024, mean";

CheckDef pointwise_loss(std::string name, std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> fn,
                        double flops_per_elem) {
  CheckDef c = make(std::move(name), kShape);
  c.inputs = [] { return Tensors{randn64({kR, kC}), randn64({kR, kC})}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0], in[1]); };
  c.flops = flops_per_elem * kN;
  c.flops_formula = std::to_string(static_cast<int>(flops_per_elem)) + "*N";
  c.bytes = [](double e) { return (2.0 * kN + 1) * e; };
  c.bytes_formula = "(2*N + 1)*elem";
  return c;
}

// Classification: 2048 samples over 1000 classes (ImageNet-like heads).
constexpr int64_t kS = 2048, kK = 1000;
constexpr double kLogits = static_cast<double>(kS) * kK;
}  // namespace

void add_loss_autograd_checks(std::vector<CheckDef>& out) {
  // ---- losses (forward)
  out.push_back(pointwise_loss(
      "mse_loss", [](const at::Tensor& a, const at::Tensor& b) { return at::mse_loss(a, b, kMean); }, 3));
  out.push_back(pointwise_loss(
      "l1_loss", [](const at::Tensor& a, const at::Tensor& b) { return at::l1_loss(a, b, kMean); }, 3));
  out.push_back(pointwise_loss(
      "smooth_l1_loss",
      [](const at::Tensor& a, const at::Tensor& b) { return at::smooth_l1_loss(a, b, kMean, 1.0); }, 5));
  out.push_back(pointwise_loss(
      "huber_loss", [](const at::Tensor& a, const at::Tensor& b) { return at::huber_loss(a, b, kMean, 0.5); },
      5));
  {
    // Binary targets in {0, 1}, logits N(0, 1).
    CheckDef c = pointwise_loss(
        "bce_with_logits",
        [](const at::Tensor& x, const at::Tensor& y) {
          return at::binary_cross_entropy_with_logits(x, y, {}, {}, kMean);
        },
        6);
    c.inputs = [] { return Tensors{randn64({kR, kC}), (uniform64({kR, kC}, 0, 1) > 0.5).to(at::kDouble)}; };
    out.push_back(c);
  }
  {
    // KL(target || input) with log-probabilities on both sides.
    CheckDef c = pointwise_loss(
        "kl_div",
        [](const at::Tensor& x, const at::Tensor& y) { return at::kl_div(x, y, kMean, /*log_target=*/true); },
        4);
    c.inputs = [] {
      return Tensors{at::log_softmax(randn64({kR, kC}), -1), at::log_softmax(randn64({kR, kC}), -1)};
    };
    out.push_back(c);
  }
  {
    CheckDef c = make("cross_entropy_ls", "2048x1000 logits, label smoothing 0.1");
    c.inputs = [] { return Tensors{randn64({kS, kK}) * 2, randint64({kS}, kK)}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::cross_entropy_loss(in[0], in[1], {}, kMean, -100, /*label_smoothing=*/0.1);
    };
    c.flops = 7 * kLogits;
    c.flops_formula = "7*S*K (log_softmax + smoothing + gather)";
    c.bytes = [](double e) { return kLogits * e + kS * 8.0; };
    c.bytes_formula = "S*K*elem + S*8";
    out.push_back(c);
  }
  {
    CheckDef c = make("nll_loss", "2048x1000 log-probabilities");
    c.inputs = [] { return Tensors{at::log_softmax(randn64({kS, kK}) * 2, -1), randint64({kS}, kK)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::nll_loss(in[0], in[1], {}, kMean, -100); };
    c.flops = kS;
    c.flops_formula = "S (gather + mean)";
    c.bytes = [](double e) { return kS * (e + 8.0); };
    c.bytes_formula = "S*(elem + 8) (one element per row is read)";
    out.push_back(c);
  }
  {
    // Pairs of 256-d embeddings labelled similar (1) or dissimilar (-1).
    static constexpr int64_t P = 8192, D = 256;
    CheckDef c = make("cosine_embedding_loss", "8192 pairs of 256-d, margin 0.2");
    c.inputs = [] {
      return Tensors{randn64({P, D}), randn64({P, D}),
                     at::where(uniform64({P}, 0, 1) > 0.5, 1.0, -1.0).to(at::kDouble)};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::cosine_embedding_loss(in[0], in[1], in[2], 0.2, kMean);
    };
    c.flops = 6.0 * P * D;
    c.flops_formula = "6*P*D (three dot products)";
    c.bytes = [](double e) { return (2.0 * P * D + P) * e; };
    c.bytes_formula = "(2*P*D + P)*elem";
    out.push_back(c);
  }

  // ---- backward passes (forward + backward in one call)
  {
    // y = x W^T + b; the gradient of W for an upstream gradient G is G^T x.
    static constexpr int64_t M = 128, K = 256, N = 256;
    CheckDef c = make("linear_backward", "x 128x256, W 256x256 -> dL/dW");
    c.inputs = [] { return Tensors{randn64({M, K}), randn64({N, K}) * 0.06, randn64({N}), randn64({M, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor w = leaf(in[1]);
      const at::Tensor x = leaf(in[0]);
      at::linear(x, w, in[2]).backward(in[3]);
      return w.grad();
    };
    c.flops = 3 * 2.0 * M * N * K;
    c.flops_formula = "3*2*M*N*K (forward, dX, dW)";
    c.bytes = [](double e) { return (2.0 * M * K + 2.0 * N * K + 2.0 * M * N) * e; };
    c.bytes_formula = "(2*M*K + 2*N*K + 2*M*N)*elem";
    out.push_back(c);
  }
  {
    static constexpr int64_t M = 128, K = 256, N = 128;
    CheckDef c = make("matmul_backward", "A 128x256 @ B 256x128 -> [dL/dA, dL/dB^T]");
    c.inputs = [] { return Tensors{randn64({M, K}), randn64({K, N}), randn64({M, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor a = leaf(in[0]);
      const at::Tensor b = leaf(in[1]);
      at::matmul(a, b).backward(in[2]);
      return at::cat({a.grad(), b.grad().t()}, 0);
    };
    c.flops = 3 * 2.0 * M * N * K;
    c.flops_formula = "3*2*M*N*K (forward, dA, dB)";
    c.bytes = [](double e) { return (2.0 * M * K + 2.0 * K * N + 2.0 * M * N) * e; };
    c.bytes_formula = "(2*M*K + 2*K*N + 2*M*N)*elem";
    out.push_back(c);
  }
  {
    // A 2-layer GELU MLP (transformer FFN, 128 -> 512 -> 128) on 64 tokens,
    // forward + backward, returns dL/dW1.
    static constexpr int64_t T = 64, H = 128, F = 512;
    CheckDef c = make("mlp_train_step", "64 tokens, 128 -> 512 -> 128, GELU -> dL/dW1");
    c.inputs = [] {
      return Tensors{randn64({T, H}),        randn64({F, H}) * 0.09, randn64({F}) * 0.1,
                     randn64({H, F}) * 0.04, randn64({H}) * 0.1,     randn64({T, H})};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor w1 = leaf(in[1]), b1 = leaf(in[2]), w2 = leaf(in[3]), b2 = leaf(in[4]);
      const at::Tensor y = at::linear(at::gelu(at::linear(in[0], w1, b1)), w2, b2);
      at::mse_loss(y, in[5], kMean).backward();
      return w1.grad();
    };
    c.flops = 3 * 2.0 * 2 * T * H * F;
    c.flops_formula = "3*2*2*T*H*F (two GEMMs, forward + two backward)";
    c.bytes = [](double e) { return (4.0 * H * F + 6.0 * T * F + 4.0 * T * H) * e; };
    c.bytes_formula = "(4*H*F + 6*T*F + 4*T*H)*elem (weights, grads, activations)";
    out.push_back(c);
  }
  {
    static constexpr int64_t N = 2, C = 32, K = 32, H = 28;
    CheckDef c = make("conv2d_backward", "2x32x28x28, 32 filters 3x3 -> [dL/dW]");
    c.inputs = [] {
      return Tensors{randn64({N, C, H, H}), randn64({K, C, 3, 3}) * 0.08, randn64({N, K, H, H})};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor x = leaf(in[0]);
      const at::Tensor w = leaf(in[1]);
      at::conv2d(x, w, {}, 1, 1).backward(in[2]);
      return w.grad();
    };
    c.flops = 3 * 2.0 * N * K * C * 9 * H * H;
    c.flops_formula = "3*2*N*K*C*9*H*W (forward, dX, dW)";
    c.bytes = [](double e) { return (2.0 * N * C * H * H + 2.0 * K * C * 9 + 2.0 * N * K * H * H) * e; };
    c.bytes_formula = "(2*input + 2*weight + 2*output)*elem";
    out.push_back(c);
  }
  {
    static constexpr int64_t T = 1024, H = 1024;
    CheckDef c = make("layer_norm_backward", "1024x1024 -> dL/dx");
    c.inputs = [] {
      return Tensors{randn64({T, H}), uniform64({H}, 0.5, 1.5), randn64({H}) * 0.1, randn64({T, H})};
    };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor x = leaf(in[0]);
      const at::Tensor w = leaf(in[1]);
      const std::vector<int64_t> shape{H};
      at::layer_norm(x, shape, w, in[2], 1e-5).backward(in[3]);
      return x.grad();
    };
    c.flops = 20.0 * T * H;
    c.flops_formula = "20*T*H (forward 8, backward 12)";
    c.bytes = [](double e) { return 5.0 * T * H * e; };
    c.bytes_formula = "5*T*H*elem";
    out.push_back(c);
  }
  {
    // The LM-head gradient: softmax + cross-entropy backward over logits.
    CheckDef c = make("cross_entropy_backward", "2048x1000 logits -> dL/dlogits");
    c.inputs = [] { return Tensors{randn64({kS, kK}) * 2, randint64({kS}, kK)}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      c10::AutoGradMode enable_grad(true);
      const at::Tensor x = leaf(in[0]);
      at::cross_entropy_loss(x, in[1], {}, kMean, -100, 0.0).backward();
      return x.grad();
    };
    c.flops = 10 * kLogits;
    c.flops_formula = "10*S*K (forward 5, backward 5)";
    c.bytes = [](double e) { return 3.0 * kLogits * e + kS * 8.0; };
    c.bytes_formula = "3*S*K*elem + S*8";
    out.push_back(c);
  }
}

}  // namespace accel::engine
