// Autocast, the gradient scaler, SGD and one training step.
#include <ATen/autocast_mode.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <stdexcept>

#include <fmt/format.h>

#include "engines/torch/backend/backend.hpp"
#include "engines/torch/train/trainer.hpp"

namespace accel::engine::train {

// ---------------------------------------------------------------- precision

Precision precision_from_name(const std::string& name) {
  if (name == "fp32") return Precision::fp32;
  if (name == "fp16") return Precision::fp16;
  if (name == "bf16") return Precision::bf16;
  throw std::invalid_argument(fmt::format("unknown precision '{}': choose fp32, fp16 or bf16", name));
}

std::string precision_name(Precision p) {
  switch (p) {
    case Precision::fp16:
      return "fp16";
    case Precision::bf16:
      return "bf16";
    default:
      return "fp32";
  }
}

at::ScalarType autocast_dtype(Precision p) {
  switch (p) {
    case Precision::fp16:
      return at::kHalf;
    case Precision::bf16:
      return at::kBFloat16;
    default:
      return at::kFloat;
  }
}

namespace {
bool has_kernel(const char* op, c10::DispatchKey key) {
  const auto handle = c10::Dispatcher::singleton().findSchema({op, ""});
  return handle && handle->hasKernelForDispatchKey(key);
}
}  // namespace

std::string precision_unavailable(const c10::Device& device, Precision p) {
  if (p != Precision::fp16) return "";
  if (device.is_cpu()) {
#if !ACCEL_TORCH_AT_LEAST(2, 3)
    return fmt::format(
        "fp16 training on the CPU needs torch >= 2.3 (fp16 CPU autocast and the CPU kernels of the gradient "
        "scaler); this is torch {}.{}, whose CPU autocast supports bf16 only",
        TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR);
#endif
  }
  const c10::DispatchKey key = device.is_cpu() ? c10::DispatchKey::CPU : c10::DispatchKey::CUDA;
  if (!device.is_cpu() && !device.is_cuda()) {
    return fmt::format("the gradient scaler has no kernels for {} devices here", device.str());
  }
  for (const char* op : {"aten::_amp_foreach_non_finite_check_and_unscale_", "aten::_amp_update_scale_"}) {
    if (!has_kernel(op, key)) {
      return fmt::format("this torch build has no {} kernel for {}, which fp16 gradient scaling needs",
                         c10::toString(key), op);
    }
  }
  return "";
}

// ---------------------------------------------------------------- autocast

AutocastScope::AutocastScope(c10::DeviceType type, at::ScalarType dtype) : type_(type) {
#if ACCEL_TORCH_AT_LEAST(2, 4)
  previous_enabled_ = at::autocast::is_autocast_enabled(type);
  previous_dtype_ = at::autocast::get_autocast_dtype(type);
  at::autocast::set_autocast_dtype(type, dtype);
  at::autocast::set_autocast_enabled(type, true);
#else
  if (type == c10::DeviceType::CPU) {
    previous_enabled_ = at::autocast::is_cpu_enabled();
    previous_dtype_ = at::autocast::get_autocast_cpu_dtype();
    at::autocast::set_autocast_cpu_dtype(dtype);
    at::autocast::set_cpu_enabled(true);
  } else if (type == c10::DeviceType::CUDA) {
    previous_enabled_ = at::autocast::is_enabled();
    previous_dtype_ = at::autocast::get_autocast_gpu_dtype();
    at::autocast::set_autocast_gpu_dtype(dtype);
    at::autocast::set_enabled(true);
  } else {
    throw std::runtime_error(
        fmt::format("autocast on {} devices needs torch >= 2.4 here", c10::DeviceTypeName(type)));
  }
#endif
  at::autocast::increment_nesting();
}

AutocastScope::~AutocastScope() {
#if ACCEL_TORCH_AT_LEAST(2, 4)
  at::autocast::set_autocast_enabled(type_, previous_enabled_);
  at::autocast::set_autocast_dtype(type_, previous_dtype_);
#else
  if (type_ == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(previous_enabled_);
    at::autocast::set_autocast_cpu_dtype(previous_dtype_);
  } else {
    at::autocast::set_enabled(previous_enabled_);
    at::autocast::set_autocast_gpu_dtype(previous_dtype_);
  }
#endif
  // The cache holds low-precision copies of the weights: stale after the
  // optimiser step, so it goes when the outermost scope ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
}

// ---------------------------------------------------------------- out of memory

bool is_out_of_memory(const std::exception& e) {
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return true;
  const std::string what = e.what();
  return what.find("out of memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

void throw_injected_oom(double bytes, std::uint64_t limit, const std::string& basis) {
  TORCH_CHECK_WITH(OutOfMemoryError, false, "out of memory (injected by accel-doctor: this step needs ",
                   basis, " ", static_cast<std::uint64_t>(bytes), " bytes, above the injected limit of ",
                   limit, " bytes)");
  throw std::logic_error("unreachable");
}

// ---------------------------------------------------------------- gradient scaler

GradScaler::GradScaler(const c10::Device& device, double init_scale, double growth_factor,
                       double backoff_factor, std::int64_t growth_interval)
    : growth_factor_(growth_factor), backoff_factor_(backoff_factor), growth_interval_(growth_interval) {
  const auto opts = at::TensorOptions().device(device);
  scale_ = at::full({}, init_scale, opts.dtype(at::kFloat));
  growth_tracker_ = at::zeros({}, opts.dtype(at::kInt));
  found_inf_ = at::zeros({}, opts.dtype(at::kFloat));
}

at::Tensor GradScaler::scale(const at::Tensor& loss) const { return loss * scale_; }

bool GradScaler::unscale(const std::vector<at::Tensor>& grads) {
  c10::NoGradGuard no_grad;
  found_inf_.zero_();
  // As torch.amp.GradScaler.unscale_: the reciprocal in double, then fp32.
  const at::Tensor inv_scale = scale_.to(at::kDouble).reciprocal().to(at::kFloat);
  at::_amp_foreach_non_finite_check_and_unscale_(grads, found_inf_, inv_scale);
  return found_inf_.item<float>() == 0.0f;
}

void GradScaler::update() {
  c10::NoGradGuard no_grad;
  at::_amp_update_scale_(scale_, growth_tracker_, found_inf_, growth_factor_, backoff_factor_,
                         growth_interval_);
}

double GradScaler::current_scale() const { return scale_.item<double>(); }

// ---------------------------------------------------------------- trainer

Trainer::Trainer(std::unique_ptr<Model> model, Precision precision, const c10::Device& device,
                 StepConfig config)
    : model_(std::move(model)), precision_(precision), device_(device), config_(config) {
  if (const std::string why = precision_unavailable(device, precision); !why.empty()) {
    throw std::runtime_error(why);
  }
  if (precision == Precision::fp16) scaler_.emplace(device);
}

double Trainer::estimated_step_bytes(std::int64_t batch) const {
  const double params = static_cast<double>(model_->parameter_count());
  const bool lowp = precision_ != Precision::fp32;
  // fp32 weights, gradients and momentum; autocast's 2-byte weight copies.
  const double state = params * (4.0 + 4.0 + 4.0 + (lowp ? 2.0 : 0.0));
  // Activations kept for backward: 2 bytes under autocast (BatchNorm and
  // the loss stay fp32; 3 bytes is the middle ground), 4 in fp32.
  const double act = model_->activation_elements_per_sample() * (lowp ? 3.0 : 4.0);
  return state + static_cast<double>(batch) * act + batch_bytes(batch);
}

at::Tensor Trainer::step(const HostBatch& batch) {
  const std::uint64_t limit = config_.inject_oom_above_bytes;
  if (limit > 0) {
    const double need = estimated_step_bytes(batch.size());
    if (need > static_cast<double>(limit)) throw_injected_oom(need, limit, "an estimated");
  }
  const auto to_device = at::TensorOptions().device(device_);
  const at::Tensor images = batch.images.to(to_device, /*non_blocking=*/true);
  const at::Tensor labels = batch.labels.to(to_device, /*non_blocking=*/true);

  at::Tensor logits;
  {
    std::optional<AutocastScope> autocast;
    if (precision_ != Precision::fp32) autocast.emplace(device_.type(), autocast_dtype(precision_));
    logits = model_->forward(images);
  }
  const at::Tensor loss = at::nll_loss(at::log_softmax(logits.to(at::kFloat), 1), labels);
  if (scaler_) {
    scaler_->scale(loss).backward();
  } else {
    loss.backward();
  }

  auto& params = model_->parameters();
  std::vector<at::Tensor> grads;
  grads.reserve(params.size());
  for (const auto& p : params) grads.push_back(p.grad());

  bool finite = true;
  if (scaler_) finite = scaler_->unscale(grads);
  if (finite) {
    // torch.optim.SGD(momentum, dampening 0, foreach=True).
    c10::NoGradGuard no_grad;
    if (momentum_.empty()) {
      for (const auto& g : grads) momentum_.push_back(g.clone());
    } else {
      at::_foreach_mul_(momentum_, at::Scalar(config_.momentum));
      at::_foreach_add_(momentum_, grads);
    }
    at::_foreach_add_(params, momentum_, at::Scalar(-config_.lr));
  } else {
    ++skipped_;
  }
  if (scaler_) scaler_->update();
  for (auto& p : params) p.mutable_grad().reset();  // zero_grad(set_to_none=True)

  if (limit > 0 && !device_.is_cpu()) {
    if (const auto* backend = accelerator_backend(device_)) {
      if (auto mem = backend->memory(device_.index()); mem && mem->peak_allocated_bytes > limit) {
        throw_injected_oom(static_cast<double>(mem->peak_allocated_bytes), limit, "a measured peak of");
      }
    }
  }
  return loss.detach();
}

std::vector<double> loss_curve(const std::string& model, Precision precision, const c10::Device& device,
                               const Dataset& data, std::int64_t batch, int steps, std::uint64_t seed,
                               const StepConfig& config) {
  Trainer trainer(make_model(model, device, seed), precision, device, config);
  std::vector<at::Tensor> losses;
  losses.reserve(static_cast<std::size_t>(steps));
  for (int t = 0; t < steps; ++t) {
    losses.push_back(trainer.step(host_batch(data, static_cast<std::int64_t>(t) * batch, batch, false)));
  }
  std::vector<double> out;
  if (losses.empty()) return out;
  const at::Tensor all = at::stack(losses).to(at::kDouble).cpu();
  const double* p = all.data_ptr<double>();
  out.assign(p, p + all.numel());
  return out;
}

}  // namespace accel::engine::train
