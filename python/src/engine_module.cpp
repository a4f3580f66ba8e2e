// accel_doctor._engine: the torch engine (src/engines/torch/) as a Python
// extension module, built against the torch of the interpreter that installs
// the package (setup.py drives CMake; target accel_doctor_engine). The
// Python side (accel_doctor/engine.py, worker.py) imports torch and any
// plugin modules first, so devices that only exist in Python (torch_directml,
// Intel's extension, out-of-tree PrivateUse1 backends) are registered in this
// process before the engine touches a device.
//
//   serve(host_json, worker_argv) -> exit code   one engine-protocol request
//                                                (engine_api/engine_protocol.hpp)
//   worker(host_json) -> exit code               one worker job (engine_api/worker.hpp)
//   torch_version() -> str                       the TORCH_VERSION compiled in
//   warn(message)                                raises a torch warning (TORCH_WARN) on
//                                                this thread: Python `warnings` of a plugin
//                                                reach the check that caused them
//
// host_json: an EngineHost object (core/evidence.hpp), kind "python", the
// interpreter and the plugins imported; it goes into the report's
// environment.torch.host. Its extra member "plugin_devices" (DeviceInfo
// objects: the devices plugins registered, described in Python) names the
// PrivateUse1/XPU devices the engine lists (engines/torch/host.hpp). Both calls read standard input to its
// end and write the protocol to a private copy of standard output (fd 1 then points at standard error, so
// prints from Python or torch cannot corrupt it). The GIL is released while the engine runs.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <string>
#include <vector>

#include <c10/util/Exception.h>
#include <torch/version.h>

#include "core/evidence.hpp"
#include "engine_api/isolation.hpp"
#include "engine_api/serve.hpp"
#include "engine_api/worker.hpp"
#include "engines/torch/host.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/torch_engine.hpp"
#include "platform/crash_handler.hpp"
#include "platform/process.hpp"

namespace py = pybind11;

namespace {

using namespace accel;

/// Parses the host description; a malformed one is the package's bug, said
/// as a Python ValueError.
/// Also sets the plugin devices it describes.
EngineHost parse_host(const std::string& host_json) {
  const json j = json::parse(host_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) throw py::value_error("accel_doctor._engine: host_json is not a JSON object");
  try {
    if (j.contains("plugin_devices")) {
      engine::set_plugin_devices(j.at("plugin_devices").get<std::vector<DeviceInfo>>());
    }
    return j.get<EngineHost>();
  } catch (const json::exception& e) {
    throw py::value_error(std::string("accel_doctor._engine: host_json: ") + e.what());
  }
}

int serve(const std::string& host_json, const std::vector<std::string>& worker_argv) {
  engine::set_engine_host(parse_host(host_json));
  if (worker_argv.empty()) throw py::value_error("accel_doctor._engine.serve: worker_argv is empty");
  engine::set_worker_command(worker_argv);
  py::gil_scoped_release no_gil;
  platform::install_crash_handler();
  platform::set_crash_phase("the torch engine (Python package) serving a request");
  std::FILE* proto = platform::take_stdout_for_protocol();
  if (!proto) {
    std::cerr << "accel_doctor: cannot keep standard output for the protocol\n";
    return 4;
  }
  engine::TorchEngine torch;
  return engine::serve_engine(torch, {"torch", tool_info().version}, std::cin, proto);
}

int worker(const std::string& host_json) {
  engine::set_engine_host(parse_host(host_json));
  py::gil_scoped_release no_gil;
  return engine::worker_main(engine::make_torch_suite);
}

}  // namespace

PYBIND11_MODULE(_engine, m) {
  m.doc() = "The accel-doctor torch engine, built against this interpreter's torch.";
  m.def("serve", &serve, py::arg("host_json"), py::arg("worker_argv"),
        "Serves one engine-protocol request read from stdin; returns the exit code.");
  m.def("worker", &worker, py::arg("host_json"),
        "Runs one worker job read from stdin; returns the exit code.");
  m.def(
      "torch_version", [] { return std::string(TORCH_VERSION); },
      "The torch version this module was compiled against.");
  m.def(
      "warn", [](const std::string& message) { TORCH_WARN(message); }, py::arg("message"),
      "Raises a torch warning on this thread (the engine's checks collect them).");
  m.attr("version") = tool_info().version;
}
