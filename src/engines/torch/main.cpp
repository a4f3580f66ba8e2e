// accel-doctor-torch: the torch engine. The front end (accel-doctor) starts
// it; users do not run it themselves.
//   accel-doctor-torch serve      one engine-protocol request (engine_api/engine_protocol.hpp)
//   accel-doctor-torch __worker   one worker job (engine_api/worker.hpp)
//   accel-doctor-torch --version
#include <iostream>
#include <string>

#include "core/evidence.hpp"
#include "engine_api/serve.hpp"
#include "engine_api/worker.hpp"
#include "engines/torch/environment.hpp"
#include "engines/torch/suites.hpp"
#include "engines/torch/torch_engine.hpp"
#include "platform/crash_handler.hpp"
#include "platform/process.hpp"

int main(int argc, char** argv) {
  using namespace accel;
  const std::string command = argc >= 2 ? argv[1] : "";
  if (command == "__worker") return engine::worker_main(engine::make_torch_suite);
  if (command == "serve") {
    platform::install_crash_handler();
    platform::set_crash_phase("the torch engine serving a request");
    std::FILE* proto = platform::take_stdout_for_protocol();
    if (!proto) {
      std::cerr << "accel-doctor-torch: cannot keep standard output for the protocol\n";
      return 4;
    }
    engine::TorchEngine torch;
    return engine::serve_engine(torch, {"torch", tool_info().version}, std::cin, proto);
  }
  if (command == "--version") {
    std::cout << "accel-doctor-torch " << tool_info().version << " (" << tool_info().commit << "), torch "
              << engine::collect_torch_info().version << "\n";
    return 0;
  }
  std::cerr << "accel-doctor-torch is the torch engine of accel-doctor: run `accel-doctor` (it starts this "
               "program itself).\nusage: accel-doctor-torch serve | __worker | --version\n";
  return command.empty() || command == "--help" || command == "-h" ? 0 : 2;
}
