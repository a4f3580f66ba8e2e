// Tensor creation and random generation. Deterministic creators (zeros,
// arange, eye, ...) are compared with the float64 reference; random ones are
// checked by their sample statistics, with tolerances that shrink as
// 1/sqrt(n) (6 standard errors, so a correct generator fails about once in
// 10^9 runs) plus the rounding step of the dtype.
#include <cmath>

#include <fmt/format.h>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
constexpr int64_t kN = 1 << 20;  // 1M elements
const std::string kShapeN = "1048576";

CheckDef make(std::string name, std::string shape, std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "creation";
  c.dtypes = std::move(dtypes);
  c.shape = std::move(shape);
  return c;
}

/// A creator that only writes `n` elements.
CheckDef writer(std::string name, std::string shape, double n, std::function<at::Tensor(const OpEnv&)> fn,
                std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c = make(std::move(name), std::move(shape), std::move(dtypes));
  c.op = [fn](const Tensors&, const OpEnv& env) { return fn(env); };
  c.flops = 0;
  c.flops_formula = "0 (writes only)";
  c.bytes = [n](double e) { return n * e; };
  c.bytes_formula = "N*elem (write)";
  return c;
}

/// Relative rounding step of a dtype (unit in the last place at 1).
double dtype_eps(at::ScalarType t) {
  switch (t) {
    case at::kHalf:
      return std::ldexp(1.0, -10);
    case at::kBFloat16:
      return std::ldexp(1.0, -7);
    case at::kFloat:
      return std::ldexp(1.0, -23);
    default:
      return 0;
  }
}

constexpr double kSigmas = 6.0;

/// "" when the sample's mean and standard deviation match the distribution's.
std::string check_moments(const at::Tensor& out, at::ScalarType dtype, double mean, double sd) {
  const at::Tensor x = out.to(at::kDouble).flatten();
  const double n = static_cast<double>(x.numel());
  if (n < 2) return "sample too small";
  if (!at::isfinite(x).all().item<bool>()) return "non-finite values in the sample";
  const double m = x.mean().item<double>();
  const double s = x.std().item<double>();
  const double eps = dtype_eps(dtype);
  const double tol_m = kSigmas * sd / std::sqrt(n) + eps * (std::abs(mean) + sd);
  // Standard error of the sample standard deviation is about sd/sqrt(2n) for
  // a normal sample, larger for heavy tails: sd/sqrt(n) covers both.
  const double tol_s = kSigmas * sd / std::sqrt(n) + eps * sd;
  if (std::abs(m - mean) > tol_m) {
    return fmt::format("sample mean {:.5g}, expected {:.5g} +- {:.2g} (n={})", m, mean, tol_m, n);
  }
  if (std::abs(s - sd) > tol_s) {
    return fmt::format("sample std {:.5g}, expected {:.5g} +- {:.2g} (n={})", s, sd, tol_s, n);
  }
  return "";
}

/// "" when every value lies in [lo, hi].
std::string check_range(const at::Tensor& out, double lo, double hi) {
  const at::Tensor x = out.to(at::kDouble);
  const double mn = x.min().item<double>();
  const double mx = x.max().item<double>();
  if (mn < lo || mx > hi) return fmt::format("values in [{:.5g}, {:.5g}], expected [{}, {}]", mn, mx, lo, hi);
  return "";
}

/// "" when the fraction of `value` in the sample is p within 6 standard errors.
std::string check_fraction(const at::Tensor& hits, double p, const std::string& what) {
  const double n = static_cast<double>(hits.numel());
  const double f = hits.to(at::kDouble).sum().item<double>() / n;
  const double tol = kSigmas * std::sqrt(p * (1 - p) / n);
  if (std::abs(f - p) > tol) {
    return fmt::format("fraction of {} is {:.5f}, expected {:.5f} +- {:.2g}", what, f, p, tol);
  }
  return "";
}
}  // namespace

