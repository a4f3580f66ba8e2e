// Every OrtApi and OrtModelEditorApi function ort_abi.hpp declares, called
// against the real runtime (ort_test_util.hpp) with an answer that only the
// right function gives: a wrong slot number or signature fails here (or
// crashes the test program, which fails it too).
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engines/onnxruntime/ort_abi.hpp"
#include "engines/onnxruntime/runtime.hpp"
#include "ort_test_util.hpp"

namespace {

using namespace accel::ort;
using namespace accel::ort::abi;

TEST(OrtAbi, SlotVersionsFollowTheVersionTable) {
  // The "End of Version N" slots of onnxruntime_c_api.cc.
  EXPECT_EQ(api_version_of_slot(0), 1);
  EXPECT_EQ(api_version_of_slot(101), 1);
  EXPECT_EQ(api_version_of_slot(110), 2);   // SessionEndProfiling
  EXPECT_EQ(api_version_of_slot(125), 4);   // GetAvailableProviders
  EXPECT_EQ(api_version_of_slot(130), 5);   // AddSessionConfigEntry
  EXPECT_EQ(api_version_of_slot(216), 12);  // SessionOptionsAppendExecutionProvider
  EXPECT_EQ(api_version_of_slot(254), 15);  // GetBuildInfoString
  EXPECT_EQ(api_version_of_slot(303), 22);  // GetEpDevices
  EXPECT_EQ(api_version_of_slot(374), 23);  // EpDevice_MemoryInfo
  EXPECT_EQ(api_version_of_slot(5000), 0);
  for (const auto& s : kApiSlots) {
    EXPECT_GT(s.since, 0) << s.name;
    EXPECT_LE(static_cast<std::uint32_t>(s.since), kNewestDeclaredApi) << s.name;
  }
}

TEST(OrtAbi, ApiVersionOfVersionString) {
  EXPECT_EQ(api_version_of("1.30.0"), 30u);
  EXPECT_EQ(api_version_of("1.22.0-dev"), 22u);
  EXPECT_EQ(api_version_of("1.9.1"), 9u);
  EXPECT_EQ(api_version_of("2.0.0"), 0u);
  EXPECT_EQ(api_version_of(""), 0u);
  EXPECT_EQ(api_version_of("1."), 0u);
}

class OrtAbiLive : public ::testing::Test {
 protected:
  std::set<std::string> called;
  void mark(const char* name) { called.insert(name); }
};

std::string message_of(const Api& a, OrtStatus* st) {
  if (!st) return "";
  std::string m = a.GetErrorMessage(st);
  a.ReleaseStatus(st);
  return m;
}

TEST_F(OrtAbiLive, EveryDeclaredFunctionAnswersAsItsSlotPromises) {
  ACCEL_NEED_ORT(lib);
  auto rt = Runtime::open(lib);
  const Api& a = rt->api();
  ASSERT_GE(rt->api_version(), 23u) << "the test runtime (1.30) has every declared slot";

  // Status.
  OrtStatus* st = a.CreateStatus(ORT_NOT_IMPLEMENTED, "probe message");
  ASSERT_NE(st, nullptr);
  EXPECT_EQ(a.GetErrorCode(st), ORT_NOT_IMPLEMENTED);
  EXPECT_STREQ(a.GetErrorMessage(st), "probe message");
  a.ReleaseStatus(st);
  for (auto n : {"CreateStatus", "GetErrorCode", "GetErrorMessage", "ReleaseStatus"}) mark(n);

  // Build info, providers.
  ASSERT_NE(a.GetBuildInfoString(), nullptr);
  EXPECT_EQ(std::string(a.GetBuildInfoString()).rfind("ORT Build Info", 0), 0u);
  mark("GetBuildInfoString");
  char** providers = nullptr;
  int n_providers = 0;
  ASSERT_EQ(message_of(a, a.GetAvailableProviders(&providers, &n_providers)), "");
  bool cpu = false;
  for (int i = 0; i < n_providers; ++i) cpu = cpu || std::string(providers[i]) == "CPUExecutionProvider";
  EXPECT_TRUE(cpu);
  EXPECT_EQ(message_of(a, a.ReleaseAvailableProviders(providers, n_providers)), "");
  mark("GetAvailableProviders");
  mark("ReleaseAvailableProviders");

  // Environment.
  OrtEnv* env = nullptr;
  ASSERT_EQ(message_of(a, a.CreateEnv(ORT_LOGGING_LEVEL_ERROR, "abi-test", &env)), "");
  mark("CreateEnv");

  // Key-value pairs.
  OrtKeyValuePairs* kv = nullptr;
  a.CreateKeyValuePairs(&kv);
  ASSERT_NE(kv, nullptr);
  a.AddKeyValuePair(kv, "device_id", "3");
  EXPECT_STREQ(a.GetKeyValue(kv, "device_id"), "3");
  EXPECT_EQ(a.GetKeyValue(kv, "absent"), nullptr);
  const char* const* keys = nullptr;
  const char* const* values = nullptr;
  std::size_t count = 0;
  a.GetKeyValuePairs(kv, &keys, &values, &count);
  ASSERT_EQ(count, 1u);
  EXPECT_STREQ(keys[0], "device_id");
  EXPECT_STREQ(values[0], "3");
  a.ReleaseKeyValuePairs(kv);
  for (auto n :
       {"CreateKeyValuePairs", "AddKeyValuePair", "GetKeyValue", "GetKeyValuePairs", "ReleaseKeyValuePairs"})
    mark(n);

  // EP devices: the CPU provider's device is always there.
  const OrtEpDevice* const* devices = nullptr;
  std::size_t n_devices = 0;
  ASSERT_EQ(message_of(a, a.GetEpDevices(env, &devices, &n_devices)), "");
  const OrtEpDevice* cpu_device = nullptr;
  for (std::size_t i = 0; i < n_devices; ++i) {
    if (std::string(a.EpDevice_EpName(devices[i])) == "CPUExecutionProvider") cpu_device = devices[i];
  }
  ASSERT_NE(cpu_device, nullptr);
  EXPECT_STREQ(a.EpDevice_EpVendor(cpu_device), "Microsoft");
  const OrtKeyValuePairs* ep_meta = a.EpDevice_EpMetadata(cpu_device);
  ASSERT_NE(ep_meta, nullptr);
  EXPECT_STREQ(a.GetKeyValue(ep_meta, "version"), rt->version().c_str());
  EXPECT_NE(a.EpDevice_EpOptions(cpu_device), nullptr);
  const OrtHardwareDevice* hw = a.EpDevice_Device(cpu_device);
  ASSERT_NE(hw, nullptr);
  EXPECT_EQ(a.HardwareDevice_Type(hw), OrtHardwareDeviceType_CPU);
  EXPECT_NE(a.HardwareDevice_VendorId(hw), 0u);
  ASSERT_NE(a.HardwareDevice_Vendor(hw), nullptr);
  EXPECT_GT(std::strlen(a.HardwareDevice_Vendor(hw)), 0u);
  (void)a.HardwareDevice_DeviceId(hw);  // 0 for a CPU: nothing to compare
  EXPECT_NE(a.HardwareDevice_Metadata(hw), nullptr);
  const OrtMemoryInfo* ep_mem = a.EpDevice_MemoryInfo(cpu_device, OrtDeviceMemoryType_DEFAULT);
  if (ep_mem) {
    const char* name = nullptr;
    ASSERT_EQ(message_of(a, a.MemoryInfoGetName(ep_mem, &name)), "");
    EXPECT_STREQ(name, "Cpu");
  }
  for (auto n :
       {"GetEpDevices", "EpDevice_EpName", "EpDevice_EpVendor", "EpDevice_EpMetadata", "EpDevice_EpOptions",
        "EpDevice_Device", "HardwareDevice_Type", "HardwareDevice_VendorId", "HardwareDevice_Vendor",
        "HardwareDevice_DeviceId", "HardwareDevice_Metadata", "EpDevice_MemoryInfo"})
    mark(n);

  // Memory info, allocator.
  OrtMemoryInfo* mem = nullptr;
  ASSERT_EQ(message_of(a, a.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem)), "");
  const char* mem_name = nullptr;
  ASSERT_EQ(message_of(a, a.MemoryInfoGetName(mem, &mem_name)), "");
  EXPECT_STREQ(mem_name, "Cpu");
  OrtAllocator* alloc = nullptr;
  ASSERT_EQ(message_of(a, a.GetAllocatorWithDefaultOptions(&alloc)), "");
  ASSERT_NE(alloc, nullptr);
  for (auto n : {"CreateCpuMemoryInfo", "MemoryInfoGetName", "GetAllocatorWithDefaultOptions"}) mark(n);

