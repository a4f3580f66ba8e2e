// The Python-hosted torch engine: an interpreter with the accel_doctor
// package (python/, docs/python.md) answers the engine protocol as
// `<python> -m accel_doctor.engine serve`, its workers start as
// `<python> -m accel_doctor.worker`. The front end uses one when asked
// (--python PATH) or when no native engine (accel-doctor-torch) is found,
// trying python3 then python on PATH. Torch-free: probing runs the
// interpreter, it never links it.
#pragma once

#include <string>
#include <vector>

namespace accel::engine {

/// The argv before "serve" that starts the engine inside `python`.
std::vector<std::string> python_engine_command(const std::string& python);

/// What probing one interpreter found.
struct PythonProbe {
  bool usable = false;
  std::string executable;  ///< its sys.executable (when it ran)
  std::string why_not;     ///< when not usable: "no such file", "no accel_doctor package", ...
};

/// Runs `python` (a path, or a bare name looked up on PATH) and asks whether
/// it has the accel_doctor package with its compiled engine module (it does
/// not import torch: a few hundred ms). Never throws.
PythonProbe probe_python_engine(const std::string& python, double timeout_s = 30);

/// `name` looked up on PATH (with ".exe" on Windows); empty when absent.
/// A name with a directory separator is returned as is when it is a file.
std::string find_on_path(const std::string& name);

/// The environment variable through which the front end names the modules
/// the Python engine and its workers import first (--import MODULE),
/// comma-separated (read by python/accel_doctor/_host.py).
inline constexpr const char* kPythonImportEnv = "ACCEL_DOCTOR_IMPORT";
/// The --device request, for the Python engine ("xpu": import Intel's
/// extension when torch has no XPU support of its own).
inline constexpr const char* kPythonDeviceEnv = "ACCEL_DOCTOR_DEVICE";

/// The plugin module a --device request needs imported in the Python engine
/// ("dml", "dml:1", "directml": torch_directml); "" for none.
std::string plugin_for_device(const std::string& device);

}  // namespace accel::engine
