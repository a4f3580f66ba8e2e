// Elementwise arithmetic, activations, comparisons and casts: memory-bound,
// one pass over the data. FLOPs count one per arithmetic operation and one
// per transcendental function (an estimate: the formula says so).
#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kRows = 1024, kCols = 1024;
constexpr double kN = static_cast<double>(kRows) * kCols;
const std::string kShape = "1024x1024";

using Unary = std::function<at::Tensor(const at::Tensor&)>;
using Binary = std::function<at::Tensor(const at::Tensor&, const at::Tensor&)>;

std::string per_elem(double f) {
  const auto i = static_cast<int>(f);
  return i == 1 ? "N" : std::to_string(i) + "*N";
}

/// A unary elementwise row: one input read, one output written.
CheckDef unary(std::string name, Unary fn, double flops_per_elem, double lo = -3.0, double hi = 3.0) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = float_dtypes();
  c.shape = kShape;
  c.inputs = [lo, hi] { return Tensors{uniform64({kRows, kCols}, lo, hi)}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0]); };
  c.flops = flops_per_elem * kN;
  c.flops_formula = per_elem(flops_per_elem);
  c.bytes = [](double e) { return 2.0 * kN * e; };
  c.bytes_formula = "2*N*elem";
  return c;
}

/// A binary elementwise row: two inputs read, one output written.
CheckDef binary(std::string name, Binary fn, double lo = -3.0, double hi = 3.0, double flops_per_elem = 1) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = float_dtypes();
  c.shape = kShape;
  c.inputs = [lo, hi] {
    return Tensors{uniform64({kRows, kCols}, lo, hi), uniform64({kRows, kCols}, lo, hi)};
  };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0], in[1]); };
  c.flops = flops_per_elem * kN;
  c.flops_formula = per_elem(flops_per_elem);
  c.bytes = [](double e) { return 3.0 * kN * e; };
  c.bytes_formula = "3*N*elem";
  return c;
}

/// A cast row: reads N elements of the dtype under test, writes N of `to`.
CheckDef cast(std::string name, at::ScalarType to, std::vector<at::ScalarType> from) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = std::move(from);
  c.shape = kShape;
  c.inputs = [] { return Tensors{randn64({kRows, kCols}) * 4}; };
  c.op = [to](const Tensors& in, const OpEnv&) { return in[0].to(to); };
  // The reference casts the same rounded values from float64: rounding to
  // nearest-even gives the same bits, so the comparison is exact.
  c.verify = Verify::exact;
  c.flops = 0;
  c.flops_formula = "0 (conversion)";
  const double out_elem = static_cast<double>(at::elementSize(to));
  c.bytes = [out_elem](double e) { return kN * (e + out_elem); };
  c.bytes_formula = "N*(elem + elem_out)";
  return c;
}

/// A row over integer tensors, verified exactly.
CheckDef integer(std::string name, at::ScalarType t, Binary fn) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "elementwise";
  c.dtypes = {t};
  c.shape = kShape;
  c.inputs = [t] {
    return Tensors{(randint64({kRows, kCols}, 1 << 20) - (1 << 19)).to(t),
                   randint64({kRows, kCols}, 1 << 20).to(t)};
  };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0], in[1]); };
  c.verify = Verify::exact;
  c.flops = kN;
  c.flops_formula = "N (integer ops)";
  c.bytes = [](double e) { return 3.0 * kN * e; };
  c.bytes_formula = "3*N*elem";
  return c;
}
}  // namespace

