// The rules engine: runs every rule, ranks the findings, writes the verdict.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <re2/re2.h>

#include "core/files.hpp"
#include "core/rules/context.hpp"
#include "core/rules/rules.hpp"
#include "core/units.hpp"

namespace accel {

using rules::Ctx;

// ---------------------------------------------------------------- rule data

RuleData RuleData::parse(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number too large
    throw RuleDataError(fmt::format("{} is not valid JSON: {}", origin, e.what()));
  }
  RuleData d;
  try {
    if (!j.is_object()) throw RuleDataError(fmt::format("{}: expected a JSON object", origin));
    if (j.contains("slow_env_vars")) {
      std::size_t i = 0;
      for (const auto& e : j.at("slow_env_vars")) {
        SlowEnvVar s;
        s.name = e.at("name").get<std::string>();
        s.match = e.at("match").get<std::string>();
        const std::string severity = e.value("severity", "warning");
        s.why = e.at("why").get<std::string>();
        s.fix = e.value("fix", "");
        RE2 re(s.match, RE2::Quiet);
        if (!re.ok()) {
          throw RuleDataError(fmt::format("{}: slow_env_vars[{}] ({}): invalid RE2 pattern '{}': {}", origin,
                                          i, s.name, s.match, re.error()));
        }
        if (rules::severity_rank_valid(severity) == false) {
          throw RuleDataError(fmt::format(
              "{}: slow_env_vars[{}] ({}): severity must be critical, warning or info", origin, i, s.name));
        }
        s.severity = *severity_from_string(severity);
        d.slow_env_vars.push_back(std::move(s));
        ++i;
      }
    }
    if (j.contains("setting_symptoms")) {
      std::size_t i = 0;
      for (const auto& e : j.at("setting_symptoms")) {
        SettingSymptom s;
        s.name = e.at("name").get<std::string>();
        s.value = e.value("value", ".*");
        s.symptoms = e.at("symptoms").get<std::vector<std::string>>();
        s.effect = e.at("effect").get<std::string>();
        s.fix = e.value("fix", "");
        s.source = e.value("source", "");
        std::vector<std::string> patterns = s.symptoms;
        patterns.push_back(s.value);
        for (const auto& p : patterns) {
          RE2 re(p, RE2::Quiet);
          if (!re.ok()) {
            throw RuleDataError(fmt::format("{}: setting_symptoms[{}] ({}): invalid RE2 pattern '{}': {}",
                                            origin, i, s.name, p, re.error()));
          }
        }
        if (s.symptoms.empty()) {
          throw RuleDataError(fmt::format("{}: setting_symptoms[{}] ({}): no symptoms", origin, i, s.name));
        }
        d.setting_symptoms.push_back(std::move(s));
        ++i;
      }
    }
    if (j.contains("bf16_emulated")) {
      const auto& b = j.at("bf16_emulated");
      d.bf16_emulated_gfx_families = b.value("gfx_families", std::vector<std::string>{});
      d.bf16_min_sm = b.value("min_sm", 80);
    }
  } catch (const json::exception& e) {
    throw RuleDataError(fmt::format("{} is malformed: {}", origin, e.what()));
  }
  return d;
}

RuleData RuleData::load(const std::string& kb_dir) {
  const std::filesystem::path path = std::filesystem::path(kb_dir) / "rules.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return RuleData{};
  const auto text = read_file(path);
  if (!text) throw RuleDataError(fmt::format("cannot read {}", path.string()));
  return parse(*text, path.string());
}

// ---------------------------------------------------------------- ranking

int severity_rank(Severity severity) {
  switch (severity) {
    case Severity::critical:
      return 0;
    case Severity::warning:
      return 1;
    case Severity::info:
      return 2;
    case Severity::none:
      break;
  }
  return 3;
}

namespace rules {
bool severity_rank_valid(std::string_view severity) {
  const auto s = severity_from_string(severity);
  return s && severity_rank(*s) < 3;
}

std::vector<RuleEntry> all_rules() {
  std::vector<RuleEntry> all = setup_rules();
  for (auto* part : {&perf_rules, &health_rules, &vulkan_rules, &windows_rules, &gpu_busy_rules, &multi_rules,
                     &onnxruntime_rules}) {
    auto more = (*part)();
    all.insert(all.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return all;
}
}  // namespace rules

std::vector<Finding> diagnose(const Report& report, const DiagnoseOptions& options) {
  const Ctx ctx(report, options);
  std::vector<Finding> out;
  for (const auto& rule : rules::all_rules()) {
    std::vector<Finding> found;
    try {
      rule.fn(ctx, found);
    } catch (const std::exception&) {
      continue;  // odd evidence: this rule stays silent rather than failing the diagnosis
    }
    out.insert(out.end(), found.begin(), found.end());
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.impact != b.impact) return a.impact > b.impact;
    const int sa = severity_rank(a.severity), sb = severity_rank(b.severity);
    if (sa != sb) return sa < sb;
    return a.id < b.id;
  });
  return out;
}

