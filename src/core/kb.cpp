// The knowledge base's public API (core/kb.hpp): loading a kb directory,
// the lookups (gfx/sm architectures, env vars, entries) and the JSON forms.
// Its parts are listed in core/kb_detail.hpp.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <filesystem>

#include <fmt/format.h>

#include "core/kb_detail.hpp"
#include "core/paths.hpp"
#include "core/strings.hpp"

namespace accel {

namespace fs = std::filesystem;

using kb_detail::build_sets;
using kb_detail::error_files;
using kb_detail::load_arch;
using kb_detail::load_errors;
using kb_detail::load_wheels;
using kb_detail::parse_context;
using kb_detail::read_json_file;

// ---------------------------------------------------------------- public API

KnowledgeBase::KnowledgeBase() : impl_(std::make_unique<Impl>()) {}
KnowledgeBase::~KnowledgeBase() = default;
KnowledgeBase::KnowledgeBase(KnowledgeBase&&) noexcept = default;
KnowledgeBase& KnowledgeBase::operator=(KnowledgeBase&&) noexcept = default;

KnowledgeBase KnowledgeBase::load(const std::string& dir) {
  KnowledgeBase kb;
  const fs::path root(dir);
  const auto files = error_files(root);
  if (files.empty()) {
    throw KbError(fmt::format("kb directory {} has no errors/*.json and no errors.json", root.string()));
  }
  load_errors(files, *kb.impl_);
  const fs::path arch_path = root / "arch.json";
  if (fs::exists(arch_path)) load_arch(arch_path, *kb.impl_);
  const fs::path wheels_path = root / "wheels.json";
  if (fs::exists(wheels_path)) load_wheels(wheels_path, *kb.impl_);
  const fs::path env_path = root / "env_vars.json";
  if (fs::exists(env_path)) {
    try {
      const json doc = read_json_file(env_path);  // kept alive: the loop reads into it
      for (const auto& v : doc.at("variables")) {
        kb.impl_->env.push_back({v.at("name").get<std::string>(), v.value("effect", "")});
      }
    } catch (const json::exception& ex) {
      throw KbError(fmt::format("kb file {}: {}", env_path.string(), ex.what()));
    }
  }
  build_sets(*kb.impl_);
  build_example_index(*kb.impl_);
  return kb;
}

KnowledgeBase KnowledgeBase::load_default() {
  const std::string dir = find_kb_dir();
  if (const char* env = std::getenv("ACCEL_DOCTOR_KB"); env && *env) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      throw KbError(fmt::format("ACCEL_DOCTOR_KB={}: not a directory (point it at the kb/ directory)", env));
    }
    if (error_files(fs::path(dir)).empty()) {
      throw KbError(fmt::format(
          "ACCEL_DOCTOR_KB={}: no errors/*.json or errors.json there (point it at the kb/ directory)", env));
    }
  }
  if (dir.empty()) {
    throw KbError(
        "knowledge base not found: set ACCEL_DOCTOR_KB to the kb/ directory, or keep kb/ beside "
        "the accel-doctor binary");
  }
  return load(dir);
}

MachineFacts KnowledgeBase::machine_facts(const MachineContext& ctx) const {
  return parse_context(*impl_, ctx);
}

std::optional<GfxArch> KnowledgeBase::gfx_arch(std::string_view target) const {
  const auto it = impl_->gfx.find(lower(target));
  if (it == impl_->gfx.end()) return std::nullopt;
  return it->second;
}

const DirectMlVersionTable& KnowledgeBase::directml_versions() const { return impl_->directml_versions; }

std::string KnowledgeBase::windows_hip_sdk_level(std::string_view gfx) const {
  const auto& t = impl_->windows_hip_sdk;
  if (t.empty() || gfx.empty()) return "";
  const auto it = t.find(std::string(gfx));
  return it == t.end() ? "none" : it->second;
}

std::vector<std::string> KnowledgeBase::windows_hip_sdk_targets(std::string_view level) const {
  std::vector<std::string> out;
  for (const auto& [gfx, l] : impl_->windows_hip_sdk) {
    if (l == level) out.push_back(gfx);
  }
  return out;
}

std::optional<SmArch> KnowledgeBase::sm_arch(std::string_view target) const {
  const auto it = impl_->sm.find(lower(target));
  if (it == impl_->sm.end()) return std::nullopt;
  return it->second;
}

