// Elementwise arithmetic and activations: memory-bound, one pass over the data.
#include "engine/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kRows = 1024, kCols = 1024;
const std::string kShape = "1024x1024";

/// A unary elementwise row: one input read, one output written.
CheckDef unary(std::string name, std::function<at::Tensor(const at::Tensor&)> fn, double flops_per_elem,
               double lo = -3.0, double hi = 3.0) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = float_dtypes();
  c.shape = kShape;
  c.inputs = [lo, hi] { return Tensors{uniform64({kRows, kCols}, lo, hi)}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0]); };
  c.flops = flops_per_elem * kRows * kCols;
  c.flops_formula = std::to_string(static_cast<int>(flops_per_elem)) + "*N";
  c.bytes = [](double e) { return 2.0 * kRows * kCols * e; };
  c.bytes_formula = "2*N*elem";
  return c;
}

/// A binary elementwise row: two inputs read, one output written.
CheckDef binary(std::string name, std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> fn,
                double lo = -3.0, double hi = 3.0) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = float_dtypes();
  c.shape = kShape;
  c.inputs = [lo, hi] { return Tensors{uniform64({kRows, kCols}, lo, hi), uniform64({kRows, kCols}, lo, hi)}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0], in[1]); };
  c.flops = static_cast<double>(kRows) * kCols;
  c.flops_formula = "N";
  c.bytes = [](double e) { return 3.0 * kRows * kCols * e; };
  c.bytes_formula = "3*N*elem";
  return c;
}
}  // namespace

void add_elementwise_checks(std::vector<CheckDef>& out) {
  out.push_back(binary("add", [](const at::Tensor& a, const at::Tensor& b) { return a + b; }));
  out.push_back(binary("mul", [](const at::Tensor& a, const at::Tensor& b) { return a * b; }));
  out.push_back(binary("div", [](const at::Tensor& a, const at::Tensor& b) { return a / b; }, 0.5, 3.0));
  out.push_back(unary("exp", [](const at::Tensor& x) { return x.exp(); }, 1));
  out.push_back(unary("relu", [](const at::Tensor& x) { return at::relu(x); }, 1));
  out.push_back(unary("gelu", [](const at::Tensor& x) { return at::gelu(x); }, 8));
  out.push_back(unary("silu", [](const at::Tensor& x) { return at::silu(x); }, 4));
}

}  // namespace accel::engine