  // Tensor type info: set, then read back.
  OrtTensorTypeAndShapeInfo* info = nullptr;
  ASSERT_EQ(message_of(a, a.CreateTensorTypeAndShapeInfo(&info)), "");
  ASSERT_EQ(message_of(a, a.SetTensorElementType(info, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16)), "");
  const std::int64_t dims3[] = {2, 3, 5};
  ASSERT_EQ(message_of(a, a.SetDimensions(info, dims3, 3)), "");
  ONNXTensorElementDataType et{};
  ASSERT_EQ(message_of(a, a.GetTensorElementType(info, &et)), "");
  EXPECT_EQ(et, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16);
  std::size_t rank = 0;
  ASSERT_EQ(message_of(a, a.GetDimensionsCount(info, &rank)), "");
  EXPECT_EQ(rank, 3u);
  std::int64_t back[3] = {};
  ASSERT_EQ(message_of(a, a.GetDimensions(info, back, 3)), "");
  EXPECT_EQ(back[1], 3);
  std::size_t elements = 0;
  ASSERT_EQ(message_of(a, a.GetTensorShapeElementCount(info, &elements)), "");
  EXPECT_EQ(elements, 30u);
  for (auto n : {"CreateTensorTypeAndShapeInfo", "SetTensorElementType", "SetDimensions",
                 "GetTensorElementType", "GetDimensionsCount", "GetDimensions", "GetTensorShapeElementCount"})
    mark(n);

