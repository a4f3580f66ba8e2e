// Reductions and scans: one pass over the input, a small output. Index
// results (argmax, max with dim) are checked through the values they point
// at, because ties make the indices themselves not unique in fp16/bf16.
#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kRows = 1024, kCols = 1024;
constexpr double kN = static_cast<double>(kRows) * kCols;
const std::string kShape = "1024x1024";
constexpr int64_t kBigRows = 2048, kBigCols = 2048;  // 4M elements for whole-tensor reductions
constexpr double kBigN = static_cast<double>(kBigRows) * kBigCols;

using Fn = std::function<at::Tensor(const at::Tensor&)>;

/// Reduces a 1024x1024 input along its last dimension (`out_per_row` outputs per row).
CheckDef rows(std::string name, Fn fn, double flops_per_elem, const std::string& formula, double lo = -3,
              double hi = 3) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "reduction";
  c.dtypes = float_dtypes();
  c.shape = kShape + ", dim=-1";
  c.inputs = [lo, hi] { return Tensors{uniform64({kRows, kCols}, lo, hi)}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0]); };
  c.flops = flops_per_elem * kN;
  c.flops_formula = formula;
  c.bytes = [](double e) { return (kN + kRows) * e; };
  c.bytes_formula = "(R*C + R)*elem";
  return c;
}

/// Reduces a 4M-element tensor to one value. Positive inputs: a sum of
/// zero-mean values cancels (its condition number sum|x|/|sum x| reaches
/// 10^5), and any blocked summation with fp16 partials then misses the
/// relative tolerance without being wrong. Values in [0, 0.015) keep the fp16
/// total (about 31000) in range.
CheckDef whole(std::string name, Fn fn, double flops_per_elem, const std::string& formula, double lo = 0.0,
               double hi = 0.015) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "reduction";
  c.dtypes = float_dtypes();
  c.shape = "2048x2048 -> scalar";
  c.inputs = [lo, hi] { return Tensors{uniform64({kBigRows, kBigCols}, lo, hi)}; };
  c.op = [fn](const Tensors& in, const OpEnv&) { return fn(in[0]); };
  c.flops = flops_per_elem * kBigN;
  c.flops_formula = formula;
  c.bytes = [](double e) { return (kBigN + 1) * e; };
  c.bytes_formula = "(N + 1)*elem";
  return c;
}

const std::vector<int64_t> kLast{-1};
}  // namespace

void add_reduction_checks(std::vector<CheckDef>& out) {
  // ---- whole-tensor ("all-reduce") reductions over 4M elements
  out.push_back(whole(
      "sum_all", [](const at::Tensor& x) { return x.sum(); }, 1, "N"));
  out.push_back(whole(
      "mean_all", [](const at::Tensor& x) { return x.mean(); }, 1, "N"));
  // A norm has no cancellation: zero-mean inputs, as gradients are.
  out.push_back(whole(
      "norm_all", [](const at::Tensor& x) { return x.norm(); }, 2, "2*N", -3.0, 3.0));

  // ---- along the last dimension
  out.push_back(rows(
      "sum_dim", [](const at::Tensor& x) { return x.sum(kLast); }, 1, "R*C"));
  out.push_back(rows(
      "mean_dim", [](const at::Tensor& x) { return x.mean(kLast); }, 1, "R*C"));
  out.push_back(rows(
      "var_dim", [](const at::Tensor& x) { return at::var(x, kLast, /*unbiased=*/true, false); }, 3,
      "3*R*C"));
  out.push_back(rows(
      "std_dim", [](const at::Tensor& x) { return at::std(x, kLast, /*unbiased=*/true, false); }, 3,
      "3*R*C"));
  {
    CheckDef c = rows(
        "amax_dim", [](const at::Tensor& x) { return at::amax(x, kLast); }, 1, "R*C");
    c.verify = Verify::exact;
    out.push_back(c);
  }
  {
    // The index may differ between backends when values tie (fp16/bf16 round
    // many inputs to the same value): check the value it points at.
    CheckDef c = rows(
        "argmax_dim",
        [](const at::Tensor& x) { return x.gather(1, x.argmax(1, /*keepdim=*/true)).squeeze(1); }, 1, "R*C");
    c.verify = Verify::exact;
    out.push_back(c);
  }
  {
    // max(dim) returns values and indices: both must name the row maximum.
    CheckDef c = rows(
        "max_dim",
        [](const at::Tensor& x) {
          auto vi = x.max(1, /*keepdim=*/true);
          return at::cat({std::get<0>(vi), x.gather(1, std::get<1>(vi))}, 1);
        },
        1, "R*C");
    c.verify = Verify::exact;
    out.push_back(c);
  }
  out.push_back(rows(
      "logsumexp_dim", [](const at::Tensor& x) { return at::logsumexp(x, kLast); }, 3,
      "3*R*C (max, exp, sum)"));
  out.push_back(rows(
      "norm_dim", [](const at::Tensor& x) { return at::norm(x, 2, kLast); }, 2, "2*R*C"));
  {
    // A product of 64 factors near 1 stays in range for every dtype.
    CheckDef c = rows(
        "prod_dim", [](const at::Tensor& x) { return at::prod(x, -1); }, 1, "R*C", 0.95, 1.05);
    c.shape = "16384x64, dim=-1";
    c.inputs = [] { return Tensors{uniform64({16384, 64}, 0.95, 1.05)}; };
    c.bytes = [](double e) { return (16384.0 * 64 + 16384) * e; };
    out.push_back(c);
  }
  {
    CheckDef c = rows(
        "cumsum_dim", [](const at::Tensor& x) { return at::cumsum(x, -1); }, 1, "R*C");
    c.bytes = [](double e) { return 2.0 * kN * e; };
    c.bytes_formula = "2*R*C*elem";
    out.push_back(c);
  }

  // ---- integer and boolean reductions (exact)
  {
    CheckDef c = rows(
        "sum_int", [](const at::Tensor& x) { return x.sum(kLast); }, 1, "R*C (integer)");
    c.dtypes = {at::kInt, at::kLong};
    // Integer values held in float64: the runner casts them to the integer
    // dtype under test, and the float64 reference sums them exactly.
    c.inputs = [] { return Tensors{randint64({kRows, kCols}, 1 << 20).to(at::kDouble)}; };
    c.verify = Verify::exact;
    out.push_back(c);
  }
  {
    CheckDef c = rows(
        "any_all_bool", [](const at::Tensor& x) { return x; }, 1, "2*R*C (logical)");
    c.dtypes = {at::kBool};
    c.inputs = [] { return Tensors{uniform64({kRows, kCols}, 0, 1) > 0.999}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      return at::stack({in[0].any(-1), in[0].logical_not().all(-1)});
    };
    c.flops = 2 * kN;
    c.verify = Verify::exact;
    c.bytes = [](double) { return kN + 2.0 * kRows; };
    c.bytes_formula = "R*C + 2*R (bytes of bool)";
    out.push_back(c);
  }
}

}  // namespace accel::engine
