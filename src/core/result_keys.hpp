// The result keys of the suites as types: each suite builds its keys with
// `str()` and every reader takes them apart with `parse()`, so the layout of
// a key is written in one place. Torch-free: the engines build keys with
// these, the rules, reporters and suites' post-processing read them.
//
// Layouts (docs/report-schema.md describes the keys):
//   ops/<category>/<name>/<dtype>                                 OpsKey
//   bench/<device type>/<group>/<name>/<dtype>/<shape>            BenchKey
//   llm/<device type>/<preset>/<dtype>/<test>                     LlmKey
//       test: correctness | b<B>/pp<P> | b<B>/tg<G>@d<P> | b<B>/tg<G>@d<P>/graph
//   train/<device type>/<model>/<precision>/<item>                TrainKey
//       item: b<B> | b<B>/item_cost | sweep
// parse() returns nullopt for a string that is not a key of that suite.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace accel {

/// An operator check: `ops/<category>/<name>/<dtype>` ("ops/matmul/gemm/bf16").
struct OpsKey {
  std::string category, name, dtype;

  std::string str() const;
  static std::optional<OpsKey> parse(std::string_view key);
};

/// A benchmark row: `bench/<device type>/<group>/<name>/<dtype>/<shape>`
/// ("bench/cuda/gemm/square/bf16/4096x4096x4096"; the Vulkan engine's
/// device type is "vulkan", ONNX Runtime's "ort-<type>"). The shape is the
/// rest of the key (it holds no '/' in any key written so far).
struct BenchKey {
  std::string device_type, group, name, dtype, shape;

  std::string str() const;
  static std::optional<BenchKey> parse(std::string_view key);
};

/// An LLM inference item: `llm/<device type>/<preset>/<dtype>/<test>`.
struct LlmKey {
  enum class Test {
    correctness,  ///< "correctness": greedy tokens against the CPU
    prefill,      ///< "b<B>/pp<P>": a prompt of P tokens, batch B
    decode,       ///< "b<B>/tg<G>@d<P>": G new tokens after a P-token prompt
    graph,        ///< "b<B>/tg<G>@d<P>/graph": the same, replayed as a CUDA graph
  };
  std::string device_type, preset, dtype;
  Test test = Test::correctness;
  int batch = 0;   ///< B (0 for correctness)
  int prompt = 0;  ///< P (0 for correctness)
  int gen = 0;     ///< G (decode and graph; 0 otherwise)

  std::string str() const;
  static std::optional<LlmKey> parse(std::string_view key);
  /// The test's short name: "pp128", "tg32@d128" (decode and graph), "correctness".
  std::string test_name() const;
  /// The key without device type and dtype, "<preset>/<test>": what a device
  /// row and its CPU twin (which runs fp32) have in common.
  std::string twin() const;
};

/// A training item: `train/<device type>/<model>/<precision>/<item>`.
struct TrainKey {
  enum class Item {
    step,       ///< "b<B>": one training step at batch B
    item_cost,  ///< "b<B>/item_cost": the cost of .item() per step
    sweep,      ///< "sweep": the batch-size sweep
  };
  std::string device_type, model, precision;
  Item item = Item::step;
  int batch = 0;  ///< B (0 for the sweep)

  std::string str() const;
  static std::optional<TrainKey> parse(std::string_view key);
};

}  // namespace accel
