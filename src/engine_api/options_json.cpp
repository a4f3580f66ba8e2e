// JSON (de)serialisers of the bench, llm and train suites' options (engine_api/bench.hpp, llm.hpp,
// train.hpp), declared there with ACCEL_JSON_DECLARE (core/json.hpp says why they are not inline).
#include "engine_api/bench.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/train.hpp"

namespace accel::engine {
ACCEL_JSON_DEFINE(BenchOptions, device, quick, filters, cpu_twin, isolate, item_timeout_s, machine)
}  // namespace accel::engine
namespace accel::engine {
ACCEL_JSON_DEFINE(LlmOptions, device, preset, weights_dir, dtype, attention, sdpa_backend, batches, prompts,
                  gens, graphs, cpu_compare, cpu_preset, quick, isolate, item_timeout_s, machine, ceilings)
}  // namespace accel::engine
namespace accel::engine {
ACCEL_JSON_DEFINE(TrainOptions, device, models, precisions, batches, steps, data_dir, filters, sweep,
                  sweep_min, sweep_max, item_cost, cpu_compare, inject_oom_above_bytes, quick, isolate,
                  item_timeout_s, machine)
}  // namespace accel::engine
