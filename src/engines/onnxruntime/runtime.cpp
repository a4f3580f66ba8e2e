#include "engines/onnxruntime/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "core/json.hpp"
#include "engine_api/python_engine.hpp"
#include "platform/subprocess.hpp"

namespace accel::ort {

namespace fs = std::filesystem;

namespace abi {

Api bind_api(const void* table, std::uint32_t api_version) {
  Api api;
  const auto* slots = static_cast<void* const*>(table);
#define ACCEL_ORT_BIND(name, slot, ret, params)                             \
  if (api_version_of_slot(slot) != 0 &&                                     \
      static_cast<std::uint32_t>(api_version_of_slot(slot)) <= api_version) \
    api.name = reinterpret_cast<decltype(api.name)>(slots[slot]);
  ACCEL_ORT_API_FUNCTIONS(ACCEL_ORT_BIND)
#undef ACCEL_ORT_BIND
  return api;
}

ModelEditorApi bind_model_editor_api(const void* table) {
  ModelEditorApi api;
  if (!table) return api;
  const auto* slots = static_cast<void* const*>(table);
#define ACCEL_ORT_BIND(name, slot, ret, params) api.name = reinterpret_cast<decltype(api.name)>(slots[slot]);
  ACCEL_ORT_MODEL_EDITOR_FUNCTIONS(ACCEL_ORT_BIND)
#undef ACCEL_ORT_BIND
  return api;
}

}  // namespace abi

const char* error_code_name(abi::OrtErrorCode code) {
  static const char* const kNames[] = {"ORT_OK",
                                       "ORT_FAIL",
                                       "ORT_INVALID_ARGUMENT",
                                       "ORT_NO_SUCHFILE",
                                       "ORT_NO_MODEL",
                                       "ORT_ENGINE_ERROR",
                                       "ORT_RUNTIME_EXCEPTION",
                                       "ORT_INVALID_PROTOBUF",
                                       "ORT_MODEL_LOADED",
                                       "ORT_NOT_IMPLEMENTED",
                                       "ORT_INVALID_GRAPH",
                                       "ORT_EP_FAIL"};
  const int i = static_cast<int>(code);
  return i >= 0 && i < static_cast<int>(std::size(kNames)) ? kNames[i] : "ORT_UNKNOWN_ERROR";
}

std::string short_message(const std::string& message) {
  std::string m = message.substr(0, message.find('\n'));
  const std::string tag = "[ONNXRuntimeError] : ";
  if (const auto pos = m.find(tag); pos != std::string::npos) {
    // "<code> : <CODE NAME> : <text>"
    std::size_t p = pos + tag.size();
    for (int colons = 0; colons < 2 && p < m.size(); ++p) {
      if (m[p] == ':') ++colons;
    }
    while (p < m.size() && m[p] == ' ') ++p;
    m = m.substr(p);
  }
  return m;
}

std::uint32_t api_version_of(const std::string& version) {
  // "1.30.0", "1.22.0-dev": the number after the first dot.
  const auto dot = version.find('.');
  if (dot == std::string::npos || version.compare(0, dot, "1") != 0) return 0;
  std::uint32_t minor = 0;
  std::size_t i = dot + 1;
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9'; ++i) {
    minor = minor * 10 + static_cast<std::uint32_t>(version[i] - '0');
    if (minor > 1000) return 0;
  }
  return i == dot + 1 ? 0 : minor;
}

void Runtime::check(abi::OrtStatus* status) const {
  if (!status) return;
  const abi::OrtErrorCode code = api_.GetErrorCode(status);
  const char* msg = api_.GetErrorMessage(status);
  std::string message = msg ? msg : "";
  api_.ReleaseStatus(status);
  throw OrtError(code, message.empty() ? error_code_name(code) : message);
}