std::string KnowledgeBase::env_var_effect(std::string_view name) const {
  for (const auto& e : impl_->env) {
    if (!e.name.empty() && e.name.back() == '*') {
      if (name.substr(0, e.name.size() - 1) == std::string_view(e.name).substr(0, e.name.size() - 1)) {
        return e.effect;
      }
    } else if (e.name == name) {
      return e.effect;
    }
  }
  return {};
}

std::vector<std::string> KnowledgeBase::env_var_patterns() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->env) out.push_back(e.name);
  return out;
}

std::size_t KnowledgeBase::error_entry_count() const { return impl_->errors.size(); }

std::vector<std::string> KnowledgeBase::error_entry_ids() const {
  std::vector<std::string> out;
  for (const auto& e : impl_->errors) out.push_back(e.id);
  return out;
}

std::vector<std::string> KnowledgeBase::error_entry_examples(std::string_view id) const {
  for (const auto& e : impl_->errors) {
    if (e.id == id) return e.examples;
  }
  return {};
}

std::string find_kb_dir() {
  // ACCEL_DOCTOR_KB, when set, is the kb: a wrong one is the user's set-up
  // error to hear about (load_default), never silently replaced by another.
  if (const char* env = std::getenv("ACCEL_DOCTOR_KB"); env && *env) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::path(env), ec);
    return ec ? std::string(env) : p.string();
  }
  std::vector<fs::path> candidates;
  const std::string exe = executable_dir();
  if (!exe.empty()) {
    candidates.push_back(fs::path(exe) / "kb");
    candidates.push_back(fs::path(exe) / ".." / "share" / "accel-doctor" / "kb");
  }
#ifdef ACCEL_SOURCE_KB_DIR
  candidates.emplace_back(ACCEL_SOURCE_KB_DIR);
#endif
  for (const auto& c : candidates) {
    std::error_code ec;
    if (!error_files(c).empty()) return fs::weakly_canonical(c, ec).string();
  }
  return {};
}

json diagnosis_to_json(const Diagnosis& d) {
  json lines = json::array();
  for (std::size_t i = 0; i < d.matched_lines.size(); ++i) {
    lines.push_back(
        {{"line", i < d.line_numbers.size() ? d.line_numbers[i] : 0}, {"text", d.matched_lines[i]}});
  }
  json fixes = json::array();
  for (const auto& f : d.fixes) {
    json o = {{"when", f.when}, {"fix", f.text}, {"applies", f.applies}};
    if (!f.check.empty()) o["check"] = f.check;
    fixes.push_back(std::move(o));
  }
  json status;
  to_json(status, d.status);
  return json{{"id", d.id},
              {"title", d.title},
              {"severity", d.severity},
              {"status", status},
              {"score", d.score},
              {"cause", d.cause},
              {"fix", d.fix},
              {"fixes", fixes},
              {"context_needed", d.context_needed},
              {"reference", d.reference},
              {"sources", d.sources},
              {"match_count", d.match_count},
              {"matched_lines", lines},
              {"details", d.details}};
}

json machine_facts_to_json(const MachineFacts& f) {
  json j = json::object();
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  auto put_opt = [&](const char* k, const std::optional<bool>& v) {
    if (v) j[k] = *v;
  };
  put("os", f.os);
  put("backend", f.backend);
  put("vendor", f.vendor);
  put("gfx", f.gfx);
  if (f.gfx_targets.size() > 1) j["gfx_targets"] = f.gfx_targets;
  put("reported_gfx", f.reported_gfx);
  put("sm", f.sm);
  put("gpu", f.gpu);
  put("torch_version", f.torch_version);
  put("torch_cuda", f.torch_cuda);
  put("torch_rocm", f.torch_rocm);
  put("driver", f.driver);
  put("driver_cuda", f.driver_cuda);
  put("python", f.python);
  put("override_value", f.override_value);
  put_opt("override_set", f.override_set);
  put_opt("igpu", f.igpu);
  put_opt("dgpu", f.dgpu);
  put_opt("cpu_only_torch", f.cpu_only_torch);
  if (!f.hints.empty()) j["hints"] = f.hints;
  return j;
}

}  // namespace accel
