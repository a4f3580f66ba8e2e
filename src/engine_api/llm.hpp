// LLM-shaped workloads (`accel-doctor llm`), torch-free API.
//
// A Llama-family decoder (engines/torch/llm/model.hpp) with random weights of a
// preset's real shapes, or a Hugging Face checkpoint (--weights), measured
// the way llama-bench names it:
//   pp<P>        prefill of P tokens: tokens/s, time to first token (TTFT),
//                TFLOP/s and % of the GEMM ceiling
//   tg<G>@d<D>   G greedy decode steps after D tokens of context: tokens/s,
//                per-token latency p50/p90, bytes read per step (weights + KV
//                cache) and % of the measured memory bandwidth, device time
//                by class and the device idle fraction (launch-bound or not)
//   .../graph    the same decode replayed from a CUDA/HIP graph
//   correctness  cached decode vs full recompute, greedy reproducibility
// The grid over batch, prompt length and new tokens is a cartesian product.
// With a GPU target a smaller preset also runs on the device and the CPU
// (the device-vs-CPU speed-up).
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/machine_context.hpp"
#include "engine_api/isolation.hpp"

namespace accel::engine {

struct LlmOptions {
  std::string device = "cpu";
  std::string preset;              ///< empty: llama-3.2-1b on a GPU, tiny (quick) or qwen2.5-0.5b on the CPU
  std::string weights_dir;         ///< a Hugging Face checkpoint instead of random weights
  std::string dtype;               ///< fp32, fp16, bf16; empty: bf16 on a GPU, fp32 on the CPU
  std::string attention = "auto";  ///< sdpa, math, auto (sdpa when this torch has it)
  /// The SDPA backend: auto (torch's choice), flash, efficient, cudnn, math
  /// (see select_sdpa_backend); a backend that cannot run a row fails it.
  std::string sdpa_backend = "auto";
  std::vector<int> batches{1};
  std::vector<int> prompts;  ///< empty: {128, 512} ({128} quick)
  std::vector<int> gens;     ///< empty: {128} ({32} quick)
  bool graphs = true;        ///< graph-replay decode where the backend has graphs
  bool cpu_compare = true;   ///< smaller preset on device and CPU for the speed-up
  std::string cpu_preset;    ///< empty: tiny (quick) or qwen2.5-0.5b
  bool quick = false;
  bool isolate = true;
  double item_timeout_s = 600;
  MachineContext machine;
  /// Bench rows already measured in this run (the default run's bench
  /// phase): the GEMM and memory ceilings the rows are drawn against are
  /// taken from these by key (llm_ceiling_keys); missing ones are measured
  /// by run_llm with the bench suite first.
  std::vector<Result> ceilings;
};

// The JSON form the engine protocol carries (as OpsOptions'); reading it
// keeps unresolved fields unresolved (resolve_llm_options resolves them).
ACCEL_JSON_DECLARE(LlmOptions)

}  // namespace accel::engine