  // Values: one over our buffer, one the runtime allocates.
  std::vector<float> buffer = {1, 2, 3, 4, 5, 6};
  const std::int64_t dims2[] = {2, 3};
  OrtValue* ours = nullptr;
  ASSERT_EQ(message_of(a, a.CreateTensorWithDataAsOrtValue(mem, buffer.data(), buffer.size() * 4, dims2, 2,
                                                           ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &ours)),
            "");
  int is_tensor = 0;
  ASSERT_EQ(message_of(a, a.IsTensor(ours, &is_tensor)), "");
  EXPECT_EQ(is_tensor, 1);
  void* data = nullptr;
  ASSERT_EQ(message_of(a, a.GetTensorMutableData(ours, &data)), "");
  EXPECT_EQ(data, buffer.data());  // in place, not copied
  OrtTensorTypeAndShapeInfo* vinfo = nullptr;
  ASSERT_EQ(message_of(a, a.GetTensorTypeAndShape(ours, &vinfo)), "");
  ASSERT_EQ(message_of(a, a.GetTensorShapeElementCount(vinfo, &elements)), "");
  EXPECT_EQ(elements, 6u);
  a.ReleaseTensorTypeAndShapeInfo(vinfo);
  OrtValue* theirs = nullptr;
  ASSERT_EQ(
      message_of(a, a.CreateTensorAsOrtValue(alloc, dims2, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &theirs)),
      "");
  ASSERT_EQ(message_of(a, a.GetTensorMutableData(theirs, &data)), "");
  EXPECT_NE(data, buffer.data());
  for (auto n : {"CreateTensorWithDataAsOrtValue", "IsTensor", "GetTensorMutableData",
                 "GetTensorTypeAndShape", "CreateTensorAsOrtValue", "ReleaseTensorTypeAndShapeInfo"})
    mark(n);

