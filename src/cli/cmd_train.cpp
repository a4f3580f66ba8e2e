// `train`: training steps of an MLP and a residual CNN on MNIST-shaped data.
#include <cstdlib>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/phases.hpp"
#include "core/idx.hpp"
#include "core/machine_context.hpp"
#include "core/report/console.hpp"
#include "engine_api/train.hpp"

namespace accel::cli {

int cmd_train(App& app, const TrainArgs& args) {
  engine::TrainOptions o = args.options;
  if (o.sweep_min > 0 && o.sweep_max > 0 && o.sweep_min > o.sweep_max) {
    throw UsageError(fmt::format("--sweep-min {} is above --sweep-max {}", o.sweep_min, o.sweep_max));
  }
  if (o.inject_oom_above_bytes == 0) {
    if (const char* env = std::getenv("ACCEL_DOCTOR_INJECT_OOM_ABOVE_BYTES"); env && *env) {
      char* end = nullptr;
      const unsigned long long v = std::strtoull(env, &end, 10);
      if (!end || *end != '\0') {
        throw UsageError(fmt::format("ACCEL_DOCTOR_INJECT_OOM_ABOVE_BYTES='{}' is not a byte count", env));
      }
      o.inject_oom_above_bytes = v;
    }
  }
  if (!o.data_dir.empty()) {
    // Validate the IDX files now: a bad --data is a usage error, not N failed rows.
    try {
      const MnistSet s = load_mnist(o.data_dir, "train");
      if (s.rows != 28 || s.cols != 28) {
        throw UsageError(
            fmt::format("{}: images are {}x{}, the models take 28x28", s.images_path, s.rows, s.cols));
      }
    } catch (const IdxError& e) {
      throw UsageError(std::string("--data: ") + e.what());
    }
  }
  o.device = app.device_choice().chosen;
  const engine::TrainPlan plan = app.engine().plan_train(o);
  const engine::TrainOptions& resolved = plan.resolved;
  if (args.list) {
    std::string out;
    for (const auto& it : plan.items) out += it.key + "\n";
    app.out(out);
    return kExitHealthy;
  }
  if (plan.items.empty()) {
    throw UsageError("no training item matches --filter; `accel-doctor train --list` shows them");
  }
  Report& report = app.report("train");
  o.machine = machine_context_of(app.environment(), o.device);
  std::string models;
  for (const auto& m : plan.model_descriptions) models += fmt::format("\n  {}", m);
  const bool gpu = o.device != "cpu";
  app.out(fmt::format(
      "Training on {}: precisions {}, batch {}, loss agreement over {} steps, {}{}\n  data: "
      "{}{}{}\n",
      o.device, fmt::join(resolved.precisions, ","), fmt::join(resolved.batches, ","), resolved.steps,
      resolved.sweep ? fmt::format("batch sweep {}..{}", resolved.sweep_min, resolved.sweep_max)
                     : std::string("no batch sweep"),
      gpu && resolved.cpu_compare ? fmt::format("; speed-up vs the same steps on the CPU at batch {} (fp32)",
                                                resolved.batches.front())
                                  : "",
      resolved.data_dir.empty() ? "synthetic MNIST-shaped images (seeded oriented gratings plus noise; "
                                  "labels derived from the images)"
                                : "MNIST IDX files in " + resolved.data_dir,
      models,
      resolved.inject_oom_above_bytes
          ? fmt::format(
                "\n  INJECTED out-of-memory limit: a step estimated above {} bytes throws torch's OOM error",
                resolved.inject_oom_above_bytes)
          : ""));
  auto results =
      run_repeated(app, [&](const engine::RunCallbacks& cb) { return app.engine().run_train(o, cb); });
  app.clear_status();
  app.apply_rooflines(results, {});
  app.out(render_train_table(results, app.style_stdout()));
  return finish_command(app, report, results);
}

// ---------------------------------------------------------------- options

CLI::App* add_train_command(CLI::App& cli, TrainArgs& args) {
  auto* train = cli.add_subcommand(
      "train",
      "training steps (MLP, residual CNN on MNIST-shaped data): fp32/fp16/bf16, batch sweep, per-step costs");
  train->add_flag("--quick", args.options.quick,
                  "small and fast (batch 32 and a short sweep on the CPU, 20 steps)");
  train->add_flag("--list", args.list, "list the items and exit");
  train
      ->add_option("--data", args.options.data_dir,
                   "a folder with the MNIST IDX files (train-images-idx3-ubyte, ...)")
      ->check(CLI::ExistingDirectory);
  train->add_option("--model", args.options.models, "mlp, cnn (comma list)")
      ->delimiter(',')
      ->check(CLI::IsMember({"mlp", "cnn"}));
  train
      ->add_option("--precision", args.options.precisions,
                   "fp32, fp16, bf16 (comma list; fp16/bf16 use autocast)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "fp16", "bf16"}));
  train->add_option("--batch", args.options.batches, "batch sizes of the step rows (comma list)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 24));
  train
      ->add_option("--steps", args.options.steps,
                   "steps of the loss-agreement runs (default 100, 20 with --quick)")
      ->check(CLI::Range(2, 100000));
  train->add_option("--sweep-min", args.options.sweep_min, "first batch of the sweep")
      ->check(CLI::Range(1, 1 << 24));
  train
      ->add_option("--sweep-max", args.options.sweep_max,
                   "largest batch the sweep tries (it doubles up to this)")
      ->check(CLI::Range(1, 1 << 26));
  train
      ->add_option("--filter", args.options.filters,
                   "keep items whose key contains one of these (comma list)")
      ->delimiter(',');
  train->add_option(
      "--inject-oom-above-bytes", args.options.inject_oom_above_bytes,
      "testing: a step estimated above N bytes throws torch's out-of-memory error (reported as injected)");
  add_off_flag(train, "--no-sweep", args.options.sweep, "skip the batch-size sweep");
  add_off_flag(train, "--no-item-cost", args.options.item_cost, "skip the per-step loss.item() cost");
  add_off_flag(train, "--no-cpu", args.options.cpu_compare, "skip the CPU comparison");
  add_off_flag(train, "--no-isolate", args.options.isolate, "run in this process (debugging)");
  return train;
}

}  // namespace accel::cli
