// RAII over the C API objects a check uses: the environment, a model built
// from a Graph (Model Editor API, or our protobuf writer), sessions on one
// execution provider with profiling and the CPU-fallback switch, runs on
// host tensors. Every failure is an OrtError (runtime.hpp) with the
// runtime's own message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/onnxruntime/graph.hpp"
#include "engines/onnxruntime/runtime.hpp"

namespace accel::ort {

template <class T>
struct Releaser {
  void(ACCEL_ORT_CALL* fn)(T*) = nullptr;
  void operator()(T* p) const {
    if (p && fn) fn(p);
  }
};
template <class T>
using Owned = std::unique_ptr<T, Releaser<T>>;

/// One OrtEnv per process run (logging at warning level, to stderr).
class Env {
 public:
  explicit Env(const Runtime& rt);
  abi::OrtEnv* get() const { return env_.get(); }
  const Runtime& runtime() const { return *rt_; }

 private:
  const Runtime* rt_;
  Owned<abi::OrtEnv> env_;
};

/// How a model reaches the runtime.
enum class ModelPath {
  model_editor,  ///< OrtModelEditorApi: the graph built in memory (ORT >= 1.22)
  protobuf,      ///< our ONNX writer, then CreateSessionFromArray (every version)
};
const char* to_string(ModelPath p);

/// A Graph ready for sessions: an OrtModel or serialised bytes.
class Model {
 public:
  /// Builds `g` with the Model Editor when the runtime has one and
  /// `force_writer` is false, else serialises it. Throws OrtError
  /// (editor failures) or std::invalid_argument (a graph validate() rejects).
  static Model build(const Env& env, const Graph& g, bool force_writer);
  ModelPath path() const { return path_; }
  const std::string& bytes() const { return bytes_; }
  abi::OrtModel* editor_model() const { return model_.get(); }
  const std::vector<std::string>& input_names() const { return input_names_; }
  const std::vector<std::string>& output_names() const { return output_names_; }

 private:
  ModelPath path_ = ModelPath::protobuf;
  std::vector<std::string> input_names_, output_names_;
  std::string bytes_;
  Owned<abi::OrtModel> model_;
};

/// The execution provider a session asks for.
struct ProviderChoice {
  std::string ep = "CPUExecutionProvider";  ///< ONNX Runtime's name
  int device_id = 0;                        ///< DML: DXGI adapter index; CUDA: device ordinal
  /// The EP device to append through SessionOptionsAppendExecutionProvider_V2
  /// (ORT >= 1.22); null: the provider's legacy append with device_id.
  const abi::OrtEpDevice* ep_device = nullptr;
};

struct SessionConfig {
  ProviderChoice provider;
  /// Profile every run (EnableProfiling); the file is written on end_profiling().
  bool profile = false;
  std::string profile_prefix;  ///< path prefix of the profile file
  /// session.disable_cpu_ep_fallback=1: creation fails when a node would need the CPU.
  bool disable_cpu_fallback = false;
  abi::GraphOptimizationLevel optimization = abi::ORT_ENABLE_ALL;
  int intra_op_threads = 0;  ///< 0: the runtime's default
};

/// A tensor in host memory (inputs and outputs of a run).
struct HostTensor {
  TensorSpec spec;
  std::vector<std::uint8_t> data;
};

class Session {
 public:
  /// Throws OrtError (the provider cannot be appended, a kernel is missing,
  /// the CPU fallback is needed but disabled, ...).
  static Session create(const Env& env, const Model& model, const SessionConfig& config);
  /// Binds the inputs once (their memory must outlive the runs).
  void bind_inputs(const std::vector<HostTensor>& inputs);
  /// One Run on the bound inputs; the outputs stay with the session until the next run.
  void run();
  /// Copies of the outputs of the last run (names and shapes as the runtime returned them).
  std::vector<HostTensor> outputs() const;
  /// Ends profiling and returns the profile file's path ("" when not profiling).
  std::string end_profiling();
  /// Number of inputs and outputs the runtime sees (SessionGetInputCount/OutputCount).
  std::size_t input_count() const;
  std::size_t output_count() const;

 private:
  const Env* env_ = nullptr;
  Owned<abi::OrtSession> session_;
  Owned<abi::OrtMemoryInfo> cpu_info_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<Owned<abi::OrtValue>> input_values_;
  std::vector<abi::OrtValue*> outputs_;
  std::vector<Owned<abi::OrtValue>> owned_outputs_;
  bool profiling_ = false;
};

/// GetAvailableProviders (an empty list when the call fails).
std::vector<std::string> available_providers(const Runtime& rt);

}  // namespace accel::ort
