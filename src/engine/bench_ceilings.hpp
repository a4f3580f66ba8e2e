// The two ceilings other suites measure before they compare against them:
// a large GEMM (TFLOP/s) and a large device copy (GB/s), both timed by the
// bench rows themselves so every suite uses the same measurement.
#pragma once

#include "core/evidence.hpp"
#include "engine/torch_util.hpp"

namespace accel::engine {

/// bench/…/gemm/square for `dtype` ("fp32", "fp16", "bf16") at n x n x n.
Result measure_gemm_ceiling(const c10::Device& device, const std::string& dtype, int64_t n, bool quick);
/// bench/…/memory/copy with the suite's rotating buffers.
Result measure_copy_ceiling(const c10::Device& device, bool quick);

}  // namespace accel::engine
