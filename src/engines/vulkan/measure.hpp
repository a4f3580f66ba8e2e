// Inside the Vulkan ceiling engine (runtime.cpp calls these): each
// measurement on one opened device, returning finished bench rows (timing,
// work, metrics, the checksum in `accuracy`, `mismatch` when it is wrong).
// They throw VkError (gpu.hpp) when a Vulkan call fails; the caller turns that
// into the row's error.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engines/vulkan/ceiling.hpp"
#include "engines/vulkan/gpu.hpp"

namespace accel::vulkan::detail {

/// The chain kernels, peak rates of one instruction kind.
enum class ChainKind { fma_fp32, fma_fp16, dot_int8 };

/// compute/fma/fp32|fp16/chains32 (TFLOP/s) or compute/dot/int8/chains32
/// (TOPS, metric "tops": 8 integer operations per 4-wide dot product). The
/// dispatch grows until one submit lasts the target (Options).
Result measure_chains(Gpu& gpu, ChainKind kind, const Options& o);

/// memory/read/u32/large and memory/copy/u32/large over buffers of
/// memory_buffer_bytes(device, quick, llc_bytes); `sizing` says where the
/// size came from (evidence.buffer_sizing).
std::vector<Result> measure_memory(Gpu& gpu, const Options& o, std::optional<std::uint64_t> llc_bytes,
                                   const std::string& sizing);

/// transfer/h2d/u8/<size> and transfer/d2h/u8/<size> (256 MiB, 8 MiB on a software device).
std::vector<Result> measure_transfers(Gpu& gpu, const Options& o);

}  // namespace accel::vulkan::detail
