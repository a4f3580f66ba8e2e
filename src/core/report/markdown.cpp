#include "core/report/markdown.hpp"

#include <map>

#include <fmt/format.h>

#include "core/report/digest.hpp"
#include "core/report/gpu_busy_rows.hpp"
#include "core/report/gpu_index_rows.hpp"
#include "core/report/onnxruntime_env.hpp"
#include "core/report/windows_env.hpp"
#include "core/units.hpp"

namespace accel {

namespace {

std::string join_nonempty(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

/// Inline text outside tables: newlines become spaces, HTML is neutralised.
std::string inline_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string code(const std::string& s) {
  if (s.empty()) return "";
  // A backtick inside the text needs a longer fence.
  const std::string fence = s.find('`') == std::string::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " : "") + s + (fence.size() > 1 ? " " : "") + fence;
}

std::string build_value(const TorchInfo& t, const char* key) {
  const auto it = t.build.find(key);
  return it == t.build.end() ? std::string() : it->second;
}

void env_row(std::string& out, const std::string& label, const std::string& value) {
  if (value.empty()) return;
  out += fmt::format("| {} | {} |\n", label, markdown_cell(value));
}

std::string gpu_line(const Environment& env, const std::string& device) {
  std::vector<std::string> lines;
  for (const auto& d : env.devices) {
    std::string s = d.id + ": " + d.name;
    std::vector<std::string> extra;
    if (!d.arch.empty()) extra.push_back(d.arch);
    if (d.total_memory_bytes) extra.push_back(format_bytes(static_cast<double>(*d.total_memory_bytes)));
    if (d.multiprocessors)
      extra.push_back(fmt::format("{} {}", *d.multiprocessors, d.vendor == "amd" ? "CUs" : "SMs"));
    if (d.arch_in_build && !*d.arch_in_build) extra.push_back("ARCH NOT IN THE TORCH BUILD");
    if (!extra.empty()) s += " (" + join_nonempty(extra, ", ") + ")";
    if (d.id == device) s += " - measured";
    lines.push_back(s);
  }
  if (lines.empty()) {
    for (const auto& g : env.gpus) {
      lines.push_back(fmt::format("{} {} (driver {}; torch does not see it)", g.pci_address,
                                  g.name.empty() ? g.vendor + " " + g.device_id : g.name,
                                  g.driver.empty() ? "none" : g.driver));
    }
  }
  if (lines.empty()) return "none found";
  return join_nonempty(lines, "; ");
}

std::string driver_line(const DriverInfo& d) {
  std::vector<std::string> parts;
  if (!d.nvidia_driver.empty()) parts.push_back("NVIDIA " + d.nvidia_driver);
  if (!d.cuda_driver_api.empty()) parts.push_back("CUDA driver API " + d.cuda_driver_api);
  if (!d.cuda_init_error.empty()) parts.push_back("cuInit failed: " + d.cuda_init_error);
  if (!d.rocm_version.empty()) parts.push_back("ROCm " + d.rocm_version);
  if (!d.amdgpu_driver.empty()) parts.push_back("amdgpu " + d.amdgpu_driver);
  if (parts.empty()) return "none found";
  return join_nonempty(parts, ", ");
}

std::string torch_line(const TorchInfo& t) {
  std::vector<std::string> parts{t.version.empty() ? "unknown version" : t.version};
  if (!t.backend.empty()) parts.push_back(t.backend + " build");
  if (!t.cuda_version.empty()) parts.push_back("CUDA " + t.cuda_version);
  if (!t.cudnn_version.empty()) parts.push_back("cuDNN " + t.cudnn_version);
  if (!t.hip_version.empty()) parts.push_back("HIP " + t.hip_version);
  if (!t.arch_list.empty()) parts.push_back("archs " + join_nonempty(t.arch_list, " "));
  const std::string blas = build_value(t, "BLAS_INFO");
  if (!blas.empty()) parts.push_back("built with BLAS " + blas);
  if (!t.source.empty()) parts.push_back("from " + t.source);
  return join_nonempty(parts, ", ");
}

std::string blas_line(const BlasInfo& b) {
  if (b.name.empty()) {
    const auto it = b.not_collected.find("name");
    return it == b.not_collected.end() ? "could not collect" : "could not collect (" + it->second + ")";
  }
  return join_nonempty({b.name, b.version, b.library.empty() ? "" : "(" + b.library + ")"}, " ");
}

std::string cpu_line(const HostInfo& h) {
  std::vector<std::string> parts{h.cpu_model.empty() ? "unknown CPU" : h.cpu_model};
  if (h.logical_cores) parts.push_back(fmt::format("{} logical cores", *h.logical_cores));
  if (h.memory_total_bytes)
    parts.push_back(format_bytes(static_cast<double>(*h.memory_total_bytes)) + " RAM");
  return join_nonempty(parts, ", ");
}

std::string problem_text(const Result& r) {
  if (r.profile && r.profile->where == Where::cpu_fallback && r.status == Status::ok) {
    return "ran on the CPU: " + r.profile->detail;
  }
  if (r.error && !r.error->message.empty()) return r.error->message;
  return r.reason;
}

}  // namespace

std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '|':
        out += "\\|";
        break;
      case '\n':
        out += "<br>";
        break;
      case '\r':
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

void header_md(std::string& out, const Report& report, const std::string& device) {
  const auto& ctx = report.context;
  out += "## accel-doctor report\n\n";
  out += "**Verdict:** " + inline_text(verdict_or_summary(report)) + "\n\n";
  std::vector<std::string> meta;
  meta.push_back(fmt::format("accel-doctor {}{}", ctx.tool.version.empty() ? "?" : ctx.tool.version,
                             ctx.tool.commit.empty() ? "" : " (" + ctx.tool.commit + ")"));
  if (!ctx.command.empty()) meta.push_back("command " + code(ctx.command));
  meta.push_back("device " + code(device));
  if (!ctx.started_at.empty()) meta.push_back(ctx.started_at);
  out += "<sub>" + inline_text(join_nonempty(meta, " · ")) + "</sub>\n\n";
}

/// The findings as the rules engine ranked them.
void findings_md(std::string& out, const std::vector<Finding>& findings) {
  out += fmt::format("### Findings ({})\n\n", findings.size());
  if (findings.empty()) out += "No findings.\n";
  for (const auto& f : findings) {
    out += fmt::format("- **{}** {}\n",
                       f.severity == Severity::none ? std::string_view("note") : to_string(f.severity),
                       inline_text(f.title));
    if (!f.evidence.empty()) out += "  - Evidence: " + inline_text(f.evidence) + "\n";
    if (!f.why.empty()) out += "  - Why it matters: " + inline_text(f.why) + "\n";
    if (!f.fix.empty()) out += "  - Fix: " + inline_text(f.fix) + "\n";
    if (!f.reference.empty()) out += "  - See: " + inline_text(f.reference) + "\n";
  }
  out += "\n";
}

void key_numbers_md(std::string& out, const Report& report) {
  const auto figures = key_figures(report);
  if (figures.empty()) return;
  out += "### Key numbers\n\n| what | measured | against |\n| --- | --- | --- |\n";
  for (const auto& k : figures) {
    out += fmt::format("| {} | {} | {} |\n", markdown_cell(k.label), markdown_cell(k.value),
                       markdown_cell(k.versus.empty() ? "-" : k.versus));
  }
  out += "\n";
}

/// The items that need attention, the first `max_problems` of them.
void failing_checks_md(std::string& out, const Report& report, int max_problems) {
  std::vector<const Result*> problems;
  for (const auto& r : report.results) {
    if (needs_attention(r)) problems.push_back(&r);
  }
  if (problems.empty()) return;
  out += fmt::format("### Failing checks ({})\n\n", problems.size());
  out += "| item | status | problem | cause | fix |\n| --- | --- | --- | --- | --- |\n";
  int shown = 0;
  for (const Result* r : problems) {
    if (shown++ >= max_problems) break;
    const std::string status =
        r->status == Status::ok ? std::string("cpu fallback") : std::string(to_string(r->status));
    out += fmt::format("| {} | {} | {} | {} | {} |\n", markdown_cell(code(r->key)), status,
                       markdown_cell(problem_text(*r)), markdown_cell(r->error ? r->error->cause : ""),
                       markdown_cell(r->error ? r->error->fix : ""));
  }
  if (static_cast<int>(problems.size()) > max_problems) {
    out += fmt::format("\n… and {} more (the JSON or HTML report lists them all).\n",
                       problems.size() - static_cast<std::size_t>(max_problems));
  }
  out += "\n";
}

void gpu_busy_md(std::string& out, const std::vector<Result>& results) {
  const auto busy = gpu_busy_rows(results);
  if (busy.empty()) return;
  out +=
      "### GPU busy while measuring\n\nSampled by accel-doctor from each item's start to its result "
      "(the whole item, warm-up included).\n\n| item | GPU (busiest) | busy | engines (median/max) | "
      "samples | note |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& b : busy) {
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", markdown_cell(code(b.key)), markdown_cell(b.gpu),
                       markdown_cell(b.low ? "**" + b.busy + "**" : b.busy), markdown_cell(b.engines),
                       markdown_cell(b.samples), markdown_cell(b.note));
  }
  out += "\n";
}

