// The training models (MLP, residual CNN) from ATen ops, and the data.
#include <ATen/CPUGeneratorImpl.h>

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/idx.hpp"
#include "engines/torch/train/trainer.hpp"

namespace accel::engine::train {

namespace {

constexpr int64_t kPixels = 28 * 28;
constexpr int64_t kClasses = 10;
constexpr double kPi = 3.14159265358979323846;

/// Uniform(-bound, bound) on the CPU from `gen`, then on `device` as a
/// leaf that requires grad.
at::Tensor param(at::IntArrayRef shape, double bound, at::Generator& gen, const c10::Device& device) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  t.uniform_(-bound, bound, gen);
  return t.to(device).detach().requires_grad_(true);
}

at::Tensor filled(at::IntArrayRef shape, double value, const c10::Device& device, bool grad) {
  at::Tensor t = at::full(shape, value, at::TensorOptions().dtype(at::kFloat).device(device));
  return grad ? t.requires_grad_(true) : t;
}

std::string millions(double n) {
  return n >= 1e6 ? fmt::format("{:.2f}M", n / 1e6) : fmt::format("{:.0f}k", n / 1e3);
}

// ---------------------------------------------------------------- MLP

class Mlp final : public Model {
 public:
  Mlp(const c10::Device& device, uint64_t seed) {
    at::Generator gen = at::detail::createCPUGenerator(seed);
    int64_t in = kPixels;
    for (int64_t out : kWidths) {
      const double bound = 1.0 / std::sqrt(static_cast<double>(in));
      params_.push_back(param({out, in}, bound, gen, device));
      params_.push_back(param({out}, bound, gen, device));
      flops_ += 2.0 * static_cast<double>(in * out);
      activations_ += 2.0 * static_cast<double>(out);  // the linear output and its ReLU
      in = out;
    }
  }

  at::Tensor forward(const at::Tensor& images) override {
    at::Tensor x = images.reshape({images.size(0), kPixels});
    const std::size_t layers = params_.size() / 2;
    for (std::size_t l = 0; l < layers; ++l) {
      x = at::linear(x, params_[2 * l], params_[2 * l + 1]);
      if (l + 1 < layers) x = at::relu(x);
    }
    return x;
  }

  double forward_flops_per_sample() const override { return flops_; }
  double activation_elements_per_sample() const override { return activations_ + kPixels; }
  std::string description() const override {
    return fmt::format("MLP 784-1024-1024-10, ReLU, {} parameters",
                       millions(static_cast<double>(parameter_count())));
  }

 private:
  static constexpr int64_t kWidths[] = {1024, 1024, kClasses};
  double flops_ = 0, activations_ = 0;
};

// ---------------------------------------------------------------- residual CNN

class ResCnn final : public Model {
 public:
  ResCnn(const c10::Device& device, uint64_t seed) : device_(device) {
    at::Generator gen = at::detail::createCPUGenerator(seed);
    int64_t hw = 28;
    // stem, then per stage: [downsample], residual block (two conv-BN).
    add_conv(1, kChannels[0], 1, hw, gen);
    for (std::size_t s = 0; s < 3; ++s) {
      const int64_t c = kChannels[s];
      if (s > 0) {
        hw = (hw + 1) / 2;
        add_conv(kChannels[s - 1], c, 2, hw, gen);
      }
      add_conv(c, c, 1, hw, gen);
      add_conv(c, c, 1, hw, gen);
      activations_ += static_cast<double>(c * hw * hw);  // the residual sum
    }
    const int64_t c = kChannels[2];
    const double bound = 1.0 / std::sqrt(static_cast<double>(c));
    fc_w_ = param({kClasses, c}, bound, gen, device);
    fc_b_ = param({kClasses}, bound, gen, device);
    params_.push_back(fc_w_);
    params_.push_back(fc_b_);
    flops_ += 2.0 * static_cast<double>(c * kClasses);
  }

  at::Tensor forward(const at::Tensor& images) override {
    std::size_t i = 0;
    at::Tensor x = conv_bn(images, convs_[i++], true);
    for (std::size_t s = 0; s < 3; ++s) {
      if (s > 0) x = conv_bn(x, convs_[i++], true);
      at::Tensor y = conv_bn(x, convs_[i++], true);
      y = conv_bn(y, convs_[i++], false);
      x = at::relu(y + x);
    }
    return at::linear(x.mean({2, 3}), fc_w_, fc_b_);
  }

  double forward_flops_per_sample() const override { return flops_; }
  double activation_elements_per_sample() const override { return activations_ + kPixels; }
  std::string description() const override {
    return fmt::format(
        "residual CNN: conv-BN-ReLU stem, 3 residual blocks (16, 32, 64 channels, stride-2 downsampling), "
        "{} conv layers, {} parameters",
        convs_.size(), millions(static_cast<double>(parameter_count())));
  }

 private:
  struct ConvBn {
    at::Tensor weight, gamma, beta, running_mean, running_var;
    int64_t stride = 1;
  };

  void add_conv(int64_t in, int64_t out, int64_t stride, int64_t out_hw, at::Generator& gen) {
    ConvBn l;
    const double bound = 1.0 / std::sqrt(static_cast<double>(in * 9));
    l.weight = param({out, in, 3, 3}, bound, gen, device_);
    l.gamma = filled({out}, 1.0, device_, true);
    l.beta = filled({out}, 0.0, device_, true);
    l.running_mean = filled({out}, 0.0, device_, false);
    l.running_var = filled({out}, 1.0, device_, false);
    l.stride = stride;
    params_.insert(params_.end(), {l.weight, l.gamma, l.beta});
    buffers_.insert(buffers_.end(), {l.running_mean, l.running_var});
    const double outputs = static_cast<double>(out * out_hw * out_hw);
    flops_ += 2.0 * static_cast<double>(in * 9) * outputs;
    activations_ += 3.0 * outputs;  // conv output, BN output, ReLU output
    convs_.push_back(std::move(l));
  }

