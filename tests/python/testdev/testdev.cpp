// accel_doctor_testdev: a PrivateUse1 backend built only for tests (issue 14,
// docs/python.md). We have no DirectML device, so this library plays one:
// loaded into Python (tests/python/testdev/accel_doctor_testdev), it
// registers the device type torch-directml uses (PrivateUse1, tensors on
// "privateuseone:N") with
//   - a host-memory allocator (the "device" memory is malloc'd host memory);
//   - a device guard without streams that can be synchronised and without
//     events, like a plugin the engine cannot time with device events;
//   - copies to and from the CPU and within the device (_copy_from);
//   - the view and metadata ops every backend implements (view, as_strided,
//     resize_, ...), so that only real computations reach the fallback;
//   - two computing ops with a kernel of their own: aten::add.Tensor
//     (same-shape contiguous operands) and aten::mm (floating point, a plain
//     i-k-j loop accumulating in float);
//   - a boxed CPU fallback for every other op (at::native::cpu_fallback),
//     which announces each op it sends to the CPU with a warning in
//     torch-directml's words ("The operator 'aten::mul.Tensor' is not
//     currently supported on the AccelDoctorTestDevice backend and will fall
//     back to run on the CPU. This may have performance implications."),
//     once per process (TORCH_WARN_ONCE) unless warn-always is on, the way
//     torch's own MPS fallback does.
// An add or mm the kernels do not cover (broadcasting, other dtypes, strides)
// goes through the same fallback, with the same warning.
//
// Device count: ACCEL_DOCTOR_TESTDEV_COUNT (default 1, at most 8), read once.
// C entry points for the Python module (ctypes): accel_doctor_testdev_device_count(),
// accel_doctor_testdev_native_ops() (a comma-separated list of the two ops).
// Works with torch 1.13 (Debian) and 2.x.
#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_local_scalar_dense_native.h>
#include <ATen/ops/add_ops.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/mm_ops.h>
#include <ATen/ops/unfold_native.h>
#include <ATen/ops/view_as_complex_native.h>
#include <ATen/ops/view_as_real_native.h>
#include <ATen/ops/view_native.h>
#if __has_include(<ATen/ops/_reshape_alias_native.h>)  // torch 1.13 to 2.x; gone in some later torch
#include <ATen/ops/_reshape_alias_native.h>
#define TESTDEV_HAS_RESHAPE_ALIAS 1
#endif
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>
#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#define TESTDEV_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace {

constexpr c10::DeviceType kType = c10::DeviceType::PrivateUse1;

c10::DeviceIndex device_count_from_env() {
  const char* v = std::getenv("ACCEL_DOCTOR_TESTDEV_COUNT");
  const int n = v && *v ? std::atoi(v) : 1;
  return static_cast<c10::DeviceIndex>(std::clamp(n, 0, 8));
}

c10::DeviceIndex device_count() {
  static const c10::DeviceIndex n = device_count_from_env();
  return n;
}

thread_local c10::DeviceIndex current_device = 0;

// ---------------------------------------------------------------- guard

/// One device index per thread, one (default) stream per device; no stream
/// synchronisation and no events: the base class's defaults throw for both,
/// as they do for a plugin that implements neither.
struct TestGuardImpl final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return kType; }
  c10::Device exchangeDevice(c10::Device d) const override {
    const c10::Device old = getDevice();
    setDevice(d);
    return old;
  }
  c10::Device getDevice() const override { return c10::Device(kType, current_device); }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == kType, "accel_doctor_testdev: not a PrivateUse1 device: ", d);
    TORCH_CHECK(d.index() < device_count(), "accel_doctor_testdev: device index ", int(d.index()),
                " out of range (", int(device_count()), " devices)");
    if (d.index() >= 0) current_device = d.index();
  }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    if (d.index() >= 0) current_device = d.index();
  }
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, TestGuardImpl);

// ---------------------------------------------------------------- memory

