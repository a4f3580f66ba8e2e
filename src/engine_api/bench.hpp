// Microbenchmarks (`accel-doctor bench`), torch-free API.
//
// Groups, each a table of rows (engines/torch/bench.cpp):
//  gemm      C = A @ B by dtype (fp32 with TF32 off and on, fp16, bf16, int8),
//            square 256..8192 and LLM-shaped (M x N x K); TFLOP/s = 2MNK / t.
//  memory    device bandwidth: copy (bytes read + written), triad c = a + 2b
//            (3 streams), reduction (1 stream); buffers of 1 GiB on large
//            GPUs (256 MiB elsewhere), alternating between two sets so no
//            cache serves a repeat; GB/s = bytes / t.
//  transfer  host<->device copies, 1 MiB to 1 GiB, pageable and pinned.
//  launch    per-op cost of tiny asynchronous ops, the synchronise round trip,
//            and the host-side cost of one eager op (µs).
// Every row uses the engine's one timer (median and IQR of its samples) on
// random inputs, and checks its result (GEMM: a block of C against a float64
// CPU product; copies: equality).
// Keys: "bench/<device type>/<group>/<name>/<dtype>/<shape>", stable across
// machines and driver versions.
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/machine_context.hpp"
#include "engine_api/isolation.hpp"

namespace accel::engine {

struct BenchOptions {
  std::string device = "cpu";        ///< the measured device, e.g. "cuda:0"
  bool quick = false;                ///< fewer sizes, shorter timing budget
  std::vector<std::string> filters;  ///< by group, name, dtype or key part
  bool cpu_twin = true;              ///< also GEMM and bandwidth on the CPU (device vs CPU table)
  bool isolate = true;
  double item_timeout_s = 300;
  MachineContext machine;
};

// The JSON form the engine protocol carries (as OpsOptions').
ACCEL_JSON_DECLARE(BenchOptions)

}  // namespace accel::engine
