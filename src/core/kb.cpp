#include "core/kb.hpp"

#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/paths.hpp"

namespace accel {

namespace fs = std::filesystem;

namespace {
struct ErrorEntry {
  std::string id, title, cause, fix, reference;
  Status status = Status::error;
  std::vector<std::unique_ptr<RE2>> patterns;
};

struct EnvEntry {
  std::string name;  // exact, or prefix ending in '*'
  std::string effect;
};

json read_json_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw KbError(fmt::format("cannot read kb file {}", path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  try {
    return json::parse(ss.str());
  } catch (const json::parse_error& e) {
    throw KbError(fmt::format("kb file {} is not valid JSON: {}", path.string(), e.what()));
  }
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    const auto end = nl == std::string_view::npos ? text.size() : nl;
    lines.push_back(text.substr(start, end - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return lines;
}
}  // namespace

struct KnowledgeBase::Impl {
  std::vector<ErrorEntry> errors;
  std::vector<EnvEntry> env;
};

KnowledgeBase::KnowledgeBase() : impl_(std::make_unique<Impl>()) {}
KnowledgeBase::~KnowledgeBase() = default;
KnowledgeBase::KnowledgeBase(KnowledgeBase&&) noexcept = default;
KnowledgeBase& KnowledgeBase::operator=(KnowledgeBase&&) noexcept = default;

KnowledgeBase KnowledgeBase::load(const std::string& dir) {
  KnowledgeBase kb;
  const fs::path root(dir);
  const json errors = read_json_file(root / "errors.json");
  for (const auto& e : errors.at("errors")) {
    ErrorEntry entry;
    entry.id = e.at("id").get<std::string>();
    entry.title = e.value("title", "");
    entry.cause = e.value("cause", "");
    entry.fix = e.value("fix", "");
    entry.reference = e.value("reference", "");
    const auto status = status_from_string(e.value("status", "error"));
    if (!status) throw KbError(fmt::format("kb entry {}: unknown status", entry.id));
    entry.status = *status;
    for (const auto& p : e.at("patterns")) {
      auto re = std::make_unique<RE2>(p.get<std::string>(), RE2::Quiet);
      if (!re->ok()) {
        throw KbError(fmt::format("kb entry {}: bad pattern '{}': {}", entry.id, p.get<std::string>(),
                                  re->error()));
      }
      entry.patterns.push_back(std::move(re));
    }
    kb.impl_->errors.push_back(std::move(entry));
  }
  const fs::path env_path = root / "env_vars.json";
  if (fs::exists(env_path)) {
    for (const auto& v : read_json_file(env_path).at("variables")) {
      kb.impl_->env.push_back({v.at("name").get<std::string>(), v.value("effect", "")});
    }
  }
  return kb;
}

KnowledgeBase KnowledgeBase::load_default() {
  const std::string dir = find_kb_dir();
  if (dir.empty()) {
    throw KbError(
        "knowledge base not found: set ACCEL_DOCTOR_KB to the kb/ directory, or keep kb/ beside "
        "the accel-doctor binary");
  }
  return load(dir);
}

std::vector<Diagnosis> KnowledgeBase::explain(std::string_view text, const MachineContext&) const {
  std::vector<Diagnosis> out;
  const auto lines = split_lines(text);
  for (const auto& entry : impl_->errors) {
    Diagnosis d;
    for (const auto& line : lines) {
      for (const auto& re : entry.patterns) {
        if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), *re)) {
          d.matched_lines.emplace_back(line);
          break;
        }
      }
    }
    if (d.matched_lines.empty()) continue;
    d.id = entry.id;
    d.title = entry.title;
    d.cause = entry.cause;
    d.fix = entry.fix;
    d.reference = entry.reference;
    d.status = entry.status;
    d.score = static_cast<double>(d.matched_lines.size());
    out.push_back(std::move(d));
  }
  return out;
}

std::optional<Diagnosis> KnowledgeBase::classify(std::string_view message,
                                                 const MachineContext& ctx) const {
  auto all = explain(message, ctx);
  if (all.empty()) return std::nullopt;
  return all.front();
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

std::string find_kb_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("ACCEL_DOCTOR_KB"); env && *env) candidates.emplace_back(env);
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
    if (fs::exists(c / "errors.json", ec)) return fs::weakly_canonical(c, ec).string();
  }
  return {};
}

}  // namespace accel