  // The Model Editor: y = Gemm(x, w^T) + x @ ... built in memory and run.
  const ModelEditorApi* ed = rt->editor();
  ASSERT_NE(ed, nullptr);
  OrtGraph* graph = nullptr;
  ASSERT_EQ(message_of(a, ed->CreateGraph(&graph)), "");
  auto value_info = [&](const char* name, std::vector<std::int64_t> d) {
    OrtTensorTypeAndShapeInfo* ti = nullptr;
    EXPECT_EQ(message_of(a, a.CreateTensorTypeAndShapeInfo(&ti)), "");
    EXPECT_EQ(message_of(a, a.SetTensorElementType(ti, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT)), "");
    EXPECT_EQ(message_of(a, a.SetDimensions(ti, d.data(), d.size())), "");
    OrtTypeInfo* type = nullptr;
    EXPECT_EQ(message_of(a, ed->CreateTensorTypeInfo(ti, &type)), "");
    OrtValueInfo* vi = nullptr;
    EXPECT_EQ(message_of(a, ed->CreateValueInfo(name, type, &vi)), "");
    a.ReleaseTypeInfo(type);
    a.ReleaseTensorTypeAndShapeInfo(ti);
    return vi;
  };
  OrtValueInfo* inputs[] = {value_info("x", {2, 3})};
  OrtValueInfo* outputs[] = {value_info("y", {2, 2})};
  ASSERT_EQ(message_of(a, ed->SetGraphInputs(graph, inputs, 1)), "");
  ASSERT_EQ(message_of(a, ed->SetGraphOutputs(graph, outputs, 1)), "");
  // w = [[1,0,0],[0,1,1]] (2x3), used transposed: y = x @ w^T.
  OrtValue* w = nullptr;
  ASSERT_EQ(message_of(a, a.CreateTensorAsOrtValue(alloc, dims2, 2, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &w)),
            "");
  ASSERT_EQ(message_of(a, a.GetTensorMutableData(w, &data)), "");
  const float wv[] = {1, 0, 0, 0, 1, 1};
  std::memcpy(data, wv, sizeof wv);
  ASSERT_EQ(message_of(a, ed->AddInitializerToGraph(graph, "w", w, false)), "");
  const std::int64_t one = 1;
  OrtOpAttr* transb = nullptr;
  ASSERT_EQ(message_of(a, a.CreateOpAttr("transB", &one, 1, ORT_OP_ATTR_INT, &transb)), "");
  const char* node_in[] = {"x", "w"};
  const char* node_out[] = {"y"};
  OrtNode* node = nullptr;
  ASSERT_EQ(message_of(a, ed->CreateNode("Gemm", "", "gemm", node_in, 2, node_out, 1, &transb, 1, &node)),
            "");
  a.ReleaseOpAttr(transb);
  ASSERT_EQ(message_of(a, ed->AddNodeToGraph(graph, node)), "");
  const char* domains[] = {""};
  const int opsets[] = {17};
  OrtModel* model = nullptr;
  ASSERT_EQ(message_of(a, ed->CreateModel(domains, opsets, 1, &model)), "");
  ASSERT_EQ(message_of(a, ed->AddGraphToModel(model, graph)), "");
  for (auto n : {"GetModelEditorApi", "CreateOpAttr", "ReleaseOpAttr", "ReleaseTypeInfo"}) mark(n);
  for (const auto& s : kModelEditorSlots) {
    if (std::string(s.name) != "CreateSessionFromModel") mark(s.name);
  }