void free_host(void* p) { c10::free_cpu(p); }

struct HostAllocator final : c10::Allocator {
#if TESTDEV_TORCH_AT_LEAST(2, 3)
  c10::DataPtr allocate(size_t n) override {
#else
  c10::DataPtr allocate(size_t n) const override {
#endif
    void* p = n ? c10::alloc_cpu(n) : nullptr;
    return {p, p, &free_host, c10::Device(kType, current_device)};
  }
  c10::DeleterFnPtr raw_deleter() const override { return &free_host; }
#if TESTDEV_TORCH_AT_LEAST(2, 3)
  void copy_data(void* dest, const void* src, std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif
};

HostAllocator host_allocator;
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &host_allocator);

c10::DispatchKeySet device_keys() { return c10::DispatchKeySet(c10::DispatchKey::PrivateUse1); }

at::Tensor empty_memory_format(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                               c10::optional<bool> pin_memory,
                               c10::optional<at::MemoryFormat> memory_format) {
  if (device && device->has_index()) current_device = device->index();
  return at::detail::empty_generic(size, &host_allocator, device_keys(), c10::dtype_or_default(dtype),
                                   memory_format);
}

at::Tensor empty_strided(at::IntArrayRef size, at::IntArrayRef stride, c10::optional<at::ScalarType> dtype,
                         c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                         c10::optional<bool> pin_memory) {
  if (device && device->has_index()) current_device = device->index();
  return at::detail::empty_strided_generic(size, stride, &host_allocator, device_keys(),
                                           c10::dtype_or_default(dtype));
}

/// A CPU tensor over the same host memory as a device tensor (same sizes,
/// strides, offset): what lets the copies and the fallback's CPU work read
/// and write device memory directly.
at::Tensor host_alias(const at::Tensor& t) {
  if (t.device().type() != kType) return t;
  c10::DataPtr ptr(t.storage().data_ptr().get(), c10::Device(c10::kCPU));
  c10::Storage storage(c10::Storage::use_byte_size_t(), t.storage().nbytes(), std::move(ptr),
                       /*allocator=*/nullptr, /*resizable=*/false);
  at::Tensor cpu = at::empty({0}, t.options().device(c10::kCPU));
  cpu.set_(storage, t.storage_offset(), t.sizes(), t.strides());
  return cpu;
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  TORCH_CHECK(self.is_cpu() || self.device().type() == kType,
              "accel_doctor_testdev copies between the CPU and its own devices only, not from ",
              self.device());
  TORCH_CHECK(dst.is_cpu() || dst.device().type() == kType,
              "accel_doctor_testdev copies between the CPU and its own devices only, not to ", dst.device());
  at::Tensor out = host_alias(dst);
  out.copy_(host_alias(self), non_blocking);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  return copy_from(self, dst, false);
}

const at::Tensor& resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat> memory_format) {
  // Host memory: the CPU's resize logic applies as is (its storage growth
  // calls this device's allocator through the storage).
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, c10::nullopt);
  if (memory_format && *memory_format != at::MemoryFormat::Preserve) {
    self.unsafeGetTensorImpl()->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  return at::native::_local_scalar_dense_cpu(host_alias(self));
}

// ---------------------------------------------------------------- fallback

/// Every op without a kernel here: announced, then run on the CPU by torch's
/// generic boxed fallback (inputs copied to the CPU, outputs back).
void cpu_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  TORCH_WARN_ONCE(
      "The operator '", op.schema().operator_name(),
      "' is not currently supported on the AccelDoctorTestDevice backend and will fall back to run "
      "on the CPU. This may have performance implications.");
  at::native::cpu_fallback(op, stack);
}

// ---------------------------------------------------------------- the two kernels

bool simple_operands(const at::Tensor& a, const at::Tensor& b) {
  return a.device() == b.device() && a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() &&
         a.is_contiguous() && b.is_contiguous() && at::isFloatingType(a.scalar_type()) && !a.is_complex() &&
         a.scalar_type() != at::kDouble;
}

