#include "cli/app.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/environment.hpp"
#include "core/ceilings.hpp"
#include "core/device_select.hpp"
#include "core/directml_join.hpp"
#include "core/enum_names.hpp"
#include "core/report/html.hpp"
#include "core/report/json_report.hpp"
#include "core/report/jsonl.hpp"
#include "core/report/markdown.hpp"
#include "engine_api/busy_sampled_engine.hpp"
#include "engine_api/python_engine.hpp"
#include "platform/gpu_busy.hpp"
#include "platform/probes.hpp"
#include "platform/process.hpp"
#include "platform/terminal.hpp"

namespace accel::cli {

std::string_view to_string(OutputFormat f) { return kOutputFormatNames[static_cast<int>(f)]; }

std::optional<OutputFormat> output_format_from_string(std::string_view name) {
  constexpr std::pair<OutputFormat, const char*> kFormats[] = {{OutputFormat::text, kOutputFormatNames[0]},
                                                               {OutputFormat::md, kOutputFormatNames[1]},
                                                               {OutputFormat::jsonl, kOutputFormatNames[2]}};
  return enum_parse<OutputFormat>(kFormats, name);
}

namespace {
int terminal_width() { return platform::terminal_columns(platform::StdStream::out, 120); }
}  // namespace

namespace {
/// Block characters for the bar when the locale says UTF-8.
bool utf8_locale() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(name);
    if (v && *v) {
      const std::string s(v);
      return s.find("UTF-8") != std::string::npos || s.find("utf8") != std::string::npos ||
             s.find("utf-8") != std::string::npos || s.find("UTF8") != std::string::npos;
    }
  }
  return false;
}
}  // namespace

App::App(GlobalOptions options, std::vector<std::string> argv)
    : options_(std::move(options)), argv_(std::move(argv)) {
  progress_ = std::make_unique<ProgressDisplay>(progress_enabled(), utf8_locale());
}

const KnowledgeBase& App::kb() {
  if (!kb_) {
    try {
      kb_ = KnowledgeBase::load_default();
    } catch (const KbError& e) {
      throw UsageError(std::string("set-up error: ") + e.what());
    }
  }
  return *kb_;
}

ConsoleStyle App::style_stdout() const {
  ConsoleStyle s;
  s.width = terminal_width();
  s.color = color_allowed(platform::is_terminal(platform::StdStream::out), options_.no_color,
                          std::getenv("NO_COLOR"));
  return s;
}

bool App::progress_enabled() const {
  return !options_.quiet && platform::is_terminal(platform::StdStream::err);
}

const engine::EngineSearch& App::engine_search() {
  if (!engine_search_) {
    if (!options_.engine_path.empty() && !options_.python_path.empty()) {
      throw UsageError("--engine and --python both name the engine: give one");
    }
    engine_search_ = engine::find_any_engine(options_.engine_path, options_.python_path);
    const engine::EngineSearch& s = *engine_search_;
    // --device dml: torch-directml registers the device, in Python only.
    std::vector<std::string> imports = options_.imports;
    const std::string device_plugin = engine::plugin_for_device(options_.device);
    if (!device_plugin.empty() && std::find(imports.begin(), imports.end(), device_plugin) == imports.end()) {
      imports.push_back(device_plugin);
    }
    if (!imports.empty() && !s.path.empty() && s.kind != EngineHostKind::python) {
      throw UsageError(
          fmt::format("{} needs the Python engine (a plugin module exists only in Python): add --python PATH "
                      "(an interpreter with the accel_doctor package); the engine found is {}",
                      options_.imports.empty() ? "--device " + options_.device + " (torch_directml)"
                                               : "--import " + options_.imports.front(),
                      s.path));
    }
    std::string modules;
    for (const auto& m : imports) modules += (modules.empty() ? "" : ",") + m;
    platform::set_environment_variable(engine::kPythonImportEnv, modules);
    platform::set_environment_variable(engine::kPythonDeviceEnv, options_.device);
    // Say which engine measures when it is not the one beside accel-doctor.
    if (!s.path.empty() && s.kind == EngineHostKind::python && options_.python_path.empty() &&
        !options_.quiet) {
      std::cerr << "accel-doctor: using the Python engine " << s.path
                << " (accel_doctor package); not found: ";
      for (std::size_t i = 0; i < s.not_found.size(); ++i) std::cerr << (i ? "; " : "") << s.not_found[i];
      std::cerr << "\n";
    }
  }
  return *engine_search_;
}

