// Our own declarations of the part of ONNX Runtime's C ABI the engine uses.
// No vendored header: the runtime is opened at run time (runtime.hpp) and
// every function is reached through the OrtApi table that
// OrtGetApiBase()->GetApi(version) returns, by its slot number.
//
// Source of every slot number and type: microsoft/onnxruntime,
// include/onnxruntime/core/session/onnxruntime_c_api.h (struct OrtApi,
// struct OrtModelEditorApi; read at API version 29) and the "End of Version
// N" markers and static_asserts of onnxruntime/core/session/onnxruntime_c_api.cc
// (the last slot of each version: kApiVersionEnds). The table is append-only:
// a slot never moves once its version shipped, so the numbers hold for every
// runtime whose API version is at least the slot's. Each function declared
// here is called against the real runtime by tests/unit/ort_abi_test.cpp, so
// a wrong slot or signature fails there.
#pragma once

#include <cstddef>
#include <cstdint>

namespace accel::ort::abi {

// Calling convention: _stdcall on 32-bit Windows only (ORT_API_CALL); the
// x64 ABIs have one convention.
#if defined(_WIN32) && !defined(_WIN64)
#define ACCEL_ORT_CALL __stdcall
#else
#define ACCEL_ORT_CALL
#endif

/// ORTCHAR_T: the character type of paths and profile prefixes.
#ifdef _WIN32
using OrtChar = wchar_t;
#else
using OrtChar = char;
#endif

// Opaque objects (ORT_RUNTIME_CLASS).
struct OrtEnv;
struct OrtStatus;
struct OrtMemoryInfo;
struct OrtSession;
struct OrtValue;
struct OrtRunOptions;
struct OrtTypeInfo;
struct OrtTensorTypeAndShapeInfo;
struct OrtSessionOptions;
struct OrtAllocator;  // a struct of function pointers in the header; only passed through here
struct OrtOpAttr;
struct OrtCUDAProviderOptionsV2;
struct OrtKeyValuePairs;
struct OrtHardwareDevice;
struct OrtEpDevice;
struct OrtValueInfo;
struct OrtNode;
struct OrtGraph;
struct OrtModel;
struct OrtModelEditorApi;

/// ONNXTensorElementDataType (= onnx TensorProto.DataType).
enum ONNXTensorElementDataType : int {
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8 = 3,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16 = 4,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16 = 5,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32 = 6,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING = 8,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL = 9,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE = 11,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32 = 12,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64 = 13,
  ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16 = 16,
};
enum OrtLoggingLevel : int {
  ORT_LOGGING_LEVEL_VERBOSE = 0,
  ORT_LOGGING_LEVEL_INFO = 1,
  ORT_LOGGING_LEVEL_WARNING = 2,
  ORT_LOGGING_LEVEL_ERROR = 3,
  ORT_LOGGING_LEVEL_FATAL = 4,
};
enum OrtErrorCode : int {
  ORT_OK = 0,
  ORT_FAIL = 1,
  ORT_INVALID_ARGUMENT = 2,
  ORT_NO_SUCHFILE = 3,
  ORT_NO_MODEL = 4,
  ORT_ENGINE_ERROR = 5,
  ORT_RUNTIME_EXCEPTION = 6,
  ORT_INVALID_PROTOBUF = 7,
  ORT_MODEL_LOADED = 8,
  ORT_NOT_IMPLEMENTED = 9,
  ORT_INVALID_GRAPH = 10,
  ORT_EP_FAIL = 11,
};
enum GraphOptimizationLevel : int {
  ORT_DISABLE_ALL = 0,
  ORT_ENABLE_BASIC = 1,
  ORT_ENABLE_EXTENDED = 2,
  ORT_ENABLE_ALL = 99,
};
enum ExecutionMode : int { ORT_SEQUENTIAL = 0, ORT_PARALLEL = 1 };
enum OrtAllocatorType : int { OrtInvalidAllocator = -1, OrtDeviceAllocator = 0, OrtArenaAllocator = 1 };
enum OrtMemType : int { OrtMemTypeCPUInput = -2, OrtMemTypeCPUOutput = -1, OrtMemTypeDefault = 0 };
enum OrtMemoryInfoDeviceType : int {
  OrtMemoryInfoDeviceType_CPU = 0,
  OrtMemoryInfoDeviceType_GPU = 1,
  OrtMemoryInfoDeviceType_FPGA = 2,
};
enum OrtOpAttrType : int {
  ORT_OP_ATTR_UNDEFINED = 0,
  ORT_OP_ATTR_INT = 1,
  ORT_OP_ATTR_INTS = 2,
  ORT_OP_ATTR_FLOAT = 3,
  ORT_OP_ATTR_FLOATS = 4,
  ORT_OP_ATTR_STRING = 5,
  ORT_OP_ATTR_STRINGS = 6,
};
enum OrtHardwareDeviceType : int {
  OrtHardwareDeviceType_CPU = 0,
  OrtHardwareDeviceType_GPU = 1,
  OrtHardwareDeviceType_NPU = 2,
};
enum OrtDeviceMemoryType : int {
  OrtDeviceMemoryType_DEFAULT = 0,
  OrtDeviceMemoryType_HOST_ACCESSIBLE = 5,
};

/// struct OrtApiBase: two functions, never versioned.
struct OrtApiBase {
  const void*(ACCEL_ORT_CALL* GetApi)(std::uint32_t version);
  const char*(ACCEL_ORT_CALL* GetVersionString)();
};
/// `OrtGetApiBase`, the one exported symbol the engine needs.
using OrtGetApiBaseFn = const OrtApiBase*(ACCEL_ORT_CALL*)();

/// The last slot of each OrtApi version: {version, last slot index}
/// (onnxruntime_c_api.cc's static_asserts; 19 and 21 added nothing).
/// Versions after 24 are from the header's "\since" notes (API version 29).
struct VersionEnd {
  int version;
  int last_slot;
};
inline constexpr VersionEnd kApiVersionEnds[] = {
    {1, 101},  {2, 118},  {3, 124},  {4, 126},  {5, 149},  {6, 157},  {7, 161},
    {8, 169},  {9, 191},  {10, 203}, {11, 209}, {12, 218}, {13, 224}, {14, 238},
    {15, 254}, {16, 265}, {17, 275}, {18, 279}, {20, 284}, {22, 317}, {23, 389},
};
/// The API version that introduced `slot` (0 when beyond the table above).
constexpr int api_version_of_slot(int slot) {
  for (const auto& e : kApiVersionEnds) {
    if (slot <= e.last_slot) return e.version;
  }
  return 0;
}

/// The newest OrtApi version whose layout these declarations follow; the
/// loader asks for min(this, the runtime's) and steps down when refused.
inline constexpr std::uint32_t kNewestDeclaredApi = 29;
/// The oldest the engine runs on: GetAvailableProviders (4),
/// AddSessionConfigEntry (5), SessionOptionsAppendExecutionProvider (12).
inline constexpr std::uint32_t kOldestSupportedApi = 12;

// X(name, slot, return type, (parameters)): the OrtApi functions we call.
// OrtStatus* null means success; a non-null one is released with ReleaseStatus.
#define ACCEL_ORT_API_FUNCTIONS(X)                                                                           \
  X(CreateStatus, 0, OrtStatus*, (OrtErrorCode code, const char* msg))                                       \
  X(GetErrorCode, 1, OrtErrorCode, (const OrtStatus* status))                                                \
  X(GetErrorMessage, 2, const char*, (const OrtStatus* status))                                              \
  X(CreateEnv, 3, OrtStatus*, (OrtLoggingLevel level, const char* logid, OrtEnv** out))                      \
  X(CreateSessionFromArray, 8, OrtStatus*,                                                                   \
    (const OrtEnv* env, const void* model_data, std::size_t model_data_length,                               \
     const OrtSessionOptions* options, OrtSession** out))                                                    \
  X(Run, 9, OrtStatus*,                                                                                      \
    (OrtSession * session, const OrtRunOptions* run_options, const char* const* input_names,                 \
     const OrtValue* const* inputs, std::size_t input_len, const char* const* output_names,                  \
     std::size_t output_names_len, OrtValue** outputs))                                                      \
  X(CreateSessionOptions, 10, OrtStatus*, (OrtSessionOptions * *options))                                    \
  X(SetSessionExecutionMode, 13, OrtStatus*, (OrtSessionOptions * options, ExecutionMode mode))              \
  X(EnableProfiling, 14, OrtStatus*, (OrtSessionOptions * options, const OrtChar* profile_file_prefix))      \
  X(DisableMemPattern, 17, OrtStatus*, (OrtSessionOptions * options))                                        \
  X(SetSessionLogSeverityLevel, 22, OrtStatus*, (OrtSessionOptions * options, int level))                    \
  X(SetSessionGraphOptimizationLevel, 23, OrtStatus*,                                                        \
    (OrtSessionOptions * options, GraphOptimizationLevel level))                                             \
  X(SetIntraOpNumThreads, 24, OrtStatus*, (OrtSessionOptions * options, int threads))                        \
  X(SetInterOpNumThreads, 25, OrtStatus*, (OrtSessionOptions * options, int threads))                        \
  X(SessionGetInputCount, 30, OrtStatus*, (const OrtSession* session, std::size_t* out))                     \
  X(SessionGetOutputCount, 31, OrtStatus*, (const OrtSession* session, std::size_t* out))                    \
  X(CreateTensorAsOrtValue, 48, OrtStatus*,                                                                  \
    (OrtAllocator * allocator, const std::int64_t* shape, std::size_t shape_len,                             \
     ONNXTensorElementDataType type, OrtValue** out))                                                        \
  X(CreateTensorWithDataAsOrtValue, 49, OrtStatus*,                                                          \
    (const OrtMemoryInfo* info, void* data, std::size_t data_len, const std::int64_t* shape,                 \
     std::size_t shape_len, ONNXTensorElementDataType type, OrtValue** out))                                 \
  X(IsTensor, 50, OrtStatus*, (const OrtValue* value, int* out))                                             \
  X(GetTensorMutableData, 51, OrtStatus*, (OrtValue * value, void** out))                                    \
  X(CreateTensorTypeAndShapeInfo, 57, OrtStatus*, (OrtTensorTypeAndShapeInfo * *out))                        \
  X(SetTensorElementType, 58, OrtStatus*,                                                                    \
    (OrtTensorTypeAndShapeInfo * info, ONNXTensorElementDataType type))                                      \
  X(SetDimensions, 59, OrtStatus*,                                                                           \
    (OrtTensorTypeAndShapeInfo * info, const std::int64_t* dims, std::size_t count))                         \
  X(GetTensorElementType, 60, OrtStatus*,                                                                    \
    (const OrtTensorTypeAndShapeInfo* info, ONNXTensorElementDataType* out))                                 \
  X(GetDimensionsCount, 61, OrtStatus*, (const OrtTensorTypeAndShapeInfo* info, std::size_t* out))           \
  X(GetDimensions, 62, OrtStatus*,                                                                           \
    (const OrtTensorTypeAndShapeInfo* info, std::int64_t* dims, std::size_t length))                         \
  X(GetTensorShapeElementCount, 64, OrtStatus*, (const OrtTensorTypeAndShapeInfo* info, std::size_t* out))   \
  X(GetTensorTypeAndShape, 65, OrtStatus*, (const OrtValue* value, OrtTensorTypeAndShapeInfo** out))         \
  X(CreateCpuMemoryInfo, 69, OrtStatus*, (OrtAllocatorType type, OrtMemType mem_type, OrtMemoryInfo * *out)) \
  X(MemoryInfoGetName, 71, OrtStatus*, (const OrtMemoryInfo* info, const char** out))                        \
  X(AllocatorFree, 76, OrtStatus*, (OrtAllocator * allocator, void* p))                                      \
  X(GetAllocatorWithDefaultOptions, 78, OrtStatus*, (OrtAllocator * *out))                                   \
  X(ReleaseEnv, 92, void, (OrtEnv * p))                                                                      \
  X(ReleaseStatus, 93, void, (OrtStatus * p))                                                                \
  X(ReleaseMemoryInfo, 94, void, (OrtMemoryInfo * p))                                                        \
  X(ReleaseSession, 95, void, (OrtSession * p))                                                              \
  X(ReleaseValue, 96, void, (OrtValue * p))                                                                  \
  X(ReleaseTypeInfo, 98, void, (OrtTypeInfo * p))                                                            \
  X(ReleaseTensorTypeAndShapeInfo, 99, void, (OrtTensorTypeAndShapeInfo * p))                                \
  X(ReleaseSessionOptions, 100, void, (OrtSessionOptions * p))                                               \
  X(SessionEndProfiling, 110, OrtStatus*, (OrtSession * session, OrtAllocator * allocator, char** out))      \
  X(GetAvailableProviders, 125, OrtStatus*, (char*** out, int* length))                                      \
  X(ReleaseAvailableProviders, 126, OrtStatus*, (char** providers, int length))                              \
  X(AddSessionConfigEntry, 130, OrtStatus*,                                                                  \
    (OrtSessionOptions * options, const char* key, const char* value))                                       \
  X(SessionGetProfilingStartTimeNs, 146, OrtStatus*, (const OrtSession* session, std::uint64_t* out))        \
  X(SessionOptionsAppendExecutionProvider_CUDA_V2, 204, OrtStatus*,                                          \
    (OrtSessionOptions * options, const OrtCUDAProviderOptionsV2* cuda_options))                             \
  X(CreateCUDAProviderOptions, 205, OrtStatus*, (OrtCUDAProviderOptionsV2 * *out))                           \
  X(UpdateCUDAProviderOptions, 206, OrtStatus*,                                                              \
    (OrtCUDAProviderOptionsV2 * options, const char* const* keys, const char* const* values,                 \
     std::size_t num_keys))                                                                                  \
  X(ReleaseCUDAProviderOptions, 208, void, (OrtCUDAProviderOptionsV2 * p))                                   \
  X(CreateOpAttr, 211, OrtStatus*,                                                                           \
    (const char* name, const void* data, int len, OrtOpAttrType type, OrtOpAttr** out))                      \
  X(ReleaseOpAttr, 212, void, (OrtOpAttr * p))                                                               \
  X(SessionOptionsAppendExecutionProvider, 216, OrtStatus*,                                                  \
    (OrtSessionOptions * options, const char* provider_name, const char* const* keys,                        \
     const char* const* values, std::size_t num_keys))                                                       \
  X(GetBuildInfoString, 254, const char*, ())                                                                \
  X(ReleaseValueInfo, 285, void, (OrtValueInfo * p))                                                         \
  X(ReleaseNode, 286, void, (OrtNode * p))                                                                   \
  X(ReleaseGraph, 287, void, (OrtGraph * p))                                                                 \
  X(ReleaseModel, 288, void, (OrtModel * p))                                                                 \
  X(GetModelEditorApi, 291, const OrtModelEditorApi*, ())                                                    \
  X(CreateKeyValuePairs, 295, void, (OrtKeyValuePairs * *out))                                               \
  X(AddKeyValuePair, 296, void, (OrtKeyValuePairs * kvps, const char* key, const char* value))               \
  X(GetKeyValue, 297, const char*, (const OrtKeyValuePairs* kvps, const char* key))                          \
  X(GetKeyValuePairs, 298, void,                                                                             \
    (const OrtKeyValuePairs* kvps, const char* const** keys, const char* const** values,                     \
     std::size_t* num_entries))                                                                              \
  X(ReleaseKeyValuePairs, 300, void, (OrtKeyValuePairs * p))                                                 \
  X(GetEpDevices, 303, OrtStatus*,                                                                           \
    (const OrtEnv* env, const OrtEpDevice* const** ep_devices, std::size_t* num_ep_devices))                 \
  X(SessionOptionsAppendExecutionProvider_V2, 304, OrtStatus*,                                               \
    (OrtSessionOptions * options, OrtEnv * env, const OrtEpDevice* const* ep_devices,                        \
     std::size_t num_ep_devices, const char* const* keys, const char* const* values,                         \
     std::size_t num_options))                                                                               \
  X(HardwareDevice_Type, 307, OrtHardwareDeviceType, (const OrtHardwareDevice* device))                      \
  X(HardwareDevice_VendorId, 308, std::uint32_t, (const OrtHardwareDevice* device))                          \
  X(HardwareDevice_Vendor, 309, const char*, (const OrtHardwareDevice* device))                              \
  X(HardwareDevice_DeviceId, 310, std::uint32_t, (const OrtHardwareDevice* device))                          \
  X(HardwareDevice_Metadata, 311, const OrtKeyValuePairs*, (const OrtHardwareDevice* device))                \
  X(EpDevice_EpName, 312, const char*, (const OrtEpDevice* ep_device))                                       \
  X(EpDevice_EpVendor, 313, const char*, (const OrtEpDevice* ep_device))                                     \
  X(EpDevice_EpMetadata, 314, const OrtKeyValuePairs*, (const OrtEpDevice* ep_device))                       \
  X(EpDevice_EpOptions, 315, const OrtKeyValuePairs*, (const OrtEpDevice* ep_device))                        \
  X(EpDevice_Device, 316, const OrtHardwareDevice*, (const OrtEpDevice* ep_device))                          \
  X(EpDevice_MemoryInfo, 374, const OrtMemoryInfo*,                                                          \
    (const OrtEpDevice* ep_device, OrtDeviceMemoryType memory_type))

// X(name, slot, return type, (parameters)): struct OrtModelEditorApi (all
// version 22: GetModelEditorApi returns null on older runtimes and in
// minimal builds). Ownership: SetGraphInputs/Outputs, AddInitializerToGraph,
// AddNodeToGraph and AddGraphToModel take what they are given on success;
// CreateNode takes the OrtOpAttr objects and nulls the caller's pointers on
// 1.22-1.30 (model_editor_c_api.cc) although the header says "copied".
#define ACCEL_ORT_MODEL_EDITOR_FUNCTIONS(X)                                                               \
  X(CreateTensorTypeInfo, 0, OrtStatus*, (const OrtTensorTypeAndShapeInfo* info, OrtTypeInfo** out))      \
  X(CreateValueInfo, 5, OrtStatus*, (const char* name, const OrtTypeInfo* type_info, OrtValueInfo** out)) \
  X(CreateNode, 6, OrtStatus*,                                                                            \
    (const char* op, const char* domain, const char* node_name, const char* const* inputs,                \
     std::size_t inputs_len, const char* const* outputs, std::size_t outputs_len, OrtOpAttr** attributes, \
     std::size_t attributes_len, OrtNode** out))                                                          \
  X(CreateGraph, 7, OrtStatus*, (OrtGraph * *out))                                                        \
  X(SetGraphInputs, 8, OrtStatus*, (OrtGraph * graph, OrtValueInfo * *inputs, std::size_t len))           \
  X(SetGraphOutputs, 9, OrtStatus*, (OrtGraph * graph, OrtValueInfo * *outputs, std::size_t len))         \
  X(AddInitializerToGraph, 10, OrtStatus*,                                                                \
    (OrtGraph * graph, const char* name, OrtValue* tensor, bool data_is_external))                        \
  X(AddNodeToGraph, 11, OrtStatus*, (OrtGraph * graph, OrtNode * node))                                   \
  X(CreateModel, 12, OrtStatus*,                                                                          \
    (const char* const* domain_names, const int* opset_versions, std::size_t len, OrtModel** out))        \
  X(AddGraphToModel, 13, OrtStatus*, (OrtModel * model, OrtGraph * graph))                                \
  X(CreateSessionFromModel, 14, OrtStatus*,                                                               \
    (const OrtEnv* env, const OrtModel* model, const OrtSessionOptions* options, OrtSession** out))

/// Typed function pointers, bound from a runtime's table (bind_api). A
/// member is null when the runtime's API version predates its slot.
struct Api {
#define ACCEL_ORT_MEMBER(name, slot, ret, params) ret(ACCEL_ORT_CALL* name) params = nullptr;
  ACCEL_ORT_API_FUNCTIONS(ACCEL_ORT_MEMBER)
};
struct ModelEditorApi {
  ACCEL_ORT_MODEL_EDITOR_FUNCTIONS(ACCEL_ORT_MEMBER)
#undef ACCEL_ORT_MEMBER
};

/// A declared function: its name, slot, and the API version that has it.
struct SlotInfo {
  const char* name;
  int slot;
  int since;
};
#define ACCEL_ORT_SLOT_INFO(name, slot, ret, params) SlotInfo{#name, slot, api_version_of_slot(slot)},
inline constexpr SlotInfo kApiSlots[] = {ACCEL_ORT_API_FUNCTIONS(ACCEL_ORT_SLOT_INFO)};
#undef ACCEL_ORT_SLOT_INFO
#define ACCEL_ORT_EDITOR_SLOT_INFO(name, slot, ret, params) SlotInfo{#name, slot, 22},
inline constexpr SlotInfo kModelEditorSlots[] = {
    ACCEL_ORT_MODEL_EDITOR_FUNCTIONS(ACCEL_ORT_EDITOR_SLOT_INFO)};
#undef ACCEL_ORT_EDITOR_SLOT_INFO

/// Fills `api` from the table `GetApi(api_version)` returned: each member
/// whose slot exists at that version; the rest stay null.
Api bind_api(const void* table, std::uint32_t api_version);
/// The same for the Model Editor table (null table: every member null).
ModelEditorApi bind_model_editor_api(const void* table);

}  // namespace accel::ort::abi
