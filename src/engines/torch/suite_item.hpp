// The frame of one item of the bench, llm and train suites (WorkerSuite::run):
// what every item's result gets whatever the item measures. Engine-internal.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/evidence.hpp"
#include "engines/torch/torch_util.hpp"

namespace accel::engine {

/// Runs `body` on `r` (a result from start_result) on `device`: the result
/// gets the device, the warnings torch raised and the wall time from
/// `wall0`. An exception of `body` becomes `error` with the message's first
/// line as reason and error, and no timing; `on_error`, when given, then
/// refines it (another status, evidence) and frees what the item held.
Result run_suite_item(
    Result r, const c10::Device& device, std::chrono::steady_clock::time_point wall0,
    const std::function<void(Result&)>& body,
    const std::function<void(Result&, const std::exception&, const std::string& message)>& on_error = {});

/// Frees the device memory torch's caching allocator holds (after an item
/// failed, an out-of-memory above all); nothing on the CPU.
void release_device_memory(const c10::Device& device);

}  // namespace accel::engine