std::unique_ptr<Runtime> Runtime::open(const std::string& path_or_name) {
  std::unique_ptr<Runtime> rt(new Runtime());
  rt->lib_ = platform::detail::DynLib::open({path_or_name});
  if (!rt->lib_) throw std::runtime_error(fmt::format("{}: cannot load: {}", path_or_name, rt->lib_.error));
  auto get_base = reinterpret_cast<abi::OrtGetApiBaseFn>(rt->lib_.sym("OrtGetApiBase"));
  if (!get_base) {
    throw std::runtime_error(
        fmt::format("{}: not ONNX Runtime (the library loads but exports no OrtGetApiBase)", path_or_name));
  }
  const abi::OrtApiBase* base = get_base();
  if (!base || !base->GetApi || !base->GetVersionString) {
    throw std::runtime_error(fmt::format("{}: OrtGetApiBase() returned no API base", path_or_name));
  }
  const char* v = base->GetVersionString();
  rt->version_ = v ? v : "";
  // Ask for min(newest declared, the runtime's own) and step down: a runtime
  // refuses (and prints to stderr) a version newer than its own.
  std::uint32_t want =
      std::min(abi::kNewestDeclaredApi, std::max<std::uint32_t>(api_version_of(rt->version_), 1));
  if (api_version_of(rt->version_) == 0) want = abi::kNewestDeclaredApi;
  const void* table = nullptr;
  for (std::uint32_t ask = want; ask >= abi::kOldestSupportedApi && !table; --ask) {
    table = base->GetApi(ask);
    if (table) rt->api_version_ = ask;
  }
  if (!table) {
    throw std::runtime_error(
        fmt::format("{}: ONNX Runtime {} offers no OrtApi version between {} and {} (accel-doctor needs ONNX "
                    "Runtime 1.{} "
                    "or later)",
                    path_or_name, rt->version_, abi::kOldestSupportedApi, want, abi::kOldestSupportedApi));
  }
  rt->api_ = abi::bind_api(table, rt->api_version_);
  if (rt->api_.GetBuildInfoString) {
    const char* b = rt->api_.GetBuildInfoString();
    rt->build_info_ = b ? b : "";
  }
  if (rt->api_.GetModelEditorApi) {
    const abi::OrtModelEditorApi* ed = rt->api_.GetModelEditorApi();
    if (ed) {
      rt->editor_ = abi::bind_model_editor_api(ed);
      rt->editor_ok_ = true;
    }
  }
  rt->path_ = platform::detail::object_of_address(reinterpret_cast<const void*>(get_base));
  if (rt->path_.empty()) rt->path_ = path_or_name;
  return rt;
}

// ---------------------------------------------------------------- Python packages

namespace {

// find_spec and importlib.metadata only: importing onnxruntime would load
// the runtime (and its providers) into the interpreter.
const char* kPythonScript =
    "import sys, json, importlib.util as u\n"
    "out = {'executable': sys.executable, 'package_dirs': [], 'distributions': []}\n"
    "try:\n"
    "    s = u.find_spec('onnxruntime')\n"
    "    if s is not None and s.submodule_search_locations:\n"
    "        out['package_dirs'] = list(s.submodule_search_locations)\n"
    "except Exception as e:\n"
    "    out['error'] = 'find_spec: %s' % e\n"
    "try:\n"
    "    from importlib import metadata as md\n"
    "    names = set()\n"
    "    for d in md.distributions():\n"
    "        n = (d.metadata['Name'] or '')\n"
    "        if n.lower().replace('_', '-').startswith('onnxruntime'):\n"
    "            names.add('%s %s' % (n, d.version))\n"
    "    out['distributions'] = sorted(names)\n"
    "except Exception as e:\n"
    "    pass\n"
    "print(json.dumps(out))\n";

}  // namespace

PythonPackages probe_python_packages(const std::string& python, double timeout_s) {
  PythonPackages out;
  const std::string exe = engine::find_on_path(python);
  if (exe.empty()) {
    out.error = python.find_first_of("/\\") != std::string::npos ? python + ": no such file"
                                                                 : python + ": not on PATH";
    return out;
  }
  try {
    platform::Subprocess p = platform::Subprocess::spawn({exe, "-c", kPythonScript}, 8 * 1024);
    p.write_stdin_and_close("");
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
    std::string last;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        p.kill();
        out.error = fmt::format("{} did not answer within {:.0f} s", exe, timeout_s);
        return out;
      }
      std::string line;
      const auto rr = p.read_line(line, left);
      if (rr == platform::Subprocess::ReadResult::line) {
        if (!line.empty()) last = line;
        continue;
      }
      if (rr == platform::Subprocess::ReadResult::eof) break;
    }
    const platform::ExitInfo exit = p.wait(std::chrono::milliseconds(5000));
    const json j = json::parse(last, nullptr, false);
    if (!j.is_object()) {
      const std::string tail = p.stderr_tail();
      out.error = fmt::format("{} failed ({}){}", exe, exit.describe(),
                              tail.empty() ? "" : ": " + tail.substr(0, 300));
      return out;
    }
    out.executable = j.value("executable", exe);
    for (const auto& d : j.value("package_dirs", json::array())) {
      if (d.is_string()) out.package_dirs.push_back(d.get<std::string>());
    }
    for (const auto& d : j.value("distributions", json::array())) {
      if (d.is_string()) out.distributions.push_back(d.get<std::string>());
    }
    out.error = j.value("error", "");
  } catch (const platform::SubprocessError& e) {
    out.error = fmt::format("cannot run {}: {}", exe, e.what());
  }
  return out;
}

