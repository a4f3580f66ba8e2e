#include "engine_api/python_engine.hpp"

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/strings.hpp"
#include "platform/subprocess.hpp"

namespace accel::engine {

std::vector<std::string> python_engine_command(const std::string& python) {
  return {python, "-m", "accel_doctor.engine"};
}

std::string plugin_for_device(const std::string& device) {
  const std::string type = lower(device.substr(0, device.find(':')));
  return type == "dml" || type == "directml" ? "torch_directml" : "";
}

std::string find_on_path(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos) {
    return fs::is_regular_file(name, ec) ? name : std::string();
  }
#if defined(_WIN32)
  const char sep = ';';
  const std::vector<std::string> names = {name + ".exe", name};
#else
  const char sep = ':';
  const std::vector<std::string> names = {name};
#endif
  const char* path = std::getenv("PATH");
  if (!path) return {};
  const std::string dirs = path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(sep, start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    for (const auto& n : names) {
      const fs::path p = fs::path(dir.empty() ? "." : dir) / n;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
    start = end + 1;
  }
  return {};
}

PythonProbe probe_python_engine(const std::string& python, double timeout_s) {
  PythonProbe probe;
  const std::string exe = find_on_path(python);
  if (exe.empty()) {
    probe.why_not = python.find('/') != std::string::npos || python.find('\\') != std::string::npos
                        ? "no such file"
                        : "not on PATH";
    return probe;
  }
  // find_spec of the compiled module, not an import: importing it would
  // load torch.
  static const char* kScript =
      "import sys, importlib.util as u\n"
      "print(sys.executable)\n"
      "try:\n"
      "    import accel_doctor\n"
      "except ImportError:\n"
      "    print('no accel_doctor package'); sys.exit(3)\n"
      "if u.find_spec('accel_doctor._engine') is None:\n"
      "    print('accel_doctor has no compiled engine module (_engine)'); sys.exit(3)\n"
      "print('ok')\n";
  try {
    platform::Subprocess p = platform::Subprocess::spawn({exe, "-c", kScript}, 8 * 1024);
    p.write_stdin_and_close("");
    std::vector<std::string> lines;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        p.kill();
        probe.why_not = fmt::format("{} did not answer within {:.0f} s", exe, timeout_s);
        return probe;
      }
      std::string line;
      const auto rr = p.read_line(line, left);
      if (rr == platform::Subprocess::ReadResult::line) {
        while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
        lines.push_back(line);
        continue;
      }
      if (rr == platform::Subprocess::ReadResult::timeout) continue;
      break;  // eof
    }
    const platform::ExitInfo exit = p.wait(std::chrono::milliseconds(5000));
    if (!lines.empty()) probe.executable = lines.front();
    if (exit.exited && exit.code == 0 && lines.size() >= 2 && lines.back() == "ok") {
      probe.usable = true;
    } else if (lines.size() >= 2) {
      probe.why_not = lines.back();
    } else {
      const std::string tail = p.stderr_tail();
      probe.why_not = fmt::format("{} failed ({}){}", exe, exit.describe(),
                                  tail.empty() ? "" : ": " + tail.substr(0, 300));
    }
  } catch (const platform::SubprocessError& e) {
    probe.why_not = fmt::format("cannot run {}: {}", exe, e.what());
  }
  if (probe.executable.empty()) probe.executable = exe;
  return probe;
}

}  // namespace accel::engine
