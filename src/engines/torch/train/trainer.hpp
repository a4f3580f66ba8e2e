// Training internals (engine-only): models from ATen ops with autograd, the
// MNIST-shaped data on the host, autocast, the gradient scaler, SGD, and one
// training step. See engine_api/train.hpp for what `accel-doctor train` measures.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engines/torch/torch_util.hpp"

namespace accel::engine::train {

// ---------------------------------------------------------------- precision

enum class Precision { fp32, fp16, bf16 };

/// "fp32", "fp16", "bf16" -> Precision; std::invalid_argument otherwise.
Precision precision_from_name(const std::string& name);
std::string precision_name(Precision p);
/// The autocast dtype (fp16/bf16); kFloat for fp32.
at::ScalarType autocast_dtype(Precision p);

/// Why `p` cannot train on `device` with this torch build, "" when it can.
/// fp16 needs the gradient scaler's kernels for the device type (CPU: torch
/// >= 2.3) and CPU fp16 autocast (torch >= 2.3); bf16 and fp32 always work.
std::string precision_unavailable(const c10::Device& device, Precision p);

/// Autocast for one device type while alive, as `torch.autocast` does it:
/// enables it with `dtype`, counts the nesting, and on exit restores the
/// previous state and clears the cast cache when the outermost scope ends.
/// torch >= 2.4: at::autocast::set_autocast_enabled(type, ...) and
/// set_autocast_dtype; older: set_enabled/set_autocast_gpu_dtype (CUDA and
/// HIP) and set_cpu_enabled/set_autocast_cpu_dtype (CPU). Throws
/// std::runtime_error for another device type on torch < 2.4.
class AutocastScope {
 public:
  AutocastScope(c10::DeviceType type, at::ScalarType dtype);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  c10::DeviceType type_;
  bool previous_enabled_ = false;
  at::ScalarType previous_dtype_ = at::kFloat;
};

// ---------------------------------------------------------------- out of memory

/// True for torch's out-of-memory errors: c10::OutOfMemoryError, or a
/// c10::Error whose message says "out of memory" (older CUDA/HIP builds) or
/// "can't allocate memory" (the CPU allocator).
bool is_out_of_memory(const std::exception& e);

/// Throws c10::OutOfMemoryError (the class a real device OOM throws) saying
/// that the limit was injected, with the bytes and how they were obtained.
[[noreturn]] void throw_injected_oom(double bytes, std::uint64_t limit, const std::string& basis);

// ---------------------------------------------------------------- models

/// A model whose parameters are fp32 leaf tensors on one device
/// (requires_grad), with buffers (BatchNorm running statistics).
class Model {
 public:
  virtual ~Model() = default;
  /// images float32 [B, 1, 28, 28] -> logits [B, 10] (fp32, or the
  /// autocast dtype under autocast).
  virtual at::Tensor forward(const at::Tensor& images) = 0;
  std::vector<at::Tensor>& parameters() { return params_; }
  std::int64_t parameter_count() const;
  /// Forward FLOPs of one sample (a multiply-add counts 2; convolutions and
  /// linear layers only).
  virtual double forward_flops_per_sample() const = 0;
  /// Activation elements kept for the backward pass per sample (estimate).
  virtual double activation_elements_per_sample() const = 0;
  virtual std::string description() const = 0;