  // Session options: each setter, with a value only that setter refuses where it can.
  OrtSessionOptions* opts = nullptr;
  ASSERT_EQ(message_of(a, a.CreateSessionOptions(&opts)), "");
  EXPECT_EQ(message_of(a, a.SetSessionExecutionMode(opts, ORT_SEQUENTIAL)), "");
  EXPECT_EQ(message_of(a, a.DisableMemPattern(opts)), "");
  EXPECT_EQ(message_of(a, a.SetSessionLogSeverityLevel(opts, ORT_LOGGING_LEVEL_ERROR)), "");
  EXPECT_NE(
      message_of(a, a.SetSessionGraphOptimizationLevel(opts, static_cast<GraphOptimizationLevel>(1234))), "");
  EXPECT_EQ(message_of(a, a.SetSessionGraphOptimizationLevel(opts, ORT_ENABLE_ALL)), "");
  EXPECT_EQ(message_of(a, a.SetIntraOpNumThreads(opts, 1)), "");
  EXPECT_EQ(message_of(a, a.SetInterOpNumThreads(opts, 1)), "");
  EXPECT_EQ(message_of(a, a.AddSessionConfigEntry(opts, "session.disable_cpu_ep_fallback", "1")), "");
  const std::string prefix = (std::filesystem::temp_directory_path() / "accel_ort_abi_profile").string();
#ifdef _WIN32
  const std::wstring wprefix = std::filesystem::u8path(prefix).wstring();
  EXPECT_EQ(message_of(a, a.EnableProfiling(opts, wprefix.c_str())), "");
#else
  EXPECT_EQ(message_of(a, a.EnableProfiling(opts, prefix.c_str())), "");
#endif
  // The test runtimes have no DirectML (Linux) and no CUDA provider library
  // beside them: each refuses, by name. (CUDA's options object needs the
  // provider library itself on 1.30, so Update may refuse the same way.)
  auto mentions = [](std::string text, const char* what) {
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text.find(what) != std::string::npos;
  };
  const std::string dml =
      message_of(a, a.SessionOptionsAppendExecutionProvider(opts, "DML", nullptr, nullptr, 0));
  if (!dml.empty()) EXPECT_TRUE(mentions(dml, "dml")) << dml;
  OrtCUDAProviderOptionsV2* cuda = nullptr;
  const std::string cuda_create = message_of(a, a.CreateCUDAProviderOptions(&cuda));
  if (cuda) {
    const char* k[] = {"device_id"};
    const char* v[] = {"0"};
    const std::string updated = message_of(a, a.UpdateCUDAProviderOptions(cuda, k, v, 1));
    if (updated.empty()) {
      EXPECT_NE(message_of(a, a.UpdateCUDAProviderOptions(cuda, k, k, 1)), "")
          << "device_id=device_id is refused";
    } else {
      EXPECT_TRUE(mentions(updated, "providers_shared") || mentions(updated, "cuda")) << updated;
    }
    OrtSessionOptions* cuda_opts = nullptr;
    ASSERT_EQ(message_of(a, a.CreateSessionOptions(&cuda_opts)), "");
    const std::string appended =
        message_of(a, a.SessionOptionsAppendExecutionProvider_CUDA_V2(cuda_opts, cuda));
    if (!appended.empty()) EXPECT_TRUE(mentions(appended, "cuda")) << appended;
    a.ReleaseSessionOptions(cuda_opts);
    a.ReleaseCUDAProviderOptions(cuda);
  } else {
    EXPECT_TRUE(mentions(cuda_create, "cuda")) << cuda_create;
  }
  // The CPU EP device appended explicitly (the V2 path the GPU devices take),
  // on options of its own: with the CPU EP added explicitly the runtime
  // refuses session.disable_cpu_ep_fallback=1 ("Conflicting session configuration").
  OrtSessionOptions* v2_opts = nullptr;
  ASSERT_EQ(message_of(a, a.CreateSessionOptions(&v2_opts)), "");
  EXPECT_EQ(message_of(a, a.SessionOptionsAppendExecutionProvider_V2(v2_opts, env, &cpu_device, 1, nullptr,
                                                                     nullptr, 0)),
            "");
  EXPECT_EQ(message_of(a, a.AddSessionConfigEntry(v2_opts, "session.disable_cpu_ep_fallback", "1")), "");
  OrtSession* refused_session = nullptr;
  const std::string conflict =
      message_of(a, ed->CreateSessionFromModel(env, model, v2_opts, &refused_session));
  EXPECT_NE(conflict.find("disabled fallback to the CPU EP"), std::string::npos) << conflict;
  a.ReleaseSessionOptions(v2_opts);
  for (auto n :
       {"CreateSessionOptions", "SetSessionExecutionMode", "DisableMemPattern", "SetSessionLogSeverityLevel",
        "SetSessionGraphOptimizationLevel", "SetIntraOpNumThreads", "SetInterOpNumThreads",
        "AddSessionConfigEntry", "EnableProfiling", "SessionOptionsAppendExecutionProvider",
        "CreateCUDAProviderOptions", "UpdateCUDAProviderOptions", "ReleaseCUDAProviderOptions",
        "SessionOptionsAppendExecutionProvider_CUDA_V2", "SessionOptionsAppendExecutionProvider_V2"})
    mark(n);