/// Rows with a group (ONNX Runtime, Windows) as a three-column table.
void grouped_rows_md(std::string& out, const std::string& title, const std::vector<EnvRow>& rows) {
  out += "\n### " + title + "\n\n| | | |\n| --- | --- | --- |\n";
  for (const auto& r : rows)
    out += "| " + markdown_cell(r.group) + " | " + markdown_cell(r.label) + " | " + markdown_cell(r.value) +
           " |\n";
}

void environment_md(std::string& out, const Report& report, const std::string& device) {
  const auto& env = report.context.environment;
  out += "### Environment\n\n| | |\n| --- | --- |\n";
  env_row(out, "GPU", gpu_line(env, device));
  env_row(out, "driver", driver_line(env.driver));
  env_row(out, "torch", torch_line(env.torch));
  env_row(out, "CPU BLAS (loaded)", blas_line(env.blas));
  env_row(out, "CPU", cpu_line(env.host));
  env_row(out, "OS", join_nonempty({env.host.os, env.host.kernel}, ", "));
  if (env.selection) env_row(out, "device choice", env.selection->chosen + ": " + env.selection->reason);
  std::vector<std::string> vars;
  for (const auto& v : env.env_vars) vars.push_back(code(v.name + "=" + v.value));
  env_row(out, "GPU environment variables", vars.empty() ? "none set" : join_nonempty(vars, " "));
  if (env.onnxruntime) grouped_rows_md(out, "ONNX Runtime", onnxruntime_env_rows(*env.onnxruntime));
  if (env.windows) grouped_rows_md(out, "Windows", windows_env_rows(*env.windows));
  const auto indices = gpu_index_rows(env, report.results);
  if (!indices.empty()) {
    out += "\n### GPU indices\n\n| adapter | indices |\n| --- | --- |\n";
    for (const auto& r : indices)
      out += "| " + markdown_cell(r.label) + " | " + markdown_cell(r.value) + " |\n";
  }
}

}  // namespace

std::string render_markdown(const Report& report, const MarkdownOptions& options) {
  std::string out;
  const std::string device = report_device(report);
  header_md(out, report, device);
  findings_md(out, report.findings);
  key_numbers_md(out, report);
  failing_checks_md(out, report, options.max_problems);
  gpu_busy_md(out, report.results);
  environment_md(out, report, device);
  return out;
}

}  // namespace accel