 protected:
  std::vector<at::Tensor> params_;
  std::vector<at::Tensor> buffers_;
};

/// "mlp" or "cnn" with weights drawn as torch.nn initialises them
/// (kaiming-uniform bound 1/sqrt(fan_in)), from a CPU generator seeded with
/// `seed` so that every device and precision starts from the same weights.
/// std::invalid_argument for an unknown name.
std::unique_ptr<Model> make_model(const std::string& name, const c10::Device& device, std::uint64_t seed);

/// The model names make_model knows.
const std::vector<std::string>& model_names();

// ---------------------------------------------------------------- data

inline constexpr double kMnistMean = 0.1307;
inline constexpr double kMnistStd = 0.3081;

/// MNIST-shaped data on the host.
struct Dataset {
  at::Tensor images;  ///< float32 [N, 1, 28, 28], normalised
  at::Tensor labels;  ///< int64 [N], 0..9
  std::string description;
  bool synthetic = true;
  std::int64_t size() const { return images.size(0); }
};

/// `n` synthetic images, each one of 10 fixed oriented gratings at a random
/// contrast plus uniform noise, pixels in [0, 1] normalised like MNIST; the
/// label is derived from the image (the grating it correlates with best),
/// so the task is learnable and the loss falls. Deterministic for a seed.
Dataset synthetic_dataset(std::int64_t n, std::uint64_t seed);

/// The MNIST training set of `dir` (core/idx.hpp); throws
/// std::runtime_error (IdxError) for missing or invalid files or images
/// that are not 28x28.
Dataset mnist_dataset(const std::string& dir);

/// A batch on the host: samples [start, start + size) of the data, wrapping
/// around its end.
struct HostBatch {
  at::Tensor images;
  at::Tensor labels;
  std::int64_t size() const { return images.size(0); }
};
HostBatch host_batch(const Dataset& data, std::int64_t start, std::int64_t size, bool pin);

/// Bytes one batch of `size` samples moves to the device (images + labels).
double batch_bytes(std::int64_t size);

// ---------------------------------------------------------------- training

struct StepConfig {
  double lr = 0.02;
  double momentum = 0.9;
  /// > 0: throw the injected out-of-memory error above this many bytes.
  std::uint64_t inject_oom_above_bytes = 0;
};

/// torch.amp.GradScaler's algorithm on the ATen ops it uses:
/// at::_amp_foreach_non_finite_check_and_unscale_ and at::_amp_update_scale_.
class GradScaler {
 public:
  explicit GradScaler(const c10::Device& device, double init_scale = 65536.0, double growth_factor = 2.0,
                      double backoff_factor = 0.5, std::int64_t growth_interval = 2000);
  /// loss * scale (fp32).
  at::Tensor scale(const at::Tensor& loss) const;
  /// Unscales `grads` in place and says whether all are finite. Reads
  /// found_inf on the host (a device synchronisation), as GradScaler.step does.
  bool unscale(const std::vector<at::Tensor>& grads);
  /// Grows or backs off the scale (on the device, no synchronisation).
  void update();
  double current_scale() const;

 private:
  at::Tensor scale_, growth_tracker_, found_inf_;
  double growth_factor_, backoff_factor_;
  std::int64_t growth_interval_;
};

/// A model, its optimiser state and the precision policy on one device.
class Trainer {
 public:
  Trainer(std::unique_ptr<Model> model, Precision precision, const c10::Device& device,
          StepConfig config = {});
  /// One training step on a host batch (copied to the device, non-blocking
  /// from pinned memory). Returns the loss, detached, still on the device:
  /// nothing here reads a device value on the host except the fp16 scaler.
  at::Tensor step(const HostBatch& batch);
  Model& model() { return *model_; }
  Precision precision() const { return precision_; }
  /// Estimated device bytes of one step at `batch`: weights, gradients,
  /// momentum and autocast weight copies, plus the activations kept for the
  /// backward pass and the batch.
  double estimated_step_bytes(std::int64_t batch) const;
  int skipped_steps() const { return skipped_; }
  const GradScaler* scaler() const { return scaler_ ? &*scaler_ : nullptr; }

 private:
  std::unique_ptr<Model> model_;
  Precision precision_;
  c10::Device device_;
  StepConfig config_;
  std::vector<at::Tensor> momentum_;
  std::optional<GradScaler> scaler_;
  int skipped_ = 0;
};

/// Trains `steps` steps from the model's seeded initial weights on the
/// data in order (step t: samples [t*batch, (t+1)*batch)), and returns the
/// loss of each step (read on the host once, at the end).
std::vector<double> loss_curve(const std::string& model, Precision precision, const c10::Device& device,
                               const Dataset& data, std::int64_t batch, int steps, std::uint64_t seed,
                               const StepConfig& config = {});

}  // namespace accel::engine::train
