#include "engines/onnxruntime/session.hpp"

#include <fmt/format.h>

#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engines/onnxruntime/onnx_writer.hpp"

namespace accel::ort {

namespace {

template <class T>
Owned<T> own(T* p, void(ACCEL_ORT_CALL* fn)(T*)) {
  return Owned<T>(p, Releaser<T>{fn});
}

/// A function the runtime's API version lacks: a clear error, not a null call.
template <class F>
F need(F f, const char* name, const Runtime& rt) {
  if (!f) {
    throw OrtError(abi::ORT_NOT_IMPLEMENTED,
                   fmt::format("ONNX Runtime {} (API {}) has no {}", rt.version(), rt.api_version(), name));
  }
  return f;
}
#define ACCEL_NEED(rt, name) need((rt).api().name, #name, (rt))

std::basic_string<abi::OrtChar> ort_path(const std::string& utf8) {
#ifdef _WIN32
  return std::filesystem::u8path(utf8).wstring();
#else
  return utf8;
#endif
}

Owned<abi::OrtValue> make_tensor(const Runtime& rt, const TensorSpec& spec, const std::uint8_t* data) {
  const abi::Api& a = rt.api();
  abi::OrtAllocator* alloc = nullptr;
  rt.check(a.GetAllocatorWithDefaultOptions(&alloc));
  abi::OrtValue* v = nullptr;
  rt.check(a.CreateTensorAsOrtValue(alloc, spec.dims.data(), spec.dims.size(),
                                    static_cast<abi::ONNXTensorElementDataType>(spec.dtype), &v));
  auto value = own(v, a.ReleaseValue);
  void* p = nullptr;
  rt.check(a.GetTensorMutableData(value.get(), &p));
  if (spec.bytes() > 0) std::memcpy(p, data, spec.bytes());
  return value;
}

Owned<abi::OrtValueInfo> value_info(const Runtime& rt, const abi::ModelEditorApi& ed, const TensorSpec& t) {
  const abi::Api& a = rt.api();
  abi::OrtTensorTypeAndShapeInfo* info = nullptr;
  rt.check(a.CreateTensorTypeAndShapeInfo(&info));
  auto info_owned = own(info, a.ReleaseTensorTypeAndShapeInfo);
  rt.check(a.SetTensorElementType(info, static_cast<abi::ONNXTensorElementDataType>(t.dtype)));
  rt.check(a.SetDimensions(info, t.dims.data(), t.dims.size()));
  abi::OrtTypeInfo* type = nullptr;
  rt.check(ed.CreateTensorTypeInfo(info, &type));
  auto type_owned = own(type, a.ReleaseTypeInfo);
  abi::OrtValueInfo* vi = nullptr;
  rt.check(ed.CreateValueInfo(t.name.c_str(), type, &vi));
  return own(vi, a.ReleaseValueInfo);
}

Owned<abi::OrtOpAttr> op_attr(const Runtime& rt, const Attribute& at) {
  const abi::Api& a = rt.api();
  abi::OrtOpAttr* out = nullptr;
  switch (at.kind) {
    case Attribute::Kind::integer:
      rt.check(a.CreateOpAttr(at.name.c_str(), &at.i, 1, abi::ORT_OP_ATTR_INT, &out));
      break;
    case Attribute::Kind::real:
      rt.check(a.CreateOpAttr(at.name.c_str(), &at.f, 1, abi::ORT_OP_ATTR_FLOAT, &out));
      break;
    case Attribute::Kind::text:
      rt.check(a.CreateOpAttr(at.name.c_str(), at.s.c_str(), static_cast<int>(at.s.size()),
                              abi::ORT_OP_ATTR_STRING, &out));
      break;
    case Attribute::Kind::integers:
      rt.check(a.CreateOpAttr(at.name.c_str(), at.ints.data(), static_cast<int>(at.ints.size()),
                              abi::ORT_OP_ATTR_INTS, &out));
      break;
    case Attribute::Kind::reals:
      rt.check(a.CreateOpAttr(at.name.c_str(), at.floats.data(), static_cast<int>(at.floats.size()),
                              abi::ORT_OP_ATTR_FLOATS, &out));
      break;
  }
  return own(out, a.ReleaseOpAttr);
}

std::vector<const char*> c_strings(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(s.c_str());
  return out;
}

Owned<abi::OrtModel> build_with_editor(const Runtime& rt, const Graph& g) {
  const abi::Api& a = rt.api();
  const abi::ModelEditorApi& ed = *rt.editor();
  abi::OrtGraph* graph_raw = nullptr;
  rt.check(ed.CreateGraph(&graph_raw));
  auto graph = own(graph_raw, a.ReleaseGraph);

  // Inputs and outputs: the graph takes the value infos on success.
  auto set_values = [&](const std::vector<TensorSpec>& specs, bool inputs) {
    std::vector<Owned<abi::OrtValueInfo>> owned;
    std::vector<abi::OrtValueInfo*> raw;
    for (const auto& t : specs) {
      owned.push_back(value_info(rt, ed, t));
      raw.push_back(owned.back().get());
    }
    rt.check(inputs ? ed.SetGraphInputs(graph.get(), raw.data(), raw.size())
                    : ed.SetGraphOutputs(graph.get(), raw.data(), raw.size()));
    for (auto& o : owned) (void)o.release();
  };
  set_values(g.inputs, true);
  set_values(g.outputs, false);

  for (const auto& init : g.initializers) {
    auto value = make_tensor(rt, init.spec, init.data.data());
    rt.check(ed.AddInitializerToGraph(graph.get(), init.spec.name.c_str(), value.get(), false));
    (void)value.release();
  }
  for (const auto& n : g.nodes) {
    std::vector<Owned<abi::OrtOpAttr>> attrs;
    std::vector<abi::OrtOpAttr*> raw_attrs;
    for (const auto& at : n.attributes) {
      attrs.push_back(op_attr(rt, at));
      raw_attrs.push_back(attrs.back().get());
    }
    const auto ins = c_strings(n.inputs);
    const auto outs = c_strings(n.outputs);
    abi::OrtNode* node_raw = nullptr;
    rt.check(ed.CreateNode(n.op.c_str(), n.domain.c_str(), n.name.c_str(), ins.data(), ins.size(),
                           outs.data(), outs.size(), raw_attrs.empty() ? nullptr : raw_attrs.data(),
                           raw_attrs.size(), &node_raw));
    // Some runtimes copy the attributes, others (1.22-1.30) take them and
    // null our pointers: release only what is still ours.
    for (std::size_t i = 0; i < attrs.size(); ++i) {
      if (raw_attrs[i] == nullptr) (void)attrs[i].release();
    }
    auto node = own(node_raw, a.ReleaseNode);
    rt.check(ed.AddNodeToGraph(graph.get(), node.get()));
    (void)node.release();
  }

  std::vector<std::string> domains;
  std::vector<int> versions;
  for (const auto& [d, v] : g.opsets) {
    domains.push_back(d);
    versions.push_back(v);
  }
  const auto dom = c_strings(domains);
  abi::OrtModel* model_raw = nullptr;
  rt.check(ed.CreateModel(dom.data(), versions.data(), dom.size(), &model_raw));
  auto model = own(model_raw, a.ReleaseModel);
  rt.check(ed.AddGraphToModel(model.get(), graph.get()));
  (void)graph.release();
  return model;
}

void append_provider(const Env& env, abi::OrtSessionOptions* opts, const ProviderChoice& p) {
  const Runtime& rt = env.runtime();
  const abi::Api& a = rt.api();
  if (p.ep == "CPUExecutionProvider") return;  // the default, always last in line
  if (p.ep_device) {
    rt.check(ACCEL_NEED(rt, SessionOptionsAppendExecutionProvider_V2)(opts, env.get(), &p.ep_device, 1,
                                                                      nullptr, nullptr, 0));
    return;
  }
  const std::string id = std::to_string(p.device_id);
  if (p.ep == "CUDAExecutionProvider") {
    abi::OrtCUDAProviderOptionsV2* cuda = nullptr;
    rt.check(ACCEL_NEED(rt, CreateCUDAProviderOptions)(&cuda));
    auto owned = own(cuda, a.ReleaseCUDAProviderOptions);
    const char* keys[] = {"device_id"};
    const char* vals[] = {id.c_str()};
    rt.check(a.UpdateCUDAProviderOptions(cuda, keys, vals, 1));
    rt.check(ACCEL_NEED(rt, SessionOptionsAppendExecutionProvider_CUDA_V2)(opts, cuda));
    return;
  }
  // The generic append knows DML (device_id), WebGPU, OpenVINO, QNN, ...
  // by a short name; DirectML also has its exported legacy function.
  std::string short_name = p.ep;
  if (const auto pos = short_name.find("ExecutionProvider"); pos != std::string::npos) short_name.resize(pos);
  if (short_name == "Dml") short_name = "DML";
  std::vector<const char*> keys, vals;
  if (short_name == "DML") {
    keys.push_back("device_id");
    vals.push_back(id.c_str());
  }
  abi::OrtStatus* st = ACCEL_NEED(rt, SessionOptionsAppendExecutionProvider)(
      opts, short_name.c_str(), keys.data(), vals.data(), keys.size());
  if (st && short_name == "DML") {
    using AppendDml = abi::OrtStatus*(ACCEL_ORT_CALL*)(abi::OrtSessionOptions*, int);
    if (auto legacy =
            reinterpret_cast<AppendDml>(rt.symbol("OrtSessionOptionsAppendExecutionProvider_DML"))) {
      a.ReleaseStatus(st);
      st = legacy(opts, p.device_id);
    }
  }
  rt.check(st);
}

}  // namespace

Env::Env(const Runtime& rt) : rt_(&rt) {
  abi::OrtEnv* e = nullptr;
  // FATAL only: every error reaches us as a status (and its message in the
  // result); the runtime's own error log would print each one again.
  rt.check(rt.api().CreateEnv(abi::ORT_LOGGING_LEVEL_FATAL, "accel-doctor", &e));
  env_ = own(e, rt.api().ReleaseEnv);
}

const char* to_string(ModelPath p) { return p == ModelPath::model_editor ? "model_editor" : "protobuf"; }

Model Model::build(const Env& env, const Graph& g, bool force_writer) {
  if (const std::string problems = validate(g); !problems.empty()) {
    throw std::invalid_argument("malformed check graph: " + problems);
  }
  Model m;
  for (const auto& t : g.inputs) m.input_names_.push_back(t.name);
  for (const auto& t : g.outputs) m.output_names_.push_back(t.name);
  const Runtime& rt = env.runtime();
  if (rt.editor() && !force_writer) {
    m.model_ = build_with_editor(rt, g);
    m.path_ = ModelPath::model_editor;
  } else {
    m.bytes_ = write_onnx_model(g);
    m.path_ = ModelPath::protobuf;
  }
  return m;
}

Session Session::create(const Env& env, const Model& model, const SessionConfig& config) {
  const Runtime& rt = env.runtime();
  const abi::Api& a = rt.api();
  abi::OrtSessionOptions* opts_raw = nullptr;
  rt.check(a.CreateSessionOptions(&opts_raw));
  auto opts = own(opts_raw, a.ReleaseSessionOptions);
  rt.check(a.SetSessionLogSeverityLevel(opts.get(), abi::ORT_LOGGING_LEVEL_FATAL));
  rt.check(a.SetSessionGraphOptimizationLevel(opts.get(), config.optimization));
  if (config.intra_op_threads > 0) rt.check(a.SetIntraOpNumThreads(opts.get(), config.intra_op_threads));
  if (config.provider.ep == "DmlExecutionProvider") {
    // The DirectML provider requires both (DirectML-ExecutionProvider docs).
    rt.check(a.DisableMemPattern(opts.get()));
    rt.check(a.SetSessionExecutionMode(opts.get(), abi::ORT_SEQUENTIAL));
  }
  if (config.profile) {
    const auto prefix = ort_path(config.profile_prefix);
    rt.check(a.EnableProfiling(opts.get(), prefix.c_str()));
  }
  if (config.disable_cpu_fallback) {
    rt.check(a.AddSessionConfigEntry(opts.get(), "session.disable_cpu_ep_fallback", "1"));
  }
  append_provider(env, opts.get(), config.provider);

  abi::OrtSession* s = nullptr;
  if (model.path() == ModelPath::model_editor) {
    rt.check(rt.editor()->CreateSessionFromModel(env.get(), model.editor_model(), opts.get(), &s));
  } else {
    rt.check(a.CreateSessionFromArray(env.get(), model.bytes().data(), model.bytes().size(), opts.get(), &s));
  }
  Session session;
  session.env_ = &env;
  session.session_ = own(s, a.ReleaseSession);
  session.profiling_ = config.profile;
  session.input_names_ = model.input_names();
  session.output_names_ = model.output_names();
  abi::OrtMemoryInfo* info = nullptr;
  rt.check(a.CreateCpuMemoryInfo(abi::OrtArenaAllocator, abi::OrtMemTypeDefault, &info));
  session.cpu_info_ = own(info, a.ReleaseMemoryInfo);
  return session;
}

void Session::bind_inputs(const std::vector<HostTensor>& inputs) {
  const Runtime& rt = env_->runtime();
  input_values_.clear();
  for (const auto& name : input_names_) {
    const HostTensor* t = nullptr;
    for (const auto& in : inputs) {
      if (in.spec.name == name) t = &in;
    }
    if (!t) throw std::invalid_argument("no data for the model input '" + name + "'");
    abi::OrtValue* v = nullptr;
    // The runtime reads our buffer in place (no copy): it must outlive the runs.
    rt.check(rt.api().CreateTensorWithDataAsOrtValue(
        cpu_info_.get(), const_cast<std::uint8_t*>(t->data.data()), t->data.size(), t->spec.dims.data(),
        t->spec.dims.size(), static_cast<abi::ONNXTensorElementDataType>(t->spec.dtype), &v));
    input_values_.push_back(own(v, rt.api().ReleaseValue));
  }
}

void Session::run() {
  const Runtime& rt = env_->runtime();
  owned_outputs_.clear();
  outputs_.assign(output_names_.size(), nullptr);
  const auto in_names = c_strings(input_names_);
  const auto out_names = c_strings(output_names_);
  std::vector<const abi::OrtValue*> ins;
  for (const auto& v : input_values_) ins.push_back(v.get());
  rt.check(rt.api().Run(session_.get(), nullptr, in_names.data(), ins.data(), ins.size(), out_names.data(),
                        out_names.size(), outputs_.data()));
  for (auto* v : outputs_) owned_outputs_.push_back(own(v, rt.api().ReleaseValue));
}

std::vector<HostTensor> Session::outputs() const {
  const Runtime& rt = env_->runtime();
  const abi::Api& a = rt.api();
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < owned_outputs_.size(); ++i) {
    abi::OrtValue* v = owned_outputs_[i].get();
    abi::OrtTensorTypeAndShapeInfo* info_raw = nullptr;
    rt.check(a.GetTensorTypeAndShape(v, &info_raw));
    auto info = own(info_raw, a.ReleaseTensorTypeAndShapeInfo);
    abi::ONNXTensorElementDataType type{};
    rt.check(a.GetTensorElementType(info.get(), &type));
    std::size_t rank = 0;
    rt.check(a.GetDimensionsCount(info.get(), &rank));
    HostTensor t;
    t.spec.name = output_names_[i];
    t.spec.dtype = static_cast<DType>(type);
    t.spec.dims.resize(rank);
    rt.check(a.GetDimensions(info.get(), t.spec.dims.data(), rank));
    std::size_t count = 0;
    rt.check(a.GetTensorShapeElementCount(info.get(), &count));
    void* p = nullptr;
    rt.check(a.GetTensorMutableData(v, &p));
    const std::size_t bytes = count * element_size(t.spec.dtype);
    t.data.assign(static_cast<const std::uint8_t*>(p), static_cast<const std::uint8_t*>(p) + bytes);
    out.push_back(std::move(t));
  }
  return out;
}