/// out = a + alpha * b, elementwise, same shape, on the device's memory.
at::Tensor add_tensor(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  if (!simple_operands(a, b)) {
    return at::native::call_fallback_fn<&cpu_fallback, at::_ops::add_Tensor>::call(a, b, alpha);
  }
  at::Tensor out = at::empty(a.sizes(), a.options());
  const int64_t n = a.numel();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "testdev_add", [&] {
    const auto* x = static_cast<const scalar_t*>(a.data_ptr());
    const auto* y = static_cast<const scalar_t*>(b.data_ptr());
    auto* z = static_cast<scalar_t*>(out.data_ptr());
    const float s = alpha.to<float>();
    for (int64_t i = 0; i < n; ++i) {
      z[i] = static_cast<scalar_t>(static_cast<float>(x[i]) + s * static_cast<float>(y[i]));
    }
  });
  return out;
}

/// out[M,N] = a[M,K] @ b[K,N], accumulated in float (i-k-j order).
at::Tensor mm(const at::Tensor& a, const at::Tensor& b) {
  const bool ok = a.dim() == 2 && b.dim() == 2 && a.size(1) == b.size(0) && a.device() == b.device() &&
                  a.scalar_type() == b.scalar_type() && at::isFloatingType(a.scalar_type()) &&
                  a.scalar_type() != at::kDouble;
  if (!ok) return at::native::call_fallback_fn<&cpu_fallback, at::_ops::mm>::call(a, b);
  const at::Tensor ac = a.contiguous();
  const at::Tensor bc = b.contiguous();
  const int64_t M = a.size(0), K = a.size(1), N = b.size(1);
  at::Tensor out = at::empty({M, N}, a.options());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, a.scalar_type(), "testdev_mm", [&] {
    const auto* x = static_cast<const scalar_t*>(ac.data_ptr());
    const auto* y = static_cast<const scalar_t*>(bc.data_ptr());
    auto* z = static_cast<scalar_t*>(out.data_ptr());
    std::vector<float> row(static_cast<std::size_t>(N));
    for (int64_t i = 0; i < M; ++i) {
      std::fill(row.begin(), row.end(), 0.0f);
      for (int64_t k = 0; k < K; ++k) {
        const float xik = static_cast<float>(x[i * K + k]);
        const scalar_t* yk = y + k * N;
        for (int64_t j = 0; j < N; ++j) row[j] += xik * static_cast<float>(yk[j]);
      }
      for (int64_t j = 0; j < N; ++j) z[i * N + j] = static_cast<scalar_t>(row[j]);
    }
  });
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  // memory, copies, views and metadata
  m.impl("empty.memory_format", &empty_memory_format);
  m.impl("empty_strided", &empty_strided);
  m.impl("_copy_from", &copy_from);
  m.impl("_copy_from_and_resize", &copy_from_and_resize);
  m.impl("resize_", &resize);
  m.impl("_local_scalar_dense", &local_scalar_dense);
  m.impl("view", &at::native::view);
  m.impl("as_strided", &at::native::as_strided_tensorimpl);
#ifdef TESTDEV_HAS_RESHAPE_ALIAS
  m.impl("_reshape_alias", &at::native::_reshape_alias);
#endif
  m.impl("unfold", &at::native::unfold);
  m.impl("view_as_real", &at::native::view_as_real);
  m.impl("view_as_complex", &at::native::view_as_complex);
  // the two computing kernels of this device
  m.impl("add.Tensor", &add_tensor);
  m.impl("mm", &mm);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&cpu_fallback>());
}

extern "C" {
__attribute__((visibility("default"))) int accel_doctor_testdev_device_count() { return device_count(); }
__attribute__((visibility("default"))) const char* accel_doctor_testdev_native_ops() {
  return "aten::add.Tensor,aten::mm";
}
}
