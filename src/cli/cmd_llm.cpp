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
  engine::LlmOptions o = args.options;
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
  if (o.batches.empty()) o.batches = {1};
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
  llm->add_flag("--quick", args.options.quick, "small grid (tiny preset on the CPU)");
  llm->add_flag("--list", args.list, "list the items and exit");
  llm->add_option("--preset", args.options.preset, fmt::format("{}", fmt::join(llm_preset_names(), ", ")));
  llm->add_option("--weights", args.options.weights_dir,
                  "a Hugging Face checkpoint folder (config.json + .safetensors)")
      ->check(CLI::ExistingDirectory);
  llm->add_option("--dtype", args.options.dtype,
                  "fp32, fp16 or bf16 (default: bf16 on a GPU, fp32 on the CPU)")
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  llm->add_option("--attention", args.options.attention, "sdpa, math or auto")
      ->check(CLI::IsMember({"sdpa", "math", "auto"}));
  llm->add_option("--sdpa-backend", args.options.sdpa_backend,
                  "the SDPA backend: auto (torch's choice), flash, efficient, cudnn or math; a backend that "
                  "cannot run a row fails it (flash takes no mask: graph decode needs one)")
      ->check(CLI::IsMember({"auto", "flash", "efficient", "cudnn", "math"}));
  llm->add_option("--batch", args.options.batches, "batch sizes (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096));
  llm->add_option(
         "--prompt", args.options.prompts,
         "prompt lengths (comma list; default 128,512,2048 on a GPU, 128,512 on the CPU, 128 with --quick)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--gen", args.options.gens, "new tokens (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 32768));
  llm->add_option("--cpu-preset", args.options.cpu_preset,
                  "the preset run on device and CPU for the speed-up");
  add_off_flag(llm, "--no-cpu", args.options.cpu_compare, "skip the CPU comparison");
  add_off_flag(llm, "--no-graphs", args.options.graphs, "skip the graph-replay decode");
  add_off_flag(llm, "--no-isolate", args.options.isolate, "run in this process (debugging)");
  return llm;
}

}  // namespace accel::cli
