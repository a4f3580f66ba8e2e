#include "engines/torch/torch_util.hpp"

#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <utility>

namespace accel::engine {

namespace {
struct DtypeName {
  at::ScalarType type;
  const char* name;
};
constexpr DtypeName kDtypeNames[] = {
    {at::kFloat, "fp32"},
    {at::kHalf, "fp16"},
    {at::kBFloat16, "bf16"},
    {at::kDouble, "fp64"},
    {at::kLong, "int64"},
    {at::kInt, "int32"},
    {at::kShort, "int16"},
    {at::kChar, "int8"},
    {at::kByte, "uint8"},
    {at::kBool, "bool"},
    {at::kComplexFloat, "complex64"},
    {at::kComplexDouble, "complex128"},
};
}  // namespace

std::string dtype_name(at::ScalarType t) {
  for (const auto& d : kDtypeNames) {
    if (d.type == t) return d.name;
  }
  return c10::toString(t);
}

at::ScalarType dtype_from_name(const std::string& name) {
  for (const auto& d : kDtypeNames) {
    if (name == d.name) return d.type;
  }
  throw std::invalid_argument("unknown dtype '" + name + "'");
}

bool is_floating(at::ScalarType t) { return at::isFloatingType(t); }

c10::Device parse_device(const std::string& text) {
  try {
    return c10::Device(text);
  } catch (const c10::Error& e) {
    throw std::invalid_argument("'" + text + "' is not a device name (" + strip_backtrace(e.what()) + ")");
  }
}

std::string device_string(const c10::Device& d) { return d.str(); }

void initialise_device(const c10::Device& d) {
  if (d.is_cpu()) return;
  (void)at::empty({1}, at::TensorOptions().device(d));
  synchronize(d);
}

std::string to_string(SyncMethod m) {
  switch (m) {
    case SyncMethod::none:
      return "none";
    case SyncMethod::stream:
      return "stream";
    case SyncMethod::scalar_copy:
      return "scalar_copy";
  }
  return "none";
}

namespace {
/// Per device type: 0 not yet known, else SyncMethod + 1.
std::atomic<int> g_sync_method[c10::COMPILE_TIME_MAX_DEVICE_TYPES];

std::atomic<int>& sync_slot(const c10::Device& d) { return g_sync_method[static_cast<int>(d.type())]; }

void scalar_copy_sync(const c10::Device& d) {
  // One cached element per device and thread: the copy itself allocates
  // nothing on the device, so it queues only the copy.
  thread_local std::vector<std::pair<c10::Device, at::Tensor>> probes;
  auto it = std::find_if(probes.begin(), probes.end(), [&](const auto& p) { return p.first == d; });
  if (it == probes.end()) {
    probes.emplace_back(d, at::zeros({1}, at::TensorOptions().device(at::kCPU)).to(d));
    it = probes.end() - 1;
  }
  (void)it->second.to(at::kCPU);
}

bool says_unsupported(const c10::Error& e) {
  const std::string what = e.what_without_backtrace();
  return what.find("support") != std::string::npos && what.find("synchroniz") != std::string::npos;
}
}  // namespace

void synchronize(const c10::Device& d) {
  if (d.is_cpu()) return;
  auto& slot = sync_slot(d);
  const int known = slot.load(std::memory_order_relaxed);
  if (known == static_cast<int>(SyncMethod::scalar_copy) + 1) {
    scalar_copy_sync(d);
    return;
  }
  const auto* impl = c10::impl::getDeviceGuardImpl(d.type());
  try {
    impl->getStream(d).synchronize();
    slot.store(static_cast<int>(SyncMethod::stream) + 1, std::memory_order_relaxed);
  } catch (const c10::Error& e) {
    if (known != 0 || !says_unsupported(e)) throw;
    slot.store(static_cast<int>(SyncMethod::scalar_copy) + 1, std::memory_order_relaxed);
    scalar_copy_sync(d);
  }
}

SyncMethod sync_method(const c10::Device& d) {
  if (d.is_cpu()) return SyncMethod::none;
  if (sync_slot(d).load(std::memory_order_relaxed) == 0) synchronize(d);
  const int known = sync_slot(d).load(std::memory_order_relaxed);
  return known ? static_cast<SyncMethod>(known - 1) : SyncMethod::stream;
}

bool has_timing_events(const c10::Device& d) {
#if ACCEL_TORCH_AT_LEAST(2, 5)
  return d.is_cuda() || d.type() == c10::DeviceType::XPU;
#else
  (void)d;
  return false;
#endif
}

std::string strip_backtrace(const std::string& what) {
  std::string out = what;
  // c10::Error appends "Exception raised from <fn> at <file>:<line> (most recent call first):"
  // followed by frames; torch 1.x put the backtrace after the message as well.
  for (const char* marker :
       {"\nException raised from ", "Exception raised from ", "\nframe #0", " (most recent call first)"}) {
    const auto pos = out.find(marker);
    if (pos != std::string::npos) out.erase(pos);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

std::string exception_message(const std::exception& e) {
  if (const auto* ce = dynamic_cast<const c10::Error*>(&e)) {
    return strip_backtrace(ce->what_without_backtrace());
  }
  return strip_backtrace(e.what());
}

// ---------------------------------------------------------------- warnings

struct WarningCapture::Handler : c10::WarningHandler {
  std::vector<std::string> messages;
  void add(const std::string& msg) {
    if (std::find(messages.begin(), messages.end(), msg) == messages.end()) {
      messages.push_back(msg);
    }
  }
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning& warning) override { add(warning.msg()); }
#else
  void process(const c10::SourceLocation&, const std::string& msg, const bool) override { add(msg); }
#endif
};

WarningCapture::WarningCapture() : handler_(new Handler) {
#if TORCH_VERSION_MAJOR >= 2
  previous_ = c10::WarningUtils::get_warning_handler();
  c10::WarningUtils::set_warning_handler(handler_);
#else
  previous_ = c10::Warning::get_warning_handler();
  c10::Warning::set_warning_handler(handler_);
#endif
}

WarningCapture::~WarningCapture() {
#if TORCH_VERSION_MAJOR >= 2
  c10::WarningUtils::set_warning_handler(previous_);
#else
  c10::Warning::set_warning_handler(previous_);
#endif
  delete handler_;
}

const std::vector<std::string>& WarningCapture::messages() const { return handler_->messages; }

#if TORCH_VERSION_MAJOR >= 2
WarnAlwaysGuard::WarnAlwaysGuard() : previous_(c10::WarningUtils::get_warnAlways()) {
  c10::WarningUtils::set_warnAlways(true);
}
WarnAlwaysGuard::~WarnAlwaysGuard() { c10::WarningUtils::set_warnAlways(previous_); }
#else
WarnAlwaysGuard::WarnAlwaysGuard() : previous_(c10::Warning::get_warnAlways()) {
  c10::Warning::set_warnAlways(true);
}
WarnAlwaysGuard::~WarnAlwaysGuard() { c10::Warning::set_warnAlways(previous_); }
#endif

std::string select_sdpa_backend(const std::string& backend) {
  if (backend != "auto" && backend != "flash" && backend != "efficient" && backend != "cudnn" &&
      backend != "math") {
    return "unknown SDPA backend '" + backend + "' (auto, flash, efficient, cudnn or math)";
  }
#if ACCEL_TORCH_AT_LEAST(2, 0)
  auto& ctx = at::globalContext();
  const bool all = backend == "auto";
#if ACCEL_TORCH_AT_LEAST(2, 5)
  ctx.setSDPUseCuDNN(all || backend == "cudnn");
#else
  if (backend == "cudnn") return "choosing the cuDNN attention backend needs torch >= 2.5";
#endif
  ctx.setSDPUseFlash(all || backend == "flash");
  ctx.setSDPUseMemEfficient(all || backend == "efficient");
  ctx.setSDPUseMath(all || backend == "math");
  return {};
#else
  return backend == "auto" ? std::string() : "scaled_dot_product_attention needs torch >= 2.0";
#endif
}

}  // namespace accel::engine
