// `llm`: prefill and decode of a Llama-family model.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/llm_config.hpp"
#include "core/machine_context.hpp"
#include "core/report/console.hpp"
#include "core/safetensors.hpp"
#include "engine_api/llm.hpp"

namespace accel::cli {

std::vector<Result> run_llm_phase(App& app, const engine::LlmOptions& o) {
  auto results =
      run_repeated(app, [&](const engine::RunCallbacks& cb) { return app.engine().run_llm(o, cb); });
  app.clear_status();
  // Rows are drawn against the bench rows they name (evidence.*_ceiling):
  // those of this run (run_llm returns the ones it measured) or the ones the
  // caller passed in.
  std::vector<Result> measured = o.ceilings;
  for (const auto& r : results) {
    if (r.kind == ResultKind::bench) measured.push_back(r);
  }
  app.apply_rooflines(results, measured);
  return results;
}

int cmd_llm(App& app, const LlmArgs& args) {
  engine::LlmOptions o;
  o.quick = args.quick;
  o.preset = args.preset;
  o.weights_dir = args.weights;
  if (!o.weights_dir.empty()) {
    // Checked here, before anything is built or measured: a missing, unreadable,
    // malformed or truncated checkpoint is a set-up error (exit 2), not three
    // failed rows. config.json and every *.safetensors header are read, and
    // each file must be as long as its header says.
    try {
      validate_safetensors_checkpoint(o.weights_dir);
    } catch (const SafetensorsError& e) {
      throw UsageError(fmt::format("--weights {}: {}", o.weights_dir, e.what()));
    }
  }
  o.dtype = args.dtype;
  o.attention = args.attention;
  o.sdpa_backend = args.sdpa_backend;
  o.batches = args.batches.empty() ? std::vector<int>{1} : args.batches;
  o.prompts = args.prompts;
  o.gens = args.gens;
  o.cpu_compare = !args.no_cpu;
  o.graphs = !args.no_graphs;
  o.cpu_preset = args.cpu_preset;
  o.isolate = !args.no_isolate;
  if (!o.preset.empty()) {
    const std::vector<std::string> presets = llm_preset_names();
    for (const auto& p : {o.preset, o.cpu_preset}) {
      if (!p.empty() && !find_llm_preset(p)) {
        throw UsageError(fmt::format("unknown preset '{}': choose one of {}", p, fmt::join(presets, ", ")));
      }
    }
  }
  o.device = app.device_choice().chosen;
  // The engine resolves the defaults and says whether its torch can run the
  // attention asked for (a backend it cannot choose is a usage error).
  const engine::LlmPlan plan = app.engine().plan_llm(o);
  if (!plan.attention_problem.empty()) throw UsageError("--attention sdpa: " + plan.attention_problem);
  if (!plan.sdpa_backend_problem.empty()) throw UsageError("--sdpa-backend: " + plan.sdpa_backend_problem);
  const engine::LlmOptions& resolved = plan.resolved;
  if (args.list) {
    std::string out;
    for (const auto& it : plan.items) out += it.key + "\n";
    app.out(out);
    return kExitHealthy;
  }
  Report& report = app.report("llm");
  o.machine = machine_context_of(app.environment(), o.device);
  app.out(fmt::format(
      "LLM on {}: {} ({}), batch {}, prompt {}, new tokens {}{}\n", o.device,
      resolved.weights_dir.empty() ? resolved.preset + " preset, random weights" : resolved.weights_dir,
      resolved.dtype, fmt::join(resolved.batches, ","), fmt::join(resolved.prompts, ","),
      fmt::join(resolved.gens, ","),
      o.device != "cpu" && resolved.cpu_compare
          ? fmt::format("; speed-up vs CPU measured with the smaller {} preset on both", resolved.cpu_preset)
          : ""));
  auto results = run_llm_phase(app, o);
  app.out(render_llm_table(results, app.style_stdout()));
  return finish_command(app, report, results);
}

// ---------------------------------------------------------------- options

CLI::App* add_llm_command(CLI::App& cli, LlmArgs& args) {
  auto* llm =
      cli.add_subcommand("llm", "LLM prefill and decode with a KV cache (llama-bench names: pp512, tg128)");
  llm->add_flag("--quick", args.quick, "small grid (tiny preset on the CPU)");
  llm->add_flag("--list", args.list, "list the items and exit");
  llm->add_option("--preset", args.preset, fmt::format("{}", fmt::join(llm_preset_names(), ", ")));
  llm->add_option("--weights", args.weights, "a Hugging Face checkpoint folder (config.json + .safetensors)")
      ->check(CLI::ExistingDirectory);
  llm->add_option("--dtype", args.dtype, "fp32, fp16 or bf16 (default: bf16 on a GPU, fp32 on the CPU)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  llm->add_option("--attention", args.attention, "sdpa, math or auto")
      ->check(CLI::IsMember({"sdpa", "math", "auto"}));
  llm->add_option("--sdpa-backend", args.sdpa_backend,
                  "the SDPA backend: auto (torch's choice), flash, efficient, cudnn or math; a backend that "
                  "cannot run a row fails it (flash takes no mask: graph decode needs one)")
      ->check(CLI::IsMember({"auto", "flash", "efficient", "cudnn", "math"}));
  llm->add_option("--batch", args.batches, "batch sizes (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  llm->add_option(
         "--prompt", args.prompts,
         "prompt lengths (comma list; default 128,512,2048 on a GPU, 128,512 on the CPU, 128 with --quick)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--gen", args.gens, "new tokens (comma list)")->delimiter(',')->check(CLI::Range(1, 32768));
  llm->add_option("--cpu-preset", args.cpu_preset, "the preset run on device and CPU for the speed-up");
  llm->add_flag("--no-cpu", args.no_cpu, "skip the CPU comparison");
  llm->add_flag("--no-graphs", args.no_graphs, "skip the graph-replay decode");
  llm->add_flag("--no-isolate", args.no_isolate, "run in this process (debugging)");
  return llm;
}

}  // namespace accel::cli
