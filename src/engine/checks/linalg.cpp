// Matrix products and linear algebra: the GEMM library (cuBLAS, rocBLAS,
// hipBLASLt, the CPU BLAS) does the work.
#include "engine/checks/check.hpp"

namespace accel::engine {

void add_linalg_checks(std::vector<CheckDef>& out) {
  {
    constexpr int64_t M = 512, N = 512, K = 512;
    CheckDef c;
    c.name = "matmul";
    c.category = "linalg";
    c.dtypes = float_dtypes();
    c.shape = "512x512 @ 512x512";
    c.inputs = [] { return Tensors{randn64({M, K}), randn64({K, N})}; };
    c.op = [](const Tensors& in, const OpEnv&) { return at::matmul(in[0], in[1]); };
    c.flops = 2.0 * M * N * K;
    c.flops_formula = "2*M*N*K";
    c.bytes = [](double e) { return (M * K + K * N + M * N) * e; };
    c.bytes_formula = "(M*K + K*N + M*N)*elem";
    out.push_back(c);
  }
}

}  // namespace accel::engine