engine::Engine& App::engine() {
  if (!engine_) {
    const engine::EngineSearch& found = engine_search();
    if (found.path.empty()) throw UsageError(engine::engine_missing_message(found));
    (void)peaks();  // a broken gpus.json is refused before anything is measured
    // GPU utilisation is sampled here, in the front end, while any engine measures.
    engine_ = std::make_unique<engine::BusySampledEngine>(
        std::make_unique<engine::ProcessEngine>(found.command, &kb()), gpu_busy_sampler_factory());
  }
  return *engine_;
}

engine::GpuBusySamplerFactory App::gpu_busy_sampler_factory(const std::vector<GpuHardware>* gpus) {
  std::string period_problem;
  const double period_ms = platform::gpu_busy_period_from_environment(&period_problem);
  if (!period_problem.empty() && !gpu_busy_period_warned_) {
    std::cerr << "accel-doctor: " << period_problem << "\n";
    gpu_busy_period_warned_ = true;
  }
  if (period_ms <= 0) return {};
  return [this, period_ms, gpus] {
    return std::make_unique<platform::GpuBusySampler>(
        platform::open_gpu_busy_sources(gpus ? *gpus : environment().gpus), period_ms);
  };
}

Environment& App::environment() {
  if (!env_) {
    status("collecting the environment…");
    std::optional<engine::EngineEnvironment> from_engine;
    EngineAbsence absent;
    if (engine_search().path.empty()) {
      absent = {EngineAbsence::Kind::not_found, engine::engine_missing_message(engine_search())};
    } else {
      try {
        from_engine = engine().environment();
      } catch (const engine::EngineError& e) {
        absent = {EngineAbsence::Kind::failed, std::string("the torch engine could not say: ") + e.what()};
      }
    }
    if (from_engine) {
      // The engine says who hosts it (native or Python, the interpreter,
      // the plugins); the front end adds how it was started and what it
      // looked for first.
      from_engine->torch.host.command = engine_search().command;
      from_engine->torch.host.not_found = engine_search().not_found;
    }
    // The interpreters the front end knows of, for the Windows probes (site-packages, torch's HIP).
    std::vector<std::pair<std::string, std::string>> pythons;
    if (!options_.python_path.empty()) pythons.emplace_back(options_.python_path, "--python");
    if (engine_search().kind == EngineHostKind::python && !engine_search().path.empty())
      pythons.emplace_back(engine_search().path, "engine");
    env_ = collect_environment(kb(), from_engine ? &*from_engine : nullptr, absent, pythons);
    // torch-directml's devices by LUID and DXGI index (Windows only).
    if (env_->windows) join_windows_adapters(env_->devices, env_->windows->adapters);
    clear_status();
  }
  return *env_;
}

const DeviceChoice& App::device_choice() {
  Environment& env = environment();
  if (!env.selection) {
    try {
      DeviceSelectionContext why;
      why.torch_backend = env.torch.backend;
      why.torch_version = env.torch.version;
      for (const auto& g : env.gpus) {
        if (!g.name.empty()) why.gpus_found.push_back(g.name);
      }
      if (engine_search().path.empty()) why.no_engine = engine::engine_missing_message(engine_search());
      env.selection = select_device(options_.device, env.devices, why);
    } catch (const DeviceSelectionError& e) {
      throw UsageError(e.what());
    }
  }
  return *env.selection;
}

Report& App::report(const std::string& command) {
  if (!report_) {
    report_.emplace();
    report_->context.tool = tool_info();
    report_->context.started_at = now_rfc3339();
    report_->context.argv = argv_;
    report_->context.command = command;
  }
  return *report_;
}

void App::write_json_if_requested() {
  if (!report_) return;
  clear_status();
  report_->context.finished_at = now_rfc3339();
  if (env_) report_->context.environment = *env_;
  write_outputs(*report_);
}

void App::set_output_paths(std::string json_path, std::string html_path) {
  options_.json_path = std::move(json_path);
  options_.html_path = std::move(html_path);
}