  static at::Tensor conv_bn(const at::Tensor& x, const ConvBn& l, bool relu) {
    at::Tensor y = at::conv2d(x, l.weight, {}, {l.stride, l.stride}, {1, 1});
    y = at::batch_norm(y, l.gamma, l.beta, l.running_mean, l.running_var, /*training=*/true, /*momentum=*/0.1,
                       /*eps=*/1e-5, /*cudnn_enabled=*/true);
    return relu ? at::relu(y) : y;
  }

  static constexpr int64_t kChannels[] = {16, 32, 64};
  c10::Device device_;
  std::vector<ConvBn> convs_;
  at::Tensor fc_w_, fc_b_;
  double flops_ = 0, activations_ = 0;
};

}  // namespace

int64_t Model::parameter_count() const {
  int64_t n = 0;
  for (const auto& p : params_) n += p.numel();
  return n;
}

const std::vector<std::string>& model_names() {
  static const std::vector<std::string> kNames{"mlp", "cnn"};
  return kNames;
}

std::unique_ptr<Model> make_model(const std::string& name, const c10::Device& device, uint64_t seed) {
  if (name == "mlp") return std::make_unique<Mlp>(device, seed);
  if (name == "cnn") return std::make_unique<ResCnn>(device, seed);
  throw std::invalid_argument(fmt::format("unknown model '{}': choose mlp or cnn", name));
}

// ---------------------------------------------------------------- data

Dataset synthetic_dataset(int64_t n, uint64_t seed) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const auto f32 = at::TensorOptions().dtype(at::kFloat);
  Dataset d;
  c10::NoGradGuard no_grad;
  // Ten fixed patterns: gratings of 3 cycles per image at orientations k*18°.
  const at::Tensor coord = at::arange(28, f32);
  const at::Tensor rows = coord.reshape({28, 1}), cols = coord.reshape({1, 28});
  std::vector<at::Tensor> patterns;
  for (int64_t c = 0; c < kClasses; ++c) {
    const double theta = kPi * static_cast<double>(c) / static_cast<double>(kClasses);
    patterns.push_back(at::sin((rows * std::cos(theta) + cols * std::sin(theta)) * (2.0 * kPi * 3.0 / 28.0))
                           .reshape({kPixels}));
  }
  const at::Tensor templates = at::stack(patterns);  // [10, 784]
  // Each image: one pattern at a random contrast, plus uniform noise.
  const at::Tensor which = at::randint(kClasses, {n}, gen, at::TensorOptions().dtype(at::kLong));
  const at::Tensor contrast = at::empty({n, 1}, f32).uniform_(0.1, 0.4, gen);
  const at::Tensor noise = at::empty({n, kPixels}, f32).uniform_(-0.4, 0.4, gen);
  const at::Tensor pixels = (0.5 + contrast * templates.index_select(0, which) + noise).clamp(0.0, 1.0);
  // The label is derived from the image: the pattern it matches best.
  d.labels = at::matmul(pixels - 0.5, templates.t()).argmax(1).to(at::kLong).contiguous();
  d.images = ((pixels - kMnistMean) / kMnistStd).reshape({n, 1, 28, 28}).contiguous();
  d.synthetic = true;
  d.description = fmt::format(
      "synthetic: {} seeded 1x28x28 images, each one of 10 fixed oriented gratings at a random contrast plus "
      "uniform noise; the label is the grating the image matches best",
      n);
  return d;
}

Dataset mnist_dataset(const std::string& dir) {
  MnistSet s = load_mnist(dir, "train");
  if (s.rows != 28 || s.cols != 28) {
    throw IdxError(fmt::format("{}: images are {}x{}, the models take 28x28", s.images_path, s.rows, s.cols));
  }
  Dataset d;
  const at::Tensor raw =
      at::from_blob(s.images.data(), {s.count, 1, 28, 28}, at::TensorOptions().dtype(at::kByte));
  d.images = ((raw.to(at::kFloat) / 255.0 - kMnistMean) / kMnistStd).contiguous();
  d.labels = at::from_blob(s.labels.data(), {s.count}, at::TensorOptions().dtype(at::kByte)).to(at::kLong);
  d.synthetic = false;
  d.description = fmt::format("MNIST training set: {} images of 1x28x28 from {}", s.count, dir);
  return d;
}

HostBatch host_batch(const Dataset& data, int64_t start, int64_t size, bool pin) {
  const int64_t n = data.size();
  HostBatch b;
  start %= n;
  if (start + size <= n) {
    b.images = data.images.narrow(0, start, size).contiguous();
    b.labels = data.labels.narrow(0, start, size).contiguous();
  } else {
    const at::Tensor idx =
        at::remainder(at::arange(start, start + size, at::TensorOptions().dtype(at::kLong)), n);
    b.images = data.images.index_select(0, idx);
    b.labels = data.labels.index_select(0, idx);
  }
  if (pin) {
    b.images = b.images.pin_memory();
    b.labels = b.labels.pin_memory();
  }
  return b;
}

double batch_bytes(int64_t size) {
  return static_cast<double>(size) * (kPixels * sizeof(float) + sizeof(int64_t));
}

}  // namespace accel::engine::train
