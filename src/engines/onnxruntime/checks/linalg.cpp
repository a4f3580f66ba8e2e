// Linear algebra: MatMul, Gemm, batched MatMul, GEMV, Einsum.
#include "engines/onnxruntime/checks/check.hpp"

#include <fmt/format.h>

namespace accel::ort {

void add_linalg_checks(std::vector<CheckDef>& out) {
  out.push_back({"matmul", "linalg", float_dtypes(), "2*N^3", "3*N^2*elem", [](Build& b) {
                   const std::int64_t n = b.size(1024, 256);
                   const auto a = b.input("a", {n, n});
                   const auto w = b.weight("w", {n, n}, 1.0 / 16);
                   b.output(b.node("MatMul", {a, w}), {n, n});
                   b.flops = 2.0 * n * n * n;
                   b.bytes = b.elem_bytes(3.0 * n * n);
                   b.shape = fmt::format("{0}x{0} @ {0}x{0}", n);
                   b.accumulation_length = n;
                 }});
  out.push_back(
      {"matmul_batched", "linalg", float_dtypes(), "2*B*M*K*N", "B*(M*K+K*N+M*N)*elem", [](Build& b) {
         const std::int64_t B = 8, m = b.size(256, 64), k = b.size(256, 64), n = b.size(256, 64);
         const auto x = b.input("a", {B, m, k});
         const auto y = b.input("b", {B, k, n});
         b.output(b.node("MatMul", {x, y}), {B, m, n});
         b.flops = 2.0 * B * m * k * n;
         b.bytes = b.elem_bytes(B * (m * k + k * n + m * n));
         b.shape = fmt::format("{}x{}x{} @ {}x{}x{}", B, m, k, B, k, n);
         b.accumulation_length = k;
       }});
  out.push_back({"gemv", "linalg", float_dtypes(), "2*M*K", "(M*K+K+M)*elem", [](Build& b) {
                   const std::int64_t m = b.size(4096, 512), k = b.size(4096, 512);
                   const auto x = b.input("x", {1, k});
                   const auto w = b.weight("w", {k, m}, 1.0 / 32);
                   b.output(b.node("MatMul", {x, w}), {1, m});
                   b.flops = 2.0 * m * k;
                   b.bytes = b.elem_bytes(m * k + k + m);
                   b.shape = fmt::format("1x{} @ {}x{}", k, k, m);
                   b.accumulation_length = k;
                 }});
  out.push_back(
      {"gemm_bias_transb", "linalg", float_dtypes(), "2*M*K*N + M*N", "(M*K+N*K+N+M*N)*elem", [](Build& b) {
         const std::int64_t m = b.size(512, 128), k = b.size(1024, 256), n = b.size(768, 192);
         const auto x = b.input("x", {m, k});
         const auto w = b.weight("w", {n, k}, 1.0 / 16);
         const auto c = b.weight("bias", {n});
         b.output(b.node("Gemm", {x, w, c}, {Attribute::of("transB", 1)}), {m, n});
         b.flops = 2.0 * m * k * n + m * n;
         b.bytes = b.elem_bytes(m * k + n * k + n + m * n);
         b.shape = fmt::format("{}x{} @ ({}x{})^T + {}", m, k, n, k, n);
         b.accumulation_length = k;
       }});
  out.push_back({"einsum_bmm", "linalg", float_dtypes(), "2*B*M*K*N", "B*(M*K+K*N+M*N)*elem", [](Build& b) {
                   const std::int64_t B = 4, m = b.size(256, 64), k = b.size(128, 32), n = b.size(256, 64);
                   const auto x = b.input("a", {B, m, k});
                   const auto y = b.input("b", {B, k, n});
                   b.output(b.node("Einsum", {x, y}, {Attribute::of("equation", "bik,bkj->bij")}), {B, m, n});
                   b.flops = 2.0 * B * m * k * n;
                   b.bytes = b.elem_bytes(B * (m * k + k * n + m * n));
                   b.shape = fmt::format("einsum bik,bkj->bij {}x{}x{}, {}x{}x{}", B, m, k, B, k, n);
                   b.accumulation_length = k;
                 }});
  out.push_back({"einsum_outer", "linalg", float_dtypes(), "M*N", "(M+N+M*N)*elem", [](Build& b) {
                   const std::int64_t m = b.size(2048, 256), n = b.size(2048, 256);
                   const auto x = b.input("a", {m});
                   const auto y = b.input("b", {n});
                   b.output(b.node("Einsum", {x, y}, {Attribute::of("equation", "i,j->ij")}), {m, n});
                   b.flops = 1.0 * m * n;
                   b.bytes = b.elem_bytes(m + n + m * n);
                   b.shape = fmt::format("einsum i,j->ij {}, {}", m, n);
                 }});
}

}  // namespace accel::ort