void App::write_outputs(const Report& original) {
  // --redact: every form below is written from the redacted copy.
  std::optional<Report> redacted;
  if (options_.redact) redacted = redact_report(original, secrets());
  const Report& report = redacted ? *redacted : original;
  if (!options_.json_path.empty()) write_report_file(report, options_.json_path);
  if (!options_.html_path.empty()) write_text_file(options_.html_path, render_html(report), "HTML report");
  if (options_.format == OutputFormat::md) {
    std::cout << render_markdown(report) << std::flush;
  } else if (options_.format == OutputFormat::jsonl) {
    // The results not streamed while the run went (rows measured outside the
    // engine's callbacks), then the closing line.
    if (!jsonl_started_) {
      jsonl_started_ = true;
      std::cout << jsonl_context_line(report);
    }
    // Each streamed line accounts for one result of its key (merged reports
    // may hold the same key more than once).
    auto streamed = jsonl_streamed_;
    for (const auto& r : report.results) {
      if (const auto it = streamed.find(r.key); it != streamed.end()) {
        streamed.erase(it);
        continue;
      }
      std::cout << jsonl_result_line(r);
    }
    std::cout << jsonl_end_line(report) << std::flush;
  }
}

void App::jsonl_begin() const {
  if (jsonl_started_ || !report_) return;
  jsonl_started_ = true;
  Report head = *report_;
  head.results.clear();
  if (env_) head.context.environment = *env_;
  std::cout << scrub(jsonl_context_line(head));
}

void App::item_started(const std::string& key, std::size_t index, std::size_t total) const {
  progress_->item_started(key, index, total);
}

void App::item_finished(const Result& result) const {
  progress_->item_finished();
  if (options_.format != OutputFormat::jsonl) return;
  jsonl_begin();
  jsonl_streamed_.insert(result.key);
  std::cout << scrub(jsonl_result_line(result)) << std::flush;
}

const GpuPeakTable* App::peaks() {
  if (!peaks_loaded_) {
    peaks_loaded_ = true;
    const std::string dir = find_kb_dir();
    if (dir.empty() || !std::filesystem::exists(std::filesystem::path(dir) / "gpus.json")) {
      std::cerr << "accel-doctor: datasheet peaks unavailable: no gpus.json in the kb"
                << (dir.empty() ? "" : " (" + dir + ")") << "\n";
    } else {
      try {
        peaks_ = GpuPeakTable::load(dir);
      } catch (const KbError& e) {  // a kb file the user's kb holds but that is broken
        throw UsageError(std::string("set-up error: ") + e.what());
      }
    }
  }
  return peaks_ ? &*peaks_ : nullptr;
}

void App::apply_rooflines(std::vector<Result>& results, const std::vector<Result>& measured) {
  const auto ceilings = build_ceilings(environment(), results, measured, peaks());
  annotate_rooflines(results, ceilings);
}

void App::out(const std::string& text) const {
  if (options_.quiet || options_.format != OutputFormat::text) return;
  // Text on stdout while the bar is on stderr of the same terminal: take the
  // bar off the line first; the next event draws it again.
  progress_->hide();
  // With --json - standard output is the JSON report's: the tables go to
  // standard error, so `accel-doctor --json - env | jq` works.
  (options_.json_path == "-" ? std::cerr : std::cout) << scrub(text) << std::flush;
}

const RedactSecrets& App::secrets() const {
  if (!secrets_) {
    secrets_.emplace();
    if (const std::string host = platform::this_host_name(); !host.empty())
      secrets_->hostnames.push_back(host);
    for (const char* name : {"USER", "USERNAME", "LOGNAME"}) {
      if (const char* v = std::getenv(name); v && *v) secrets_->users.emplace_back(v);
    }
    for (const char* name : {"HOME", "USERPROFILE"}) {
      if (const char* v = std::getenv(name); v && *v) secrets_->add_users_from_text(v);
    }
  }
  if (env_ && !env_->host.hostname.empty()) {
    auto& h = secrets_->hostnames;
    if (std::find(h.begin(), h.end(), env_->host.hostname) == h.end()) h.push_back(env_->host.hostname);
  }
  return *secrets_;
}

void App::note_secrets(const Report& report) {
  secrets();
  secrets_->add_from_report(report);
}

std::string App::scrub(const std::string& text) const {
  return options_.redact ? redact_text(text, secrets()) : text;
}

void App::status(const std::string& text) const { progress_->message(text); }

void App::clear_status() const { progress_->clear(); }

}  // namespace accel::cli
