// Finding and opening ONNX Runtime at run time (no build-time dependency):
// the library, OrtGetApiBase, the OrtApi table negotiated down from the
// newest version we declare (ort_abi.hpp) to the runtime's, its version and
// build string, and the Model Editor table where the runtime has one.
//
// Search order (find_runtime): --onnxruntime PATH alone when given (no
// fallback); else the library on the platform's library path
// (libonnxruntime.so.1 / libonnxruntime.so; onnxruntime.dll, which on
// Windows 11 may be the in-box copy in System32: the path says which); else
// the capi/ folder of the `onnxruntime` package of a Python interpreter
// (--python PATH, else python3 then python on PATH), which every
// onnxruntime* wheel (onnxruntime, -gpu, -directml, -openvino) installs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engines/onnxruntime/ort_abi.hpp"
#include "platform/detail.hpp"

namespace accel::ort {

/// An error of the ONNX Runtime C API (a non-null OrtStatus), with its code.
struct OrtError : std::runtime_error {
  OrtError(abi::OrtErrorCode code, const std::string& message) : std::runtime_error(message), code(code) {}
  abi::OrtErrorCode code;
};

/// The runtime's message without its source location and code prefix
/// ("/onnxruntime_src/...cc:1988 onnxruntime::...() [ONNXRuntimeError] : 1 :
/// FAIL : "), first line only.
std::string short_message(const std::string& message);

/// "ORT_NOT_IMPLEMENTED", ... for an OrtErrorCode.
const char* error_code_name(abi::OrtErrorCode code);

/// An opened runtime. Never unloaded (ONNX Runtime keeps threads and
/// globals alive until the process ends).
class Runtime {
 public:
  /// Opens `path_or_name` (a path, or a file name for the library search).
  /// Throws std::runtime_error naming the library and what is wrong: it does
  /// not load, it has no OrtGetApiBase (not ONNX Runtime), or its API is
  /// older than kOldestSupportedApi.
  static std::unique_ptr<Runtime> open(const std::string& path_or_name);

  const abi::Api& api() const { return api_; }
  /// The Model Editor functions; null when the runtime has none (< 1.22,
  /// minimal builds).
  const abi::ModelEditorApi* editor() const { return editor_ok_ ? &editor_ : nullptr; }
  const std::string& version() const { return version_; }  ///< GetVersionString, "1.30.0"
  std::uint32_t api_version() const { return api_version_; }
  const std::string& path() const { return path_; }  ///< the file that loaded (absolute when known)
  const std::string& build_info() const { return build_info_; }
  /// An exported symbol of the runtime (OrtSessionOptionsAppendExecutionProvider_DML), or null.
  void* symbol(const char* name) const { return lib_.sym(name); }

  /// Throws OrtError for a non-null status (and releases it).
  void check(abi::OrtStatus* status) const;

 private:
  Runtime() = default;
  platform::detail::DynLib lib_;
  abi::Api api_;
  abi::ModelEditorApi editor_;
  bool editor_ok_ = false;
  std::string version_, path_, build_info_;
  std::uint32_t api_version_ = 0;
};

/// "1.30.0" -> 30 (ONNX Runtime's API version is its minor version); 0 when unreadable.
std::uint32_t api_version_of(const std::string& version);

/// Where to look.
struct SearchOptions {
  std::string explicit_path;  ///< --onnxruntime PATH
  std::string python;         ///< --python PATH ("" = python3, then python, on PATH)
  bool use_python = true;     ///< look in a Python package when the library path has none
};

/// What a Python interpreter says about its onnxruntime packages.
struct PythonPackages {
  std::string executable;                  ///< sys.executable ("" when it did not run)
  std::vector<std::string> package_dirs;   ///< the `onnxruntime` package folder(s)
  std::vector<std::string> distributions;  ///< "onnxruntime-directml 1.19.2", every onnxruntime* installed
  std::string error;                       ///< why it could not say
};
/// Runs `python` (a path or a name on PATH) with a short script (no import
/// of onnxruntime itself: importlib.util.find_spec and importlib.metadata).
/// Never throws.
PythonPackages probe_python_packages(const std::string& python, double timeout_s = 30);
/// The runtime library files in an onnxruntime package's capi/ folder
/// (libonnxruntime.so*, onnxruntime.dll, libonnxruntime*.dylib; provider
/// libraries excluded), best first.
std::vector<std::string> capi_libraries(const std::string& package_dir);

/// The search's outcome: the runtime (or null) and every place tried.
struct FoundRuntime {
  std::unique_ptr<Runtime> runtime;
  std::string found_by;                ///< "--onnxruntime", "library path", "python package (<python>)"
  std::vector<std::string> not_found;  ///< "<where>: <why>" for each place that did not give one
  PythonPackages python;               ///< what the interpreter said, when one was asked
  /// The explicit --onnxruntime could not be used: the one-line error for exit 2.
  std::string explicit_error;
};
/// Never throws.
FoundRuntime find_runtime(const SearchOptions& options);

}  // namespace accel::ort