  // session.disable_cpu_ep_fallback=1 took: with only the CPU provider the
  // runtime refuses the session (the hard yes/no the checks use).
  OrtSession* session = nullptr;
  const std::string no_fallback = message_of(a, ed->CreateSessionFromModel(env, model, opts, &session));
  EXPECT_NE(no_fallback.find("fallback to CPU EP has been explicitly disabled"), std::string::npos)
      << no_fallback;
  // The session from the editor model, profiled, run on our tensor.
  OrtSessionOptions* run_opts = nullptr;
  ASSERT_EQ(message_of(a, a.CreateSessionOptions(&run_opts)), "");
#ifdef _WIN32
  EXPECT_EQ(message_of(a, a.EnableProfiling(run_opts, wprefix.c_str())), "");
#else
  EXPECT_EQ(message_of(a, a.EnableProfiling(run_opts, prefix.c_str())), "");
#endif
  ASSERT_EQ(message_of(a, ed->CreateSessionFromModel(env, model, run_opts, &session)), "");
  mark("CreateSessionFromModel");
  std::size_t n_in = 0, n_out = 0;
  ASSERT_EQ(message_of(a, a.SessionGetInputCount(session, &n_in)), "");
  ASSERT_EQ(message_of(a, a.SessionGetOutputCount(session, &n_out)), "");
  EXPECT_EQ(n_in, 1u);
  EXPECT_EQ(n_out, 1u);
  std::uint64_t start_ns = 0;
  ASSERT_EQ(message_of(a, a.SessionGetProfilingStartTimeNs(session, &start_ns)), "");
  EXPECT_GT(start_ns, 0u);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  const OrtValue* in_values[] = {ours};
  OrtValue* out_values[] = {nullptr};
  ASSERT_EQ(message_of(a, a.Run(session, nullptr, in_names, in_values, 1, out_names, 1, out_values)), "");
  ASSERT_EQ(message_of(a, a.GetTensorMutableData(out_values[0], &data)), "");
  const float* y = static_cast<const float*>(data);
  // x = [[1,2,3],[4,5,6]]; y = x @ w^T = [[1, 5], [4, 11]]
  EXPECT_FLOAT_EQ(y[0], 1);
  EXPECT_FLOAT_EQ(y[1], 5);
  EXPECT_FLOAT_EQ(y[2], 4);
  EXPECT_FLOAT_EQ(y[3], 11);
  char* profile = nullptr;
  ASSERT_EQ(message_of(a, a.SessionEndProfiling(session, alloc, &profile)), "");
  ASSERT_NE(profile, nullptr);
  EXPECT_NE(std::string(profile).find("accel_ort_abi_profile"), std::string::npos) << profile;
  std::error_code ec;
  EXPECT_TRUE(std::filesystem::exists(profile, ec)) << profile;
  std::filesystem::remove(profile, ec);
  EXPECT_EQ(message_of(a, a.AllocatorFree(alloc, profile)), "");
  for (auto n : {"SessionGetInputCount", "SessionGetOutputCount", "SessionGetProfilingStartTimeNs", "Run",
                 "SessionEndProfiling", "AllocatorFree"})
    mark(n);