std::string Session::end_profiling() {
  if (!profiling_) return {};
  profiling_ = false;
  const Runtime& rt = env_->runtime();
  abi::OrtAllocator* alloc = nullptr;
  rt.check(rt.api().GetAllocatorWithDefaultOptions(&alloc));
  char* path = nullptr;
  rt.check(rt.api().SessionEndProfiling(session_.get(), alloc, &path));
  std::string out = path ? path : "";
  if (path) rt.check(rt.api().AllocatorFree(alloc, path));
  return out;
}

std::size_t Session::input_count() const {
  std::size_t n = 0;
  env_->runtime().check(env_->runtime().api().SessionGetInputCount(session_.get(), &n));
  return n;
}

std::size_t Session::output_count() const {
  std::size_t n = 0;
  env_->runtime().check(env_->runtime().api().SessionGetOutputCount(session_.get(), &n));
  return n;
}

std::vector<std::string> available_providers(const Runtime& rt) {
  std::vector<std::string> out;
  char** names = nullptr;
  int n = 0;
  abi::OrtStatus* st = rt.api().GetAvailableProviders(&names, &n);
  if (st) {
    rt.api().ReleaseStatus(st);
    return out;
  }
  for (int i = 0; i < n; ++i) out.emplace_back(names[i]);
  if (abi::OrtStatus* r = rt.api().ReleaseAvailableProviders(names, n)) rt.api().ReleaseStatus(r);
  return out;
}

}  // namespace accel::ort
