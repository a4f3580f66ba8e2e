// Training steps (`accel-doctor train`), torch-free API.
//
// Models (engines/torch/train/model.hpp), both on MNIST-shaped data: images
// float32 [B, 1, 28, 28] normalised with MNIST's mean 0.1307 and std 0.3081,
// labels int64 [B] in 0..9:
//   mlp  784-1024-1024-10 with ReLU (1.86M parameters)
//   cnn  a small residual CNN: conv-BN-ReLU stem (16 channels), then three
//        stages of one residual block each (16, 32, 64 channels; the last two
//        open with a stride-2 conv-BN-ReLU), global average pool, linear 64-10
// Data: the MNIST training set from `--data DIR` (IDX files, core/idx.hpp),
// or synthetic images of the same shape (seeded: each one of 10 fixed
// oriented gratings at a random contrast plus noise, the label derived from
// the image as the grating it matches best, so the loss can fall). It lives on the
// host (pinned when the target is a GPU) and each step copies its batch to
// the device, as a training loop with a DataLoader does.
// A step: copy the batch, forward (under autocast for fp16/bf16), cross
// entropy in fp32, backward, SGD with momentum 0.9 (lr 0.02) as
// torch.optim.SGD(foreach=True) does it, gradients set to none. fp16 adds
// a gradient scaler with torch.amp.GradScaler's ops and defaults (scale
// 2^16, growth 2 every 2000 finite steps, backoff 0.5), which reads
// found_inf on the host each step as PyTorch does.
//
// Items and keys (stable across machines):
//   train/<dev>/<model>/<prec>/b<B>            a step row: samples_per_s,
//       step_ms, tflops (estimated FLOPs: 3x the forward), per-step
//       h2d_bytes_per_step, h2d_copies_per_step, syncs_per_step and
//       host_reads_per_step (aten::item/_local_scalar_dense calls) from a
//       profiler capture of two steps, input_bytes_per_step, and the loss
//       agreement: `steps` steps from the same initial weights and data in
//       this precision and in fp32 (loss_first, loss_final, loss_final_fp32,
//       loss_final_abs_diff, loss_tolerance, loss_curve_max_abs_diff; the
//       curves in evidence), speedup_vs_fp32 on fp16/bf16 rows, and
//       peak_memory_bytes on devices with statistics.
//   train/<dev>/<model>/<prec>/b<B>/item_cost  steps timed with and without
//       a loss.item() each (item_cost_us per step and item_cost_pct).
//   train/<dev>/<model>/<prec>/sweep           batch-size sweep, doubling:
//       the throughput curve (evidence "curve"), max_batch, best batch and
//       samples/s; an out-of-memory is caught, device memory released, and
//       the sweep ends with the limit reported (evidence "limit":
//       "out_of_memory", "injected_out_of_memory" or "cap").
//   train/cpu/<model>/fp32/b<B>                the CPU twin of a GPU target's
//       first batch (throughput only): device step rows of the same model
//       and batch get `speedup` (device samples/s over CPU samples/s).
// Units: samples/s, ms, µs, bytes, as the metric names say.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/machine_context.hpp"
#include "engine_api/isolation.hpp"

namespace accel::engine {

struct TrainOptions {
  std::string device = "cpu";
  std::vector<std::string> models;      ///< mlp, cnn; empty: both
  std::vector<std::string> precisions;  ///< fp32, fp16, bf16; empty: all three
  std::vector<int> batches;          ///< step-row batch sizes; empty: 256 on a GPU, 64 on the CPU (32 quick)
  int steps = 0;                     ///< loss-agreement steps; 0: 100 (20 quick)
  std::string data_dir;              ///< MNIST IDX files; empty: synthetic data
  std::vector<std::string> filters;  ///< keep items whose key contains one of these
  bool sweep = true;                 ///< the batch-size sweep
  int sweep_min = 0;                 ///< 0: 64 on a GPU, 16 on the CPU
  int sweep_max = 0;                 ///< 0: 65536 on a GPU (16384 quick), 1024 on the CPU (128 quick)
  bool item_cost = true;             ///< the per-step loss.item() cost row
  bool cpu_compare = true;           ///< the CPU twin of a GPU target
  /// > 0: a step whose estimated (or, on devices with statistics, measured
  /// peak) bytes exceed this throws the out-of-memory error torch throws,
  /// to exercise the catch/release/report path; results say it was injected.
  std::uint64_t inject_oom_above_bytes = 0;
  bool quick = false;
  bool isolate = true;
  double item_timeout_s = 600;
  MachineContext machine;
};

// The JSON form the engine protocol carries (as OpsOptions'); reading it
// keeps unresolved fields unresolved (resolve_train_options resolves them).
ACCEL_JSON_DECLARE(TrainOptions)

}  // namespace accel::engine
