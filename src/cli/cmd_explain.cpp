// `explain [FILE|-]`: reads a log or traceback (streamed line by line, any
// size), recognises causes with the knowledge base and prints each with its
// matching lines, explanation and fix. The fix depends on the machine, given
// with --arch/--os/--backend/--gpu/--versions/--env, taken from a saved
// report (--from) or from this machine's probes (--here); with nothing known
// every possibility is listed.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "cli/app.hpp"
#include "cli/environment.hpp"
#include "core/json.hpp"
#include "core/machine_context.hpp"
#include "core/strings.hpp"

namespace accel::cli {

namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  return fmt::format("{}", fmt::join(v, sep));
}

/// Greedy word wrap with a hanging indent; keeps explicit line breaks.
std::string wrap(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out;
  std::size_t start = 0;
  bool first_para = true;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const std::string para = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (!first_para) out += "\n" + indent;
    first_para = false;
    // A bullet's continuation lines line up after "- ".
    const std::string cont = indent + (para.rfind("- ", 0) == 0 ? "  " : "");
    std::size_t col = indent.size();
    std::size_t i = 0;
    bool first_word = true;
    while (i < para.size()) {
      const auto sp = para.find(' ', i);
      const std::string word = para.substr(i, sp == std::string::npos ? std::string::npos : sp - i);
      i = sp == std::string::npos ? para.size() : sp + 1;
      if (word.empty()) continue;
      if (!first_word && col + 1 + word.size() > width) {
        out += "\n" + cont;
        col = cont.size();
      } else if (!first_word) {
        out += ' ';
        ++col;
      }
      out += word;
      col += word.size();
      first_word = false;
    }
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

std::string shorten(const std::string& s, std::size_t max) {
  if (s.size() <= max) return s;
  return std::string(utf8_prefix(s, max > 3 ? max - 3 : max)) + "...";
}

std::string paint(const std::string& text, const char* code, const ConsoleStyle& style) {
  if (!style.color) return text;
  return fmt::format("\033[{}m{}\033[0m", code, text);
}

const char* severity_color(const std::string& severity) {
  if (severity == "error") return "1;31";
  if (severity == "warning") return "1;33";
  return "1;36";
}

std::string describe_facts(const MachineFacts& f, const KnowledgeBase& kb) {
  std::vector<std::string> parts;
  if (!f.gfx.empty()) {
    const auto a = kb.gfx_arch(f.gfx);
    parts.push_back(a ? fmt::format("{} ({}, {})", f.gfx, a->family,
                                    a->support == "native" ? "supported natively"
                                    : a->support == "none" ? "no safe override"
                                                           : "override " + a->override_value)
                      : f.gfx);
  }
  if (!f.sm.empty()) parts.push_back(f.sm);
  if (!f.gpu.empty()) {
    parts.push_back(shorten(f.gpu, 60));
  } else if (!f.vendor.empty()) {
    parts.push_back(f.vendor + " GPU");
  }
  if (!f.os.empty()) parts.push_back(f.os);
  if (!f.backend.empty()) parts.push_back(f.backend);
  if (!f.torch_version.empty()) parts.push_back("torch " + f.torch_version);
  if (!f.torch_cuda.empty()) parts.push_back("CUDA " + f.torch_cuda);
  if (f.cpu_only_torch && *f.cpu_only_torch) parts.push_back("CPU-only torch");
  if (!f.driver.empty()) parts.push_back("driver " + f.driver);
  if (f.override_set && *f.override_set) {
    parts.push_back("HSA_OVERRIDE_GFX_VERSION set" +
                    (f.override_value.empty() ? "" : "=" + f.override_value));
  }
  if (f.igpu && *f.igpu) parts.push_back("integrated GPU present");
  return join(parts, ", ");
}

std::string render_human(const ExplainResult& r, const std::string& source, const KnowledgeBase& kb,
                         const ConsoleStyle& style) {
  const std::size_t width = static_cast<std::size_t>(std::clamp(style.width, 60, 120));
  std::string out;
  const std::string what =
      fmt::format("{} ({} line{}, {} byte{}{})", source, r.lines, r.lines == 1 ? "" : "s", r.bytes,
                  r.bytes == 1 ? "" : "s", r.binary ? ", binary data" : "");
  const std::string machine = describe_facts(r.facts, kb);
  if (r.diagnoses.empty()) {
    out += fmt::format("Nothing recognised in {}.\n", what);
    if (!machine.empty()) out += fmt::format("Machine: {}\n", machine);
    if (!r.key_lines.empty()) {
      out += "The lines that read most like the error:\n";
      for (const auto& k : r.key_lines) {
        const std::string prefix = fmt::format("    line {}: ", k.number);
        out += prefix + shorten(k.text, width > prefix.size() + 10 ? width - prefix.size() : 40) + "\n";
      }
    }
    if (!r.near_matches.empty()) {
      out += "Known problems with similar wording (a lead to check, not a recognised cause):\n";
      for (const auto& m : r.near_matches) {
        // Rounded down and below 100 unless the words are the same: 99.6 % is not "100 % similar".
        const double percent =
            m.similarity >= 1.0 - 1e-9 ? 100.0 : std::min(99.0, std::floor(100 * m.similarity));
        out +=
            fmt::format("    {} ({}; {:.0f}% similar to line {})\n", m.title, m.id, percent, m.line_number);
        out += "      known message: " + shorten(m.example, width > 24 ? width - 21 : 40) + "\n";
      }
      out +=
          "    Compare the known message with your log before acting on it; the entry's cause and fix are in "
          "kb/errors/.\n";
    }
    out +=
        "The knowledge base (kb/errors/) has no signature for these lines; paste the full traceback,\n"
        "including the lines before the final error, or run `accel-doctor` on the machine itself.\n";
    if (r.long_lines) {
      out += fmt::format(
          "({} very long line(s) were read only up to their first 64 KiB: a message past that point was not "
          "seen)\n",
          r.long_lines);
    }
    return out;
  }
  out +=
      fmt::format("{} recognised in {}\n",
                  r.diagnoses.size() == 1 ? "1 cause" : fmt::format("{} causes", r.diagnoses.size()), what);
  out += fmt::format("Machine: {}\n", machine.empty()
                                          ? "nothing known (use --arch/--os/--backend/--gpu or --from "
                                            "report.json for a specific fix)"
                                          : machine);
  if (r.long_lines)
    out += fmt::format("({} very long line(s) were read only up to their first 64 KiB)\n", r.long_lines);
  for (std::size_t i = 0; i < r.diagnoses.size(); ++i) {
    const Diagnosis& d = r.diagnoses[i];
    out += "\n";
    out += fmt::format("{} {} {}\n", paint(fmt::format("[{}]", i + 1), "1", style),
                       paint(d.severity, severity_color(d.severity), style), paint(d.title, "1", style));
    out += fmt::format("    id: {}\n", d.id);
    const std::size_t shown = std::min<std::size_t>(d.matched_lines.size(), 3);
    for (std::size_t k = 0; k < shown; ++k) {
      const std::string prefix =
          fmt::format("    line {}: ", k < d.line_numbers.size() ? d.line_numbers[k] : 0);
      out += prefix + shorten(d.matched_lines[k], width > prefix.size() + 10 ? width - prefix.size() : 40) +
             "\n";
    }
    if (d.match_count > shown) {
      out += fmt::format("    (+{} more matching line{})\n", d.match_count - shown,
                         d.match_count - shown == 1 ? "" : "s");
    }
    out += "    Cause: " + wrap(d.cause, width, "           ") + "\n";
    out += "    Fix:   " + wrap(d.fix, width, "           ") + "\n";
    if (!d.reference.empty()) out += "    See:   " + d.reference + "\n";
  }
  return out;
}

/// Where the machine context came from: "here" (this machine's probes), a
/// report's path, "options" (--arch/--os/...), or "none".
json render_json(const ExplainResult& r, const std::string& source, const MachineContext& ctx,
                 const std::string& machine_source) {
  json diagnoses = json::array();
  for (const auto& d : r.diagnoses) diagnoses.push_back(diagnosis_to_json(d));
  json key_lines = json::array();
  for (const auto& k : r.key_lines)
    key_lines.push_back({{"line", k.number}, {"text", k.text}, {"weight", k.weight}});
  json near = json::array();
  for (const auto& m : r.near_matches) {
    near.push_back({{"id", m.id},
                    {"title", m.title},
                    {"similarity", m.similarity},
                    {"line", m.line_number},
                    {"known_message", m.example}});
  }
  const ToolInfo tool = tool_info();
  return json{{"schema_version", 1},
              {"tool", {{"version", tool.version}, {"commit", tool.commit}}},
              {"input",
               {{"source", source},
                {"lines", r.lines},
                {"bytes", r.bytes},
                {"long_lines", r.long_lines},
                {"binary", r.binary}}},
              {"context",
               {{"source", machine_source},
                {"given",
                 {{"os", ctx.os},
                  {"arch", ctx.arch},
                  {"backend", ctx.backend},
                  {"gpu", ctx.gpu},
                  {"versions", ctx.versions}}},
                {"facts", machine_facts_to_json(r.facts)}}},
              {"recognised", !r.diagnoses.empty()},
              {"diagnoses", diagnoses},
              {"key_lines", key_lines},
              {"near_matches", near}};
}

}  // namespace

