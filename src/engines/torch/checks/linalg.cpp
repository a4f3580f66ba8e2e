// Matrix products and linear algebra: the GEMM library (cuBLAS, rocBLAS,
// hipBLASLt, the CPU BLAS) and the solver library (cuSOLVER, MAGMA,
// rocSOLVER, LAPACK) do the work.
//
// Sizes: large enough to be GEMM-library work on a GPU, small enough that the
// whole catalog, float64 references included, runs on a 2-core CPU with the
// reference netlib BLAS (about 6 GFLOP/s in fp32). The LLM shapes keep the
// real hidden sizes where the cost allows (decode GEMV 1x4096x4096) and cut
// the token count where it does not (prefill).
#include <cmath>

#include "engines/torch/checks/check.hpp"

namespace accel::engine {

namespace {
CheckDef make(std::string name, std::string shape, std::vector<at::ScalarType> dtypes = float_dtypes()) {
  CheckDef c;
  c.name = std::move(name);
  c.category = "linalg";
  c.dtypes = std::move(dtypes);
  c.shape = std::move(shape);
  return c;
}

/// C[M,N] = A[M,K] @ B[K,N] work figures.
void gemm_work(CheckDef& c, double M, double N, double K, double batch = 1) {
  c.flops = 2.0 * batch * M * N * K;
  c.accumulation_length = static_cast<int64_t>(K);
  c.flops_formula = batch == 1 ? "2*M*N*K" : "2*B*M*N*K";
  c.bytes = [=](double e) { return batch * (M * K + K * N + M * N) * e; };
  c.bytes_formula = batch == 1 ? "(M*K + K*N + M*N)*elem" : "B*(M*K + K*N + M*N)*elem";
}

/// A well-conditioned n x n matrix: I*n^(1/2)*2 + N(0,1) (condition number ~ 10).
at::Tensor well_conditioned(int64_t n) {
  return randn64({n, n}) +
         2.0 * std::sqrt(static_cast<double>(n)) * at::eye(n, at::TensorOptions().dtype(at::kDouble));
}

/// A symmetric positive definite n x n matrix with eigenvalues in about [n, 5n].
at::Tensor spd(int64_t n) {
  const at::Tensor a = randn64({n, n});
  return a.matmul(a.t()) + static_cast<double>(n) * at::eye(n, at::TensorOptions().dtype(at::kDouble));
}

const std::vector<at::ScalarType> kFp32{at::kFloat};
}  // namespace

void add_linalg_checks(std::vector<CheckDef>& out) {
  // ---- matrix products
  {
    static constexpr int64_t M = 512, N = 512, K = 512;
    CheckDef c = make("matmul", "512x512 @ 512x512");
    c.inputs = [] { return Tensors{randn64({M, K}), randn64({K, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::matmul(in[0], in[1]); };
    gemm_work(c, M, N, K);
    out.push_back(c);
  }
  {
    // LLM decode: one token through a 4096x4096 projection (y = x W^T), a
    // matrix-vector product bound by reading the weight.
    static constexpr int64_t N = 4096, K = 4096;
    CheckDef c = make("linear_decode_gemv", "1x4096 @ (4096x4096)^T");
    c.inputs = [] { return Tensors{uniform64({1, K}, -1, 1), uniform64({N, K}, -0.05, 0.05)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linear(in[0], in[1]); };
    gemm_work(c, 1, N, K);
    out.push_back(c);
  }
  {
    // LLM prefill MLP up-projection (hidden 1024 -> 2816, the Llama 2.75x
    // ratio) over 16 tokens. A GPU wants more tokens and a wider model
    // (512x4096 @ 4096x11008 is 46 GFLOP); the CPU reference cannot afford it.
    static constexpr int64_t M = 16, N = 2816, K = 1024;
    CheckDef c = make("linear_prefill_mlp", "16x1024 @ (2816x1024)^T");
    c.inputs = [] { return Tensors{uniform64({M, K}, -1, 1), uniform64({N, K}, -0.05, 0.05)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linear(in[0], in[1]); };
    gemm_work(c, M, N, K);
    out.push_back(c);
  }
  {
    static constexpr int64_t M = 128, N = 512, K = 512;
    CheckDef c = make("linear_bias", "128x512 @ (512x512)^T + b");
    c.inputs = [] { return Tensors{randn64({M, K}), randn64({N, K}) * 0.03, randn64({N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linear(in[0], in[1], in[2]); };
    gemm_work(c, M, N, K);
    c.flops += M * N;
    c.flops_formula = "2*M*N*K + M*N";
    out.push_back(c);
  }
  {
    static constexpr int64_t M = 256, N = 256, K = 512;
    CheckDef c = make("addmm", "256x256 + 256x512 @ 512x256");
    c.inputs = [] { return Tensors{randn64({M, N}), randn64({M, K}), randn64({K, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::addmm(in[0], in[1], in[2], 0.5, 1.0); };
    gemm_work(c, M, N, K);
    c.flops += 2 * M * N;
    c.flops_formula = "2*M*N*K + 2*M*N";
    out.push_back(c);
  }
  {
    // Attention-score shaped batch: (batch*heads) x S x D @ D x S.
    static constexpr int64_t B = 32, M = 128, N = 128, K = 64;
    CheckDef c = make("bmm", "32x128x64 @ 32x64x128");
    c.inputs = [] { return Tensors{randn64({B, M, K}), randn64({B, K, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::bmm(in[0], in[1]); };
    gemm_work(c, M, N, K, B);
    out.push_back(c);
  }
  {
    static constexpr int64_t B = 32, M = 128, N = 64, K = 128;
    CheckDef c = make("baddbmm", "32x128x64 + 32x128x128 @ 32x128x64");
    c.inputs = [] { return Tensors{randn64({B, M, N}), randn64({B, M, K}), randn64({B, K, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::baddbmm(in[0], in[1], in[2], 1.0, 0.125); };
    gemm_work(c, M, N, K, B);
    c.flops += 2.0 * B * M * N;
    c.flops_formula = "2*B*M*N*K + 2*B*M*N";
    out.push_back(c);
  }
  {
    // Attention scores written as einsum: q k^T per batch and head.
    static constexpr int64_t B = 2, H = 8, S = 128, D = 64;
    CheckDef c = make("einsum_qk", "bhqd,bhkd->bhqk 2x8x128x64");
    c.inputs = [] { return Tensors{randn64({B, H, S, D}), randn64({B, H, S, D})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::einsum("bhqd,bhkd->bhqk", {in[0], in[1]}); };
    gemm_work(c, S, S, D, B * H);
    out.push_back(c);
  }
  {
    static constexpr int64_t M = 4096, N = 1024;
    CheckDef c = make("mv", "4096x1024 @ 1024");
    c.inputs = [] { return Tensors{randn64({M, N}), randn64({N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::mv(in[0], in[1]); };
    c.flops = 2.0 * M * N;
    c.accumulation_length = N;
    c.flops_formula = "2*M*N";
    c.bytes = [](double e) { return (M * N + N + M) * e; };
    c.bytes_formula = "(M*N + N + M)*elem";
    out.push_back(c);
  }
  {
    static constexpr int64_t N = 1 << 20;
    CheckDef c = make("dot", "1048576 . 1048576");
    c.inputs = [] { return Tensors{randn64({N}), randn64({N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::dot(in[0], in[1]); };
    c.flops = 2.0 * N;
    c.accumulation_length = N;
    c.flops_formula = "2*N";
    c.bytes = [](double e) { return (2.0 * N + 1) * e; };
    c.bytes_formula = "(2*N + 1)*elem";
    out.push_back(c);
  }
  {
    static constexpr int64_t M = 1024, N = 1024;
    CheckDef c = make("outer", "1024 x 1024");
    c.inputs = [] { return Tensors{randn64({M}), randn64({N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::outer(in[0], in[1]); };
    c.flops = static_cast<double>(M) * N;
    c.flops_formula = "M*N";
    c.bytes = [](double e) { return (M + N + M * N) * e; };
    c.bytes_formula = "(M + N + M*N)*elem";
    out.push_back(c);
  }
  {
    // Integer GEMM: exact. Values small enough that float64 holds every sum.
    static constexpr int64_t M = 256, N = 256, K = 256;
    CheckDef c = make("matmul_int", "256x256 @ 256x256", {at::kInt, at::kLong});
    c.inputs = [] {
      return Tensors{(randint64({M, K}, 256) - 128).to(at::kDouble),
                     (randint64({K, N}, 256) - 128).to(at::kDouble)};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::matmul(in[0], in[1]); };
    c.verify = Verify::exact;
    gemm_work(c, M, N, K);
    out.push_back(c);
  }
  {
    // int8 x int8 -> int32 (torch._int_mm), the quantised-inference GEMM.
    static constexpr int64_t M = 256, N = 256, K = 512;
    CheckDef c = make("int8_mm", "256x512 @ 512x256 -> int32", {at::kChar});
    c.inputs = [] {
      return Tensors{(randint64({M, K}, 256) - 128).to(at::kChar),
                     (randint64({K, N}, 256) - 128).to(at::kChar)};
    };
#if ACCEL_TORCH_AT_LEAST(2, 2)
    c.op = [](const Tensors& in, const OpEnv& env) {
      // The reference run computes the same sums in int64.
      if (env.dtype == at::kDouble) return at::matmul(in[0].to(at::kLong), in[1].to(at::kLong));
      return at::_int_mm(in[0], in[1]);
    };
#else
    c.op = [](const Tensors& in, const OpEnv&) { return in[0]; };
    c.available = [] { return std::string("at::_int_mm needs torch >= 2.2"); };
#endif
    c.verify = Verify::exact;
    c.flops = 2.0 * M * N * K;
    c.flops_formula = "2*M*N*K (int8 ops)";
    c.bytes = [](double) { return M * K + K * N + 4.0 * M * N; };
    c.bytes_formula = "M*K + K*N + 4*M*N";
    out.push_back(c);
  }

  // ---- decompositions and solvers, fp32 only (fp16/bf16 have no solver
  // kernels; fp64 is rarely fast on GPUs). Non-unique outputs are verified
  // through invariants: singular values and eigenvalues, not vectors; Q*R and
  // Q^T*Q, not Q.
  static constexpr int64_t n = 256;
  const double n3 = static_cast<double>(n) * n * n;
  {
    CheckDef c = make("linalg_solve", "256x256 \\ 256x64", kFp32);
    c.inputs = [] { return Tensors{well_conditioned(n), randn64({n, 64})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_solve(in[0], in[1]); };
    c.flops = 2.0 / 3.0 * n3 + 2.0 * n * n * 64;
    c.flops_formula = "2/3*n^3 + 2*n^2*k (LU + solves)";
    c.bytes = [](double e) { return (n * n + 2.0 * n * 64) * e; };
    c.bytes_formula = "(n^2 + 2*n*k)*elem";
    out.push_back(c);
  }
  {
    CheckDef c = make("linalg_inv", "256x256", kFp32);
    c.inputs = [] { return Tensors{well_conditioned(n)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_inv(in[0]); };
    c.flops = 2.0 * n3;
    c.flops_formula = "2*n^3";
    c.bytes = [](double e) { return 2.0 * n * n * e; };
    c.bytes_formula = "2*n^2*elem";
    out.push_back(c);
  }
  {
    // The Cholesky factor of an SPD matrix is unique (positive diagonal).
    CheckDef c = make("linalg_cholesky", "256x256 SPD", kFp32);
    c.inputs = [] { return Tensors{spd(n)}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_cholesky(in[0]); };
    c.flops = n3 / 3.0;
    c.flops_formula = "n^3/3";
    c.bytes = [](double e) { return 2.0 * n * n * e; };
    c.bytes_formula = "2*n^2*elem";
    out.push_back(c);
  }
  {
    // Q's column signs are not unique: check Q*R (= A) and Q^T*Q (= I).
    static constexpr int64_t m = 512, k = 128;
    CheckDef c = make("linalg_qr", "512x128 reduced: [Q*R; Q^T*Q]", kFp32);
    c.inputs = [] { return Tensors{randn64({m, k})}; };
    c.op = [](const Tensors& in, const OpEnv&) {
      auto qr = at::linalg_qr(in[0], "reduced");
      const at::Tensor& q = std::get<0>(qr);
      return at::cat({q.matmul(std::get<1>(qr)), q.t().matmul(q)}, 0);
    };
    c.flops = 2.0 * m * k * k - 2.0 / 3.0 * k * k * k + 2.0 * m * k * k + 2.0 * m * k * k;
    c.flops_formula = "2*m*k^2 - 2/3*k^3 (QR) + 4*m*k^2 (checks)";
    c.bytes = [](double e) { return (2.0 * m * k + k * k) * e; };
    c.bytes_formula = "(2*m*k + k^2)*elem";
    out.push_back(c);
  }
  {
    CheckDef c = make("linalg_svdvals", "256x256: singular values", kFp32);
    c.inputs = [] { return Tensors{randn64({n, n})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_svdvals(in[0]); };
    c.flops = 8.0 / 3.0 * n3;
    c.flops_formula = "8/3*n^3 (bidiagonalisation)";
    c.bytes = [](double e) { return (n * n + n) * e; };
    c.bytes_formula = "(n^2 + n)*elem";
    out.push_back(c);
  }
  {
    // Eigenvectors are not unique: compare eigenvalues.
    CheckDef c = make("linalg_eigvalsh", "256x256 symmetric: eigenvalues", kFp32);
    c.inputs = [] {
      const at::Tensor a = randn64({n, n});
      return Tensors{(a + a.t()) * 0.5};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_eigvalsh(in[0], "L"); };
    c.flops = 4.0 / 3.0 * n3;
    c.flops_formula = "4/3*n^3 (tridiagonalisation)";
    c.bytes = [](double e) { return (n * n + n) * e; };
    c.bytes_formula = "(n^2 + n)*elem";
    out.push_back(c);
  }
  {
    // Batched small determinants, near 1 so that none under- or overflows.
    static constexpr int64_t B = 1024, d = 16;
    CheckDef c = make("linalg_det", "1024 x 16x16", kFp32);
    c.inputs = [] {
      return Tensors{at::eye(d, at::TensorOptions().dtype(at::kDouble)).expand({B, d, d}) +
                     0.1 * randn64({B, d, d})};
    };
    c.op = [](const Tensors& in, const OpEnv&) { return at::linalg_det(in[0]); };
    c.flops = B * 2.0 / 3.0 * d * d * d;
    c.flops_formula = "B*2/3*d^3 (LU)";
    c.bytes = [](double e) { return B * (d * d + 1.0) * e; };
    c.bytes_formula = "B*(d^2 + 1)*elem";
    out.push_back(c);
  }
  {
    // Overdetermined full-rank least squares: the solution is unique.
    static constexpr int64_t m = 512, k = 128, r = 16;
    CheckDef c = make("linalg_lstsq", "512x128 \\ 512x16", kFp32);
    c.inputs = [] { return Tensors{randn64({m, k}), randn64({m, r})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return std::get<0>(at::linalg_lstsq(in[0], in[1])); };
    c.flops = 2.0 * m * k * k - 2.0 / 3.0 * k * k * k + 4.0 * m * k * r;
    c.flops_formula = "2*m*k^2 - 2/3*k^3 + 4*m*k*r (QR + apply)";
    c.bytes = [](double e) { return (m * k + m * r + k * r) * e; };
    c.bytes_formula = "(m*k + m*r + k*r)*elem";
    out.push_back(c);
  }
}

}  // namespace accel::engine