bool needs_attention(const Report& report, const std::vector<Finding>& findings) {
  for (const auto& f : findings) {
    if (severity_rank(f.severity) <= 1) return true;
  }
  for (const auto& r : report.results) {
    if (is_failure(r.status)) return true;
  }
  return false;
}

std::vector<RuleInfo> list_rules() {
  std::vector<RuleInfo> out;
  for (const auto& r : rules::all_rules()) out.push_back({r.id, r.triggers});
  return out;
}

// ---------------------------------------------------------------- verdict

namespace {

std::string counts_phrase(const std::vector<Finding>& findings) {
  int crit = 0, warn = 0, info = 0;
  for (const auto& f : findings) {
    const int s = severity_rank(f.severity);
    crit += s == 0;
    warn += s == 1;
    info += s == 2;
  }
  std::vector<std::string> parts;
  if (crit) parts.push_back(fmt::format("{} critical", crit));
  if (warn) parts.push_back(fmt::format("{} warning{}", warn, warn == 1 ? "" : "s"));
  std::string s = parts.empty() ? "no problems found" : rules::list_some(parts);
  if (parts.size() == 2) s = parts[0] + ", " + parts[1];
  if (info) s += fmt::format(" ({} tip{})", info, info == 1 ? "" : "s");
  return s;
}

const Finding* find_id(const std::vector<Finding>& findings, std::string_view prefix) {
  for (const auto& f : findings) {
    if (rules::starts_with(f.id, prefix)) return &f;
  }
  return nullptr;
}

std::string lower_first(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && !(s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z')) {
    s[0] = static_cast<char>(s[0] - 'A' + 'a');
  }
  return s;
}

/// "112/114 checks ran on the device" (device kernels, or views that need none) / "468/596 checks ok".
std::string checks_phrase(const Ctx& c) {
  int total = 0, ok = 0, on_device = 0, profiled = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::check || r.device != c.target) continue;
    ++total;
    ok += r.status == Status::ok;
    if (r.profile &&
        (r.profile->where == Where::device_kernels || r.profile->where == Where::no_device_work ||
         r.profile->where == Where::backend_kernels || r.profile->where == Where::cpu_fallback)) {
      ++profiled;
      // Views and metadata ops do no device work, and need none.
      on_device += r.profile->where != Where::cpu_fallback && r.status == Status::ok;
    }
  }
  if (total == 0) return "";
  if (!c.target_is_cpu() && profiled > 0)
    return fmt::format("{}/{} checks ran on the device", on_device, total);
  return fmt::format("{}/{} checks ok", ok, total);
}

/// "bf16 GEMM at 78% of peak" (the fastest dtype), or the raw rate when no peak is known.
std::string gemm_phrase(const Ctx& c) {
  // The fastest dtype, from a quiet timing when there is one.
  const Result* best = nullptr;
  double best_tflops = 0;
  bool best_quiet = false;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::bench || r.status != Status::ok || r.device != c.target) continue;
    const auto k = BenchKey::parse(r.key);
    if (!k || k->group != "gemm" || k->dtype == "int8") continue;
    const auto it = r.metrics.find("tflops");
    if (it == r.metrics.end() || !(it->second > 0)) continue;
    if (r.roofline && r.roofline->above_peak) continue;
    const bool quiet = !r.timing || !r.timing->noisy;
    if ((quiet && !best_quiet) || (quiet == best_quiet && it->second > best_tflops)) {
      best_tflops = it->second;
      best = &r;
      best_quiet = quiet;
    }
  }
  if (!best) return "";
  if (best->roofline && best->roofline->percent_of_bound > 0) {
    return fmt::format("{} GEMM at {} of peak", best->dtype, rules::pct(best->roofline->percent_of_bound));
  }
  return best_tflops >= 1
             ? fmt::format("{} GEMM at {}", best->dtype, rules::rate(best_tflops, "TFLOP/s"))
             : fmt::format("{} GEMM at {}", best->dtype, rules::rate(best_tflops * 1000, "GFLOP/s"));
}

std::string decode_phrase(const Ctx& c) {
  double best = 0;
  for (const auto& r : c.report.results) {
    if (r.kind != ResultKind::llm || r.status != Status::ok || r.device != c.target) continue;
    const auto it = r.metrics.find("decode_roofline_pct");
    if (it != r.metrics.end() && it->second <= 105 && it->second > best) best = it->second;
  }
  return best > 0 ? fmt::format("LLM decode at {} of memory bandwidth", rules::pct(best)) : "";
}

}  // namespace