  // Release functions on fresh objects; CreateSessionFromArray refuses bytes
  // that are no model (our writer's bytes are run by OrtSession.*).
  a.ReleaseValue(out_values[0]);
  a.ReleaseSession(session);
  a.ReleaseModel(model);
  OrtGraph* spare_graph = nullptr;
  ASSERT_EQ(message_of(a, ed->CreateGraph(&spare_graph)), "");
  a.ReleaseGraph(spare_graph);
  OrtValueInfo* spare_info = value_info("spare", {1});
  a.ReleaseValueInfo(spare_info);
  const char* add_in[] = {"a", "b"};
  const char* add_out[] = {"c"};
  OrtNode* spare_node = nullptr;
  ASSERT_EQ(message_of(a, ed->CreateNode("Add", "", "spare", add_in, 2, add_out, 1, nullptr, 0, &spare_node)),
            "");
  a.ReleaseNode(spare_node);
  OrtSession* array_session = nullptr;
  const std::string bad_model = "not a model";
  const std::string refused =
      message_of(a, a.CreateSessionFromArray(env, bad_model.data(), bad_model.size(), opts, &array_session));
  EXPECT_NE(refused, "") << "CreateSessionFromArray accepted garbage";
  for (auto n : {"ReleaseValue", "ReleaseSession", "ReleaseModel", "ReleaseGraph", "ReleaseValueInfo",
                 "ReleaseNode", "CreateSessionFromArray"})
    mark(n);
  a.ReleaseValue(theirs);
  a.ReleaseValue(ours);
  a.ReleaseMemoryInfo(mem);
  a.ReleaseTensorTypeAndShapeInfo(info);
  a.ReleaseSessionOptions(opts);
  a.ReleaseSessionOptions(run_opts);
  a.ReleaseEnv(env);
  for (auto n : {"ReleaseMemoryInfo", "ReleaseSessionOptions", "ReleaseEnv"}) mark(n);

  for (const auto& s : kApiSlots)
    EXPECT_TRUE(called.count(s.name)) << s.name << " (slot " << s.slot << ") is declared but not exercised";
  for (const auto& s : kModelEditorSlots)
    EXPECT_TRUE(called.count(s.name)) << s.name << " is declared but not exercised";
}

TEST(OrtRuntime, RefusesALibraryThatIsNotOnnxRuntime) {
#ifdef _WIN32
  const std::string lib = "kernel32.dll";
#else
  const std::string lib = "libz.so.1";
#endif
  try {
    (void)Runtime::open(lib);
    FAIL() << lib << " opened as ONNX Runtime";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not ONNX Runtime"), std::string::npos) << e.what();
  }
}

TEST(OrtRuntime, ExplicitPathThatDoesNotExist) {
  SearchOptions o;
  o.explicit_path = "/nonexistent/libonnxruntime.so.1";
  const FoundRuntime f = find_runtime(o);
  EXPECT_EQ(f.runtime, nullptr);
  EXPECT_EQ(f.explicit_error, "--onnxruntime /nonexistent/libonnxruntime.so.1: no such file");
}

TEST(OrtRuntime, CapiLibrariesPreferTheVersionedFile) {
  const auto dir = std::filesystem::temp_directory_path() / "accel_ort_capi_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "capi");
  for (const char* f : {"libonnxruntime.so.1", "libonnxruntime.so.1.30.0",
                        "libonnxruntime_providers_shared.so", "onnxruntime_pybind11_state.so"}) {
    std::ofstream(dir / "capi" / f) << "x";
  }
  const auto libs = capi_libraries(dir.string());
  ASSERT_EQ(libs.size(), 2u);
  EXPECT_EQ(std::filesystem::path(libs[0]).filename(), "libonnxruntime.so.1.30.0");
  std::filesystem::remove_all(dir);
}

}  // namespace