MachineContext machine_context_from_report(const Report& report) {
  return machine_context_of(report.context.environment);
}

MachineContext machine_context_here(const KnowledgeBase& kb) {
  // The engine is not asked: explain must work where no torch is built (a
  // Windows machine with torch-directml, a broken install), and the torch
  // build is what the log itself usually names.
  const EngineAbsence absent{EngineAbsence::Kind::not_found, "explain --here asks no engine"};
  return machine_context_of(collect_environment(kb, nullptr, absent));
}

int cmd_explain(App& app, const ExplainArgs& args) {
  MachineContext ctx;
  if (args.here) ctx = machine_context_here(app.kb());
  if (!args.from.empty()) {
    try {
      ctx = machine_context_from_report(read_report_file(args.from));
    } catch (const ReportError& e) {
      throw UsageError(fmt::format("--from {}: {}", args.from, e.what()));
    }
  }
  // Explicit options win over the report.
  if (!args.os.empty()) ctx.os = args.os;
  if (!args.arch.empty()) ctx.arch = args.arch;
  if (!args.backend.empty()) ctx.backend = args.backend;
  if (!args.gpu.empty()) ctx.gpu = args.gpu;
  if (!args.versions.empty()) ctx.versions = args.versions;
  if (!args.env.empty()) {
    ctx.env = join(args.env, "\n") + (ctx.env.empty() ? "" : "\n" + ctx.env);
  }

  const KnowledgeBase& kb = app.kb();
  const bool given = !args.os.empty() || !args.arch.empty() || !args.backend.empty() || !args.gpu.empty() ||
                     !args.versions.empty() || !args.env.empty();
  const std::string machine_source = args.here            ? "here"
                                     : !args.from.empty() ? args.from
                                     : given              ? "options"
                                                          : "none";
  const bool use_stdin = args.file.empty() || args.file == "-";
  const std::string source = use_stdin ? "standard input" : args.file;
  ExplainResult result;
  if (use_stdin) {
    std::ios::sync_with_stdio(false);  // buffered reads: logs can be 100 MB
    result = kb.explain_stream(std::cin, ctx);
    if (std::cin.bad()) throw UsageError("cannot read standard input");
  } else {
    std::error_code ec;
    if (fs::is_directory(args.file, ec))
      throw UsageError(fmt::format("{} is a directory, not a log file", args.file));
    std::ifstream in(args.file, std::ios::binary);
    if (!in) throw UsageError(fmt::format("cannot read {}: {}", args.file, std::strerror(errno)));
    result = kb.explain_stream(in, ctx);
    if (in.bad()) throw UsageError(fmt::format("error while reading {}", args.file));
  }
  if (result.bytes == 0) {
    // Not "nothing recognised": there was nothing to read (an empty file, or a
    // pipe whose producer wrote nothing, e.g. a command that failed first).
    throw UsageError(
        fmt::format("{} is empty (0 bytes): nothing to explain; give the file or pipe that holds the log",
                    use_stdin ? "standard input" : args.file));
  }

  if (args.json) {
    // Asked for explicitly: printed even with --quiet.
    std::cout << app.scrub(render_json(result, use_stdin ? "-" : args.file, ctx, machine_source)
                               .dump(2, ' ', false, json::error_handler_t::replace) +
                           "\n")
              << std::flush;
  } else {
    app.out(render_human(result, source, kb, app.style_stdout()));
  }
  if (!app.options().json_path.empty()) {  // the global --json FILE also saves the JSON form
    const std::string text = app.scrub(render_json(result, use_stdin ? "-" : args.file, ctx, machine_source)
                                           .dump(2, ' ', false, json::error_handler_t::replace) +
                                       "\n");
    if (app.options().json_path == "-") {
      if (!args.json) std::cout << text;
    } else {
      std::ofstream out(app.options().json_path, std::ios::binary | std::ios::trunc);
      if (!out || !(out << text)) throw UsageError("cannot write " + app.options().json_path);
    }
  }
  return result.diagnoses.empty() ? kExitNothingRecognised : kExitHealthy;
}

