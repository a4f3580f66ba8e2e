#include "cli/environment.hpp"

#include "platform/probes.hpp"

namespace accel::cli {

Environment collect_environment(const KnowledgeBase& kb, const engine::EngineEnvironment* from_engine,
                                const EngineAbsence& absent,
                                const std::vector<std::pair<std::string, std::string>>& pythons) {
  Environment env;
  env.host = platform::probe_host();
  env.driver = platform::probe_drivers();
  env.gpus = platform::probe_gpus();
  env.env_vars = platform::probe_env_vars(kb);
  platform::WindowsProbeOptions windows;
  windows.pythons = pythons;
  env.windows = platform::probe_windows(windows);
  // Links between GPUs only where there are several (one GPU: nothing added).
  if (platform::compute_gpus(env.gpus).size() >= 2) env.topology = platform::probe_topology({}, env.gpus);
  if (from_engine) {
    env.torch = from_engine->torch;
    env.devices = from_engine->devices;
    env.blas = from_engine->blas;
  } else {
    const char* key = absent.kind == EngineAbsence::Kind::not_found ? "engine" : "engine_environment";
    env.torch.not_collected[key] = absent.why;
    env.blas.not_collected[key] =
        "the CPU BLAS is the one torch loads, so the torch engine reports it; none answered";
  }
  return env;
}

}  // namespace accel::cli