void add_elementwise_checks(std::vector<CheckDef>& out) {
  // ---- arithmetic
  out.push_back(binary("add", [](const at::Tensor& a, const at::Tensor& b) { return a + b; }));
  out.push_back(binary("mul", [](const at::Tensor& a, const at::Tensor& b) { return a * b; }));
  out.push_back(binary(
      "div", [](const at::Tensor& a, const at::Tensor& b) { return a / b; }, 0.5, 3.0));
  out.push_back(unary(
      "pow_scalar", [](const at::Tensor& x) { return at::pow(x, 2.5); }, 1, 0.1, 3.0));
  out.push_back(unary(
      "sqrt", [](const at::Tensor& x) { return at::sqrt(x); }, 1, 0.01, 9.0));
  out.push_back(unary(
      "rsqrt", [](const at::Tensor& x) { return at::rsqrt(x); }, 2, 0.1, 9.0));

  // ---- transcendental
  out.push_back(unary(
      "exp", [](const at::Tensor& x) { return x.exp(); }, 1));
  out.push_back(unary(
      "log", [](const at::Tensor& x) { return at::log(x); }, 1, 0.01, 10.0));
  out.push_back(unary(
      "sin", [](const at::Tensor& x) { return at::sin(x); }, 1));
  out.push_back(unary(
      "cos", [](const at::Tensor& x) { return at::cos(x); }, 1));
  out.push_back(unary(
      "tanh", [](const at::Tensor& x) { return at::tanh(x); }, 1));
  out.push_back(unary(
      "sigmoid", [](const at::Tensor& x) { return at::sigmoid(x); }, 3));

  // ---- activations
  out.push_back(unary(
      "relu", [](const at::Tensor& x) { return at::relu(x); }, 1));
  out.push_back(unary(
      "gelu", [](const at::Tensor& x) { return at::gelu(x); }, 8));
  out.push_back(unary(
      "gelu_tanh", [](const at::Tensor& x) { return at::gelu(x, "tanh"); }, 9));
  out.push_back(unary(
      "silu", [](const at::Tensor& x) { return at::silu(x); }, 4));
  out.push_back(unary(
      "mish", [](const at::Tensor& x) { return at::mish(x); }, 6));
  out.push_back(unary(
      "hardswish", [](const at::Tensor& x) { return at::hardswish(x); }, 4));
  out.push_back(unary(
      "leaky_relu", [](const at::Tensor& x) { return at::leaky_relu(x, 0.01); }, 2));
  out.push_back(unary(
      "elu", [](const at::Tensor& x) { return at::elu(x); }, 3));
  out.push_back(unary(
      "softplus", [](const at::Tensor& x) { return at::softplus(x); }, 4));
  out.push_back(unary(
      "clamp", [](const at::Tensor& x) { return at::clamp(x, -1.0, 1.5); }, 2));

  // ---- ternary
  {
    // Built on the binary row; the op and inputs below replace its own.
    CheckDef c = binary("where", nullptr);
    c.inputs = [] {
      return Tensors{uniform64({kRows, kCols}, 0, 1) > 0.5, uniform64({kRows, kCols}, -3, 3),
                     uniform64({kRows, kCols}, -3, 3)};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::where(in[0], in[1], in[2]); };
    c.flops = 0;
    c.flops_formula = "0 (selection)";
    c.bytes = [](double e) { return kN * (1 + 3 * e); };
    c.bytes_formula = "N*(1 + 3*elem)";
    out.push_back(c);
  }
  {
    CheckDef c = binary("lerp", [](const at::Tensor& a, const at::Tensor& b) { return at::lerp(a, b, 0.3); });
    c.flops = 3 * kN;
    c.flops_formula = "3*N";
    out.push_back(c);
  }
  {
    CheckDef c = binary("addcmul", nullptr);
    c.inputs = [] {
      return Tensors{uniform64({kRows, kCols}, -3, 3), uniform64({kRows, kCols}, -3, 3),
                     uniform64({kRows, kCols}, -3, 3)};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::addcmul(in[0], in[1], in[2], 0.5); };
    c.flops = 3 * kN;
    c.flops_formula = "3*N";
    c.bytes = [](double e) { return 4.0 * kN * e; };
    c.bytes_formula = "4*N*elem";
    out.push_back(c);
  }

  // ---- comparisons (bool output, exact)
  {
    CheckDef c = binary("gt", [](const at::Tensor& a, const at::Tensor& b) { return a > b; });
    c.verify = Verify::exact;
    c.bytes = [](double e) { return kN * (2 * e + 1); };
    c.bytes_formula = "N*(2*elem + 1)";
    out.push_back(c);
  }

  // ---- casts between fp32 and the half types
  out.push_back(cast("to_fp16", at::kHalf, {at::kFloat}));
  out.push_back(cast("to_bf16", at::kBFloat16, {at::kFloat}));
  out.push_back(cast("to_fp32", at::kFloat, {at::kHalf, at::kBFloat16}));

  // ---- integer arithmetic
  out.push_back(integer("add_int", at::kInt, [](const at::Tensor& a, const at::Tensor& b) { return a + b; }));
}

}  // namespace accel::engine