// ---------------------------------------------------------------- options

CLI::App* add_explain_command(CLI::App& cli, ExplainArgs& args) {
  auto* explain = cli.add_subcommand("explain",
                                     "recognise the causes of errors in a log or traceback (FILE, or "
                                     "standard input) and say what to change");
  explain->add_option("file", args.file, "log or traceback to read; '-' or nothing reads standard input");
  explain->add_option("--arch", args.arch,
                      "GPU architecture of the machine that failed: gfx1032, sm_86, ...");
  explain->add_option("--os", args.os, "its OS: linux, windows, macos, wsl (free text accepted)");
  explain->add_option("--backend", args.backend, "its torch backend: rocm, cuda, directml, mps, xpu, cpu");
  explain->add_option("--gpu", args.gpu, "its GPU name(s), e.g. 'RX 6600 + Vega iGPU'");
  explain->add_option("--versions", args.versions, "versions, e.g. 'torch 2.4.0+cu121, driver 535.104'");
  explain->add_option("--env", args.env, "NAME=VALUE of its environment (repeatable)");
  auto* explain_from = explain->add_option("--from", args.from,
                                           "take the machine from a saved report.json (accel-doctor --json)");
  explain
      ->add_flag("--here", args.here,
                 "take the machine from this computer's probes (OS, GPUs and archs, drivers, GPU "
                 "environment variables; no torch engine is started)")
      ->excludes(explain_from);
  explain->add_flag("--json", args.json, "print the diagnoses as JSON on standard output");
  return explain;
}

}  // namespace accel::cli
