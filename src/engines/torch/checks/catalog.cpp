#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

// Drawn in float32, held in float64: torch's CPU normal sampler is
// vectorised for float only, and drawing float64 directly was 6x slower
// (1M values: 23 vs 4 ms, torch 1.13, 2026-11-30), the largest part of the
// inputs phase of a full run. Every dtype under test is float32 or
// narrower, so no precision is lost.
at::Tensor randn64(at::IntArrayRef shape) {
  return at::randn(shape, at::TensorOptions().dtype(at::kFloat)).to(at::kDouble);
}

void movement(CheckDef& c, std::function<double(double)> bytes, std::string formula,
              std::string flops_reason) {
  c.flops = 0;
  c.flops_formula = std::move(flops_reason);
  c.bytes = std::move(bytes);
  c.bytes_formula = std::move(formula);
}

at::Tensor uniform64(at::IntArrayRef shape, double lo, double hi) {
  return at::rand(shape, at::TensorOptions().dtype(at::kFloat)).to(at::kDouble) * (hi - lo) + lo;
}

at::Tensor randint64(at::IntArrayRef shape, int64_t high) {
  return at::randint(high, shape, at::TensorOptions().dtype(at::kLong));
}

double numel(at::IntArrayRef shape) {
  double n = 1;
  for (auto d : shape) n *= static_cast<double>(d);
  return n;
}

// Test-only checks prove that every status is reachable and that one bad
// check never ends the run. Registered only with include_test_checks
// (`ACCEL_DOCTOR_TEST_CHECKS=1`), never in a user's run.
void add_test_checks(std::vector<CheckDef>& out) {
  CheckDef base;
  base.category = "selftest";
  base.dtypes = {at::kFloat};
  base.shape = "16";
  base.inputs = [] { return Tensors{randn64({16})}; };
  base.compare_cpu = false;

  CheckDef throws = base;
  throws.name = "throws";
  throws.op = [](const Tensors&, const OpEnv&) -> at::Tensor {
    TORCH_CHECK(false, "selftest: this check throws on purpose");
  };
  out.push_back(throws);

  CheckDef wrong = base;
  wrong.name = "wrong_value";
  wrong.op = [](const Tensors& in, const OpEnv& env) {
    // Right on the reference (float64) run, wrong on the dtype under test.
    return env.dtype == at::kDouble ? in[0] * 2 : in[0] * 2 + 1;
  };
  out.push_back(wrong);

  CheckDef aborts = base;
  aborts.name = "aborts";
  aborts.op = [](const Tensors& in, const OpEnv& env) -> at::Tensor {
    if (env.dtype != at::kDouble) std::abort();
    return in[0];
  };
  out.push_back(aborts);

  CheckDef hangs = base;
  hangs.name = "hangs";
  hangs.op = [](const Tensors& in, const OpEnv&) -> at::Tensor {
    std::this_thread::sleep_for(std::chrono::hours(1));
    return in[0];
  };
  out.push_back(hangs);

  CheckDef off_device = base;
  off_device.name = "off_device";
  off_device.op = [](const Tensors& in, const OpEnv&) {
    // Returns a tensor on a device other than the target: the CPU when the
    // target is an accelerator, a meta tensor when the target is the CPU.
    return in[0].is_cpu() ? at::empty_like(in[0], at::TensorOptions().device(c10::kMeta)) : in[0].cpu();
  };
  off_device.verify = Verify::none;
  out.push_back(off_device);

  CheckDef ok = base;
  ok.name = "passes";
  ok.op = [](const Tensors& in, const OpEnv&) { return in[0] * 3; };
  out.push_back(ok);
}

const std::vector<CheckDef>& catalog(bool include_test_checks) {
  static const std::vector<CheckDef> all = [] {
    std::vector<CheckDef> v;
    add_creation_checks(v);
    add_elementwise_checks(v);
    add_reduction_checks(v);
    add_linalg_checks(v);
    add_conv_checks(v);
    add_norm_checks(v);
    add_attention_checks(v);
    add_indexing_checks(v);
    add_shape_checks(v);
    add_fft_checks(v);
    add_loss_autograd_checks(v);
    return v;
  }();
  static const std::vector<CheckDef> with_tests = [] {
    std::vector<CheckDef> v = all;
    add_test_checks(v);
    return v;
  }();
  return include_test_checks ? with_tests : all;
}

}  // namespace accel::engine