std::vector<std::string> capi_libraries(const std::string& package_dir) {
  std::vector<std::string> found;
  std::error_code ec;
  const fs::path capi = fs::path(package_dir) / "capi";
  for (fs::directory_iterator it(capi, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool so = name.rfind("libonnxruntime.so", 0) == 0;
    const bool dll = name == "onnxruntime.dll";
    const bool dylib = name.rfind("libonnxruntime", 0) == 0 && name.size() > 6 &&
                       name.compare(name.size() - 6, 6, ".dylib") == 0 &&
                       name.find("providers") == std::string::npos;
    if (so || dll || dylib) found.push_back(it->path().string());
  }
  // The versioned file first ("libonnxruntime.so.1.30.0" over the
  // "libonnxruntime.so.1" link), then by name for a stable order.
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a < b;
  });
  return found;
}

FoundRuntime find_runtime(const SearchOptions& options) {
  FoundRuntime f;
  if (!options.explicit_path.empty()) {
    std::error_code ec;
    if (!fs::exists(options.explicit_path, ec)) {
      f.explicit_error = fmt::format("--onnxruntime {}: no such file", options.explicit_path);
    } else if (fs::is_directory(options.explicit_path, ec)) {
      f.explicit_error = fmt::format(
          "--onnxruntime {}: a folder; name the library file (libonnxruntime.so.1, onnxruntime.dll)",
          options.explicit_path);
    } else {
      try {
        f.runtime = Runtime::open(options.explicit_path);
        f.found_by = "--onnxruntime";
      } catch (const std::exception& e) {
        f.explicit_error = std::string("--onnxruntime ") + e.what();
      }
    }
    if (!f.explicit_error.empty()) f.not_found.push_back(f.explicit_error);
    return f;
  }
#if defined(_WIN32)
  const std::vector<std::string> names = {"onnxruntime.dll"};
#elif defined(__APPLE__)
  const std::vector<std::string> names = {"libonnxruntime.dylib"};
#else
  const std::vector<std::string> names = {"libonnxruntime.so.1", "libonnxruntime.so"};
#endif
  for (const auto& name : names) {
    try {
      f.runtime = Runtime::open(name);
      f.found_by = "library path";
      return f;
    } catch (const std::exception& e) {
      f.not_found.push_back(fmt::format("library path: {}", e.what()));
    }
  }
  if (!options.use_python) return f;
  std::vector<std::string> pythons;
  if (!options.python.empty()) {
    pythons.push_back(options.python);
  } else {
    pythons = {"python3", "python"};
  }
  for (const auto& py : pythons) {
    PythonPackages pkgs = probe_python_packages(py);
    const std::string who = pkgs.executable.empty() ? py : pkgs.executable;
    if (!pkgs.error.empty() && pkgs.package_dirs.empty()) {
      f.not_found.push_back(fmt::format("Python package ({}): {}", who, pkgs.error));
      if (f.python.executable.empty()) f.python = pkgs;
      continue;
    }
    if (f.python.executable.empty() || !pkgs.package_dirs.empty()) f.python = pkgs;
    if (pkgs.package_dirs.empty()) {
      f.not_found.push_back(fmt::format("Python package ({}): no onnxruntime package", who));
      continue;
    }
    for (const auto& dir : pkgs.package_dirs) {
      const auto libs = capi_libraries(dir);
      if (libs.empty()) {
        f.not_found.push_back(fmt::format("Python package ({}): {}/capi has no runtime library", who, dir));
      }
      for (const auto& lib : libs) {
        try {
          f.runtime = Runtime::open(lib);
          f.found_by = fmt::format("Python package ({})", who);
          return f;
        } catch (const std::exception& e) {
          f.not_found.push_back(fmt::format("Python package ({}): {}", who, e.what()));
        }
      }
    }
    if (!options.python.empty()) break;
  }
  return f;
}

}  // namespace accel::ort
