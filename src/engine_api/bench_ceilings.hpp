// The two ceilings other suites are drawn against: a large GEMM (TFLOP/s)
// and the device's memory bandwidth (GB/s). They are bench rows, measured by
// the bench suite itself (or taken from a bench phase that already ran), so
// every figure a suite quotes is a row of the same report, under its key.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel::engine {

// A bench row's key is a BenchKey (core/result_keys.hpp); these are the
// ceilings other suites look up.

/// The bench row of the GEMM ceiling for a device type ("cpu", "cuda") and
/// dtype ("fp32", "fp16", "bf16"): a square product of 512 on the CPU and
/// 4096 elsewhere (rows both the quick and the full bench have),
/// "bench/cpu/gemm/square/fp32/512x512x512".
std::string gemm_ceiling_key(const std::string& device_type, const std::string& dtype);

/// The bench rows of the memory ceiling for a device type: copy, triad and
/// reduction over rotating buffers; the best of them is the ceiling.
std::vector<std::string> memory_ceiling_keys(const std::string& device_type);

/// The row of `rows` with `key` that measured successfully, or nullptr.
const Result* find_ceiling(const std::vector<Result>& rows, const std::string& key);

/// The best memory ceiling row for a device type (highest GB/s), or nullptr.
const Result* best_memory_ceiling(const std::vector<Result>& rows, const std::string& device_type);

}  // namespace accel::engine
