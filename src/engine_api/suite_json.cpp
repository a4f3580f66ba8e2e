// The JSON forms of the suites' options and items: what the engine protocol
// (engine_api/engine_protocol.hpp) and the worker jobs carry. Readers take
// missing fields as the defaults of the structs and ignore unknown ones.
#include "core/machine_context.hpp"
#include "engine_api/bench.hpp"
#include "engine_api/isolation.hpp"
#include "engine_api/llm.hpp"
#include "engine_api/ops.hpp"
#include "engine_api/train.hpp"

namespace accel::engine {

namespace {
MachineContext machine_from(const json& j) {
  return j.contains("machine") ? machine_context_from_json(j.at("machine")) : MachineContext{};
}
}  // namespace

void to_json(json& j, const ItemInfo& i) {
  j = json{{"key", i.key},           {"kind", i.kind},   {"name", i.name},
           {"category", i.category}, {"dtype", i.dtype}, {"shape", i.shape}};
}

void from_json(const json& j, ItemInfo& i) {
  i.key = j.value("key", "");
  i.kind = j.value("kind", "");
  i.name = j.value("name", "");
  i.category = j.value("category", "");
  i.dtype = j.value("dtype", "");
  i.shape = j.value("shape", "");
}

void to_json(json& j, const CheckInfo& c) {
  j = json{{"key", c.key},
           {"name", c.name},
           {"category", c.category},
           {"dtype", c.dtype},
           {"shape", c.shape},
           {"flops", c.flops},
           {"flops_formula", c.flops_formula},
           {"bytes_formula", c.bytes_formula},
           {"verify", c.verify}};
}

void from_json(const json& j, CheckInfo& c) {
  c.key = j.value("key", "");
  c.name = j.value("name", "");
  c.category = j.value("category", "");
  c.dtype = j.value("dtype", "");
  c.shape = j.value("shape", "");
  c.flops = j.value("flops", 0.0);
  c.flops_formula = j.value("flops_formula", "");
  c.bytes_formula = j.value("bytes_formula", "");
  c.verify = j.value("verify", "");
}

json ops_options_to_json(const OpsOptions& o) {
  return json{{"device", o.device},
              {"quick", o.quick},
              {"filters", o.filters},
              {"isolate", o.isolate},
              {"check_timeout_s", o.check_timeout_s},
              {"include_test_checks", o.include_test_checks},
              {"machine", machine_context_to_json(o.machine)},
              {"profile", o.profile},
              {"trace_path", o.trace_path},
              {"worker_retire_anon_bytes", o.worker_retire_anon_bytes},
              {"worker_retire_min_items", o.worker_retire_min_items}};
}

OpsOptions ops_options_from_json(const json& j) {
  OpsOptions o;
  o.device = j.value("device", o.device);
  o.quick = j.value("quick", o.quick);
  o.filters = j.value("filters", o.filters);
  o.isolate = j.value("isolate", o.isolate);
  o.check_timeout_s = j.value("check_timeout_s", o.check_timeout_s);
  o.include_test_checks = j.value("include_test_checks", o.include_test_checks);
  o.machine = machine_from(j);
  o.profile = j.value("profile", o.profile);
  o.trace_path = j.value("trace_path", o.trace_path);
  o.worker_retire_anon_bytes = j.value("worker_retire_anon_bytes", o.worker_retire_anon_bytes);
  o.worker_retire_min_items = j.value("worker_retire_min_items", o.worker_retire_min_items);
  return o;
}

json bench_options_to_json(const BenchOptions& o) {
  return json{{"device", o.device},
              {"quick", o.quick},
              {"filters", o.filters},
              {"cpu_twin", o.cpu_twin},
              {"isolate", o.isolate},
              {"item_timeout_s", o.item_timeout_s},
              {"machine", machine_context_to_json(o.machine)}};
}

BenchOptions bench_options_from_json(const json& j) {
  BenchOptions o;
  o.device = j.value("device", o.device);
  o.quick = j.value("quick", o.quick);
  o.filters = j.value("filters", o.filters);
  o.cpu_twin = j.value("cpu_twin", o.cpu_twin);
  o.isolate = j.value("isolate", o.isolate);
  o.item_timeout_s = j.value("item_timeout_s", o.item_timeout_s);
  o.machine = machine_from(j);
  return o;
}

json llm_options_to_json(const LlmOptions& o) {
  return json{{"device", o.device},
              {"preset", o.preset},
              {"weights_dir", o.weights_dir},
              {"dtype", o.dtype},
              {"attention", o.attention},
              {"sdpa_backend", o.sdpa_backend},
              {"batches", o.batches},
              {"prompts", o.prompts},
              {"gens", o.gens},
              {"graphs", o.graphs},
              {"cpu_compare", o.cpu_compare},
              {"cpu_preset", o.cpu_preset},
              {"quick", o.quick},
              {"isolate", o.isolate},
              {"item_timeout_s", o.item_timeout_s},
              {"machine", machine_context_to_json(o.machine)},
              {"ceilings", o.ceilings}};
}

LlmOptions llm_options_from_json(const json& j) {
  LlmOptions o;
  o.device = j.value("device", o.device);
  o.preset = j.value("preset", o.preset);
  o.weights_dir = j.value("weights_dir", o.weights_dir);
  o.dtype = j.value("dtype", o.dtype);
  o.attention = j.value("attention", o.attention);
  o.sdpa_backend = j.value("sdpa_backend", o.sdpa_backend);
  o.batches = j.value("batches", o.batches);
  o.prompts = j.value("prompts", o.prompts);
  o.gens = j.value("gens", o.gens);
  o.graphs = j.value("graphs", o.graphs);
  o.cpu_compare = j.value("cpu_compare", o.cpu_compare);
  o.cpu_preset = j.value("cpu_preset", o.cpu_preset);
  o.quick = j.value("quick", o.quick);
  o.isolate = j.value("isolate", o.isolate);
  o.item_timeout_s = j.value("item_timeout_s", o.item_timeout_s);
  o.machine = machine_from(j);
  o.ceilings = j.value("ceilings", o.ceilings);
  return o;
}

json train_options_to_json(const TrainOptions& o) {
  return json{{"device", o.device},
              {"models", o.models},
              {"precisions", o.precisions},
              {"batches", o.batches},
              {"steps", o.steps},
              {"data_dir", o.data_dir},
              {"filters", o.filters},
              {"sweep", o.sweep},
              {"sweep_min", o.sweep_min},
              {"sweep_max", o.sweep_max},
              {"item_cost", o.item_cost},
              {"cpu_compare", o.cpu_compare},
              {"inject_oom_above_bytes", o.inject_oom_above_bytes},
              {"quick", o.quick},
              {"isolate", o.isolate},
              {"item_timeout_s", o.item_timeout_s},
              {"machine", machine_context_to_json(o.machine)}};
}

TrainOptions train_options_from_json(const json& j) {
  TrainOptions o;
  o.device = j.value("device", o.device);
  o.models = j.value("models", o.models);
  o.precisions = j.value("precisions", o.precisions);
  o.batches = j.value("batches", o.batches);
  o.steps = j.value("steps", o.steps);
  o.data_dir = j.value("data_dir", o.data_dir);
  o.filters = j.value("filters", o.filters);
  o.sweep = j.value("sweep", o.sweep);
  o.sweep_min = j.value("sweep_min", o.sweep_min);
  o.sweep_max = j.value("sweep_max", o.sweep_max);
  o.item_cost = j.value("item_cost", o.item_cost);
  o.cpu_compare = j.value("cpu_compare", o.cpu_compare);
  o.inject_oom_above_bytes = j.value("inject_oom_above_bytes", o.inject_oom_above_bytes);
  o.quick = j.value("quick", o.quick);
  o.isolate = j.value("isolate", o.isolate);
  o.item_timeout_s = j.value("item_timeout_s", o.item_timeout_s);
  o.machine = machine_from(j);
  return o;
}

}  // namespace accel::engine