std::string verdict_line(const Report& report, const std::vector<Finding>& findings) {
  const DiagnoseOptions no_options;  // Ctx keeps a reference: a named object, not a temporary
  const Ctx c(report, no_options);
  const std::string counts = counts_phrase(findings);
  bool has_accelerator = false;
  for (const auto& d : c.env.devices) has_accelerator = has_accelerator || rules::lower(d.type) != "cpu";

  if (find_id(findings, "no_engine")) {
    return fmt::format("not measured: no torch engine, so whether a GPU does the work is unknown; {}",
                       counts);
  }
  if (!has_accelerator) {
    if (const Finding* f = find_id(findings, "no_accelerator.cpu_only_torch")) {
      std::string t = f->title;
      const std::string prefix = "The GPU is not used: ";
      if (rules::starts_with(t, prefix)) t = t.substr(prefix.size());
      return fmt::format("the GPU is not used: {}; {}", lower_first(t), counts);
    }
    if (const Finding* f = find_id(findings, "no_accelerator.")) {
      return fmt::format("the GPU is not used: {}; {}", lower_first(f->title), counts);
    }
  }

  std::vector<std::string> facts;
  for (const auto& s : {checks_phrase(c), gemm_phrase(c), decode_phrase(c)}) {
    if (!s.empty()) facts.push_back(s);
  }
  std::string subject;
  if (c.target_is_cpu()) {
    bool any_gpu = !c.env.gpus.empty() || has_accelerator;
    subject = any_gpu ? "the CPU does the work (a GPU is present but was not measured)"
                      : "the CPU does the work (no GPU found)";
  } else {
    // Did any measured work succeed on the device?
    int results = 0, ok = 0;
    for (const auto& r : c.report.results) {
      if (r.device != c.target) continue;
      ++results;
      ok += r.status == Status::ok;
    }
    subject = c.device_label(c.target) + " does the work";
    if (results == 0) {
      subject =
          c.device_label(c.target) + " is the device torch uses (this report has no measurements on it)";
    } else if (ok == 0) {
      subject = c.device_label(c.target) + " is selected but does none of the work";
    } else if (find_id(findings, "integrated_gpu_selected")) {
      subject = c.device_label(c.target) + ", an integrated GPU, does the work while a discrete GPU idles";
    }
  }
  std::string line = subject;
  if (!facts.empty()) {
    line += ": ";
    for (std::size_t i = 0; i < facts.size(); ++i) line += (i ? ", " : "") + facts[i];
  }
  line += "; " + counts;
  const Finding* top = findings.empty() ? nullptr : &findings.front();
  if (top && severity_rank(top->severity) == 0) line += "; most important: " + lower_first(top->title);
  return line;
}

std::string multi_verdict_line(const Report& report, const std::vector<Finding>& findings) {
  const Result* group = nullptr;
  const Result* all_reduce = nullptr;
  const Result* slowest = nullptr;
  double largest_link = 0;
  auto metric = [](const Result& r, const char* name) {
    const auto it = r.metrics.find(name);
    return it == r.metrics.end() ? 0.0 : it->second;
  };
  for (const auto& r : report.results) {
    if (r.kind != ResultKind::multi) continue;
    if (r.category == "group") group = &r;
    if (r.category == "collective" && r.name == "all_reduce" && r.status == Status::ok &&
        (!all_reduce || metric(r, "size_bytes") > metric(*all_reduce, "size_bytes"))) {
      all_reduce = &r;
    }
    if (r.category == "link" && r.status == Status::ok)
      largest_link = std::max(largest_link, metric(r, "size_bytes"));
  }
  for (const auto& r : report.results) {
    if (r.kind != ResultKind::multi || r.category != "link" || r.status != Status::ok ||
        metric(r, "size_bytes") != largest_link)
      continue;
    if (!slowest || metric(r, "busbw_gbps") < metric(*slowest, "busbw_gbps")) slowest = &r;
  }
  std::vector<std::string> parts;
  std::string subject = "nothing measured between ranks (fewer than two)";
  if (group) {
    subject = fmt::format("{} ({})", group->shape.empty() ? group->key : group->shape,
                          group->evidence.value("backend", std::string("?")));
    if (group->status != Status::ok) subject += fmt::format(": {}", to_string(group->status));
  }
  if (all_reduce) {
    parts.push_back(fmt::format("all-reduce busbw {} at {}",
                                rules::rate(metric(*all_reduce, "busbw_gbps"), "GB/s"),
                                format_bytes(metric(*all_reduce, "size_bytes"))));
  }
  if (slowest) {
    parts.push_back(fmt::format("slowest link r{:.0f} -> r{:.0f} at {}", metric(*slowest, "src_rank"),
                                metric(*slowest, "dst_rank"),
                                rules::rate(metric(*slowest, "busbw_gbps"), "GB/s")));
  }
  std::string line = subject;
  if (!parts.empty()) line += ": " + parts[0] + (parts.size() > 1 ? ", " + parts[1] : "");
  line += "; " + counts_phrase(findings);
  if (!findings.empty() && severity_rank(findings.front().severity) == 0) {
    line += "; most important: " + lower_first(findings.front().title);
  }
  return line;
}

}  // namespace accel