void add_creation_checks(std::vector<CheckDef>& out) {
  // ---- deterministic creators, compared with the float64 reference
  out.push_back(
      writer("zeros", kShapeN, kN, [](const OpEnv& env) { return at::zeros({kN}, env.options()); }));
  out.push_back(writer("ones", kShapeN, kN, [](const OpEnv& env) { return at::ones({kN}, env.options()); }));
  out.push_back(
      writer("full", kShapeN, kN, [](const OpEnv& env) { return at::full({kN}, 3.25, env.options()); }));
  out.push_back(writer("empty_fill", kShapeN, kN,
                       [](const OpEnv& env) { return at::empty({kN}, env.options()).fill_(-1.5); }));
  {
    // Values in [-8, 8): in range for fp16 and bf16; the output rounding is
    // within the dtype tolerance.
    CheckDef c = writer("arange", kShapeN, kN, [](const OpEnv& env) {
      return at::arange(-8.0, 8.0, 16.0 / static_cast<double>(kN), env.options());
    });
    c.flops = kN;
    c.flops_formula = "N (start + i*step)";
    out.push_back(c);
  }
  {
    CheckDef c =
        writer("arange_int", kShapeN, kN, [](const OpEnv& env) { return at::arange(kN, env.options()); },
               {at::kInt, at::kLong});
    c.verify = Verify::exact;
    out.push_back(c);
  }
  {
    // 16384 points: fp16 has about 30000 values in [-1, 1], so a longer fp16
    // linspace cannot hold distinct points anyway. (torch 1.13's CPU kernel
    // also rounds steps-1 to fp16, so from 65521 points its step is 0.)
    static constexpr int64_t kL = 1 << 14;
    CheckDef c = writer("linspace", "16384", kL,
                        [](const OpEnv& env) { return at::linspace(-1.0, 1.0, kL, env.options()); });
    c.flops = 2.0 * kL;
    c.flops_formula = "2*N (start + i*step)";
    out.push_back(c);
  }
  out.push_back(writer("eye", "1024x1024", 1024.0 * 1024,
                       [](const OpEnv& env) { return at::eye(1024, env.options()); }));

  // ---- random generators, checked by their statistics
  {
    CheckDef c =
        writer("randn", kShapeN, kN, [](const OpEnv& env) { return at::randn({kN}, env.options()); });
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType t) { return check_moments(o, t, 0.0, 1.0); };
    out.push_back(c);
  }
  {
    CheckDef c = writer("rand", kShapeN, kN, [](const OpEnv& env) { return at::rand({kN}, env.options()); });
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType t) {
      auto why = check_range(o, 0.0, 1.0);
      return why.empty() ? check_moments(o, t, 0.5, std::sqrt(1.0 / 12.0)) : why;
    };
    out.push_back(c);
  }
  {
    CheckDef c = writer("normal_", kShapeN, kN,
                        [](const OpEnv& env) { return at::empty({kN}, env.options()).normal_(2.0, 0.5); });
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType t) { return check_moments(o, t, 2.0, 0.5); };
    out.push_back(c);
  }
  {
    static constexpr int64_t kHigh = 10;
    CheckDef c = writer("randint", kShapeN, kN,
                        [](const OpEnv& env) { return at::randint(0, kHigh, {kN}, env.options()); },
                        {at::kInt, at::kLong});
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType) -> std::string {
      auto why = check_range(o, 0, kHigh - 1);
      if (!why.empty()) return why;
      const at::Tensor counts = at::bincount(o.to(at::kLong).flatten(), {}, kHigh).to(at::kDouble);
      const double n = static_cast<double>(o.numel()), p = 1.0 / kHigh;
      const double tol = kSigmas * std::sqrt(n * p * (1 - p));
      const double worst = (counts - n * p).abs().max().item<double>();
      if (worst > tol) {
        return fmt::format("a value's count is {:.0f} away from n/{} (tolerance {:.0f})", worst, kHigh, tol);
      }
      return "";
    };
    out.push_back(c);
  }
  {
    static constexpr int64_t kP = 1 << 18;
    CheckDef c = writer("randperm", "262144", kP,
                        [](const OpEnv& env) { return at::randperm(kP, env.options()); }, {at::kLong});
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType) -> std::string {
      const at::Tensor x = o.to(at::kLong).flatten();
      if (x.numel() != kP) return fmt::format("{} values, expected {}", x.numel(), kP);
      if (!std::get<0>(x.sort()).equal(at::arange(kP, x.options()))) return "not a permutation of 0..n-1";
      // A random permutation has about one fixed point (Poisson(1)).
      const auto fixed = (x == at::arange(kP, x.options())).sum().item<int64_t>();
      if (fixed > 20) return fmt::format("{} fixed points: not shuffled", fixed);
      return "";
    };
    out.push_back(c);
  }
  {
    static constexpr double p = 0.3;
    CheckDef c = writer("bernoulli_", kShapeN, kN,
                        [](const OpEnv& env) { return at::empty({kN}, env.options()).bernoulli_(p); });
    c.flops_formula = "0 (random generation, not counted)";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType) -> std::string {
      const at::Tensor x = o.to(at::kDouble);
      if (!((x == 0) | (x == 1)).all().item<bool>()) return "values other than 0 and 1";
      return check_fraction(x == 1, p, "ones");
    };
    out.push_back(c);
  }
  {
    // 256 rows of 8 categories with probabilities (k+1)/36, 1024 draws each.
    static constexpr int64_t kRows = 256, kCats = 8, kDraws = 1024;
    CheckDef c = make("multinomial", "256x8, 1024 draws");
    c.inputs = [] {
      at::Tensor w = at::arange(1, kCats + 1, at::TensorOptions().dtype(at::kDouble)) / 36.0;
      return Tensors{w.expand({kRows, kCats}).contiguous()};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::multinomial(in[0], kDraws, true); };
    c.flops_formula = "0 (random generation, not counted)";
    c.bytes = [](double e) { return kRows * kCats * e + kRows * kDraws * 8.0; };
    c.bytes_formula = "R*C*elem + R*D*8";
    c.verify = Verify::statistical;
    // Expected: the probabilities as the dtype holds them, normalised. The
    // sampler may also form the cumulative distribution in the dtype (CUDA
    // does for bf16), which moves each category by up to one unit in the
    // last place at 1: allowed on top of 6 standard errors. A wrong sampler
    // is off by a whole category (1/36 or more).
    c.statistic = [](const at::Tensor& o, at::ScalarType t) -> std::string {
      const at::Tensor x = o.to(at::kLong).flatten();
      auto why = check_range(x, 0, kCats - 1);
      if (!why.empty()) return why;
      const at::Tensor counts = at::bincount(x, {}, kCats).to(at::kDouble);
      const at::Tensor w =
          (at::arange(1, kCats + 1, at::TensorOptions().dtype(at::kDouble)) / 36.0).to(t).to(at::kDouble);
      const at::Tensor probs = w / w.sum();
      const double n = static_cast<double>(x.numel());
      for (int64_t k = 0; k < kCats; ++k) {
        const double p = probs[k].item<double>();
        const double got = counts[k].item<double>();
        const double tol = kSigmas * std::sqrt(n * p * (1 - p)) + n * dtype_eps(t);
        if (std::abs(got - n * p) > tol) {
          return fmt::format("category {} drawn {:.0f} times, expected {:.0f} +- {:.0f}", k, got, n * p, tol);
        }
      }
      return "";
    };
    out.push_back(c);
  }
  {
    // Dropout of ones: the zero fraction is p, the kept values are 1/(1-p).
    static constexpr double p = 0.2;
    CheckDef c = make("dropout", kShapeN);
    c.inputs = [] { return Tensors{at::ones({kN}, at::TensorOptions().dtype(at::kDouble))}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::dropout(in[0], p, /*train=*/true); };
    c.flops = kN;
    c.flops_formula = "N (scale the kept values)";
    c.bytes = [](double e) { return 2.0 * kN * e; };
    c.bytes_formula = "2*N*elem";
    c.verify = Verify::statistical;
    c.statistic = [](const at::Tensor& o, at::ScalarType t) -> std::string {
      const at::Tensor x = o.to(at::kDouble);
      auto why = check_fraction(x == 0, p, "zeros");
      if (!why.empty()) return why;
      const at::Tensor kept = x.masked_select(x != 0);
      const double scale = 1.0 / (1.0 - p);
      const double worst = (kept - scale).abs().max().item<double>();
      if (worst > 2 * dtype_eps(t) * scale) {
        return fmt::format("kept values differ from 1/(1-p) = {} by up to {:.3g}", scale, worst);
      }
      return "";
    };
    out.push_back(c);
  }
}

}  // namespace accel::engine
