// The knowledge base: the template engine of causes and fixes ({gfx},
// {min_driver}, {capture}, ... filled from the facts and the captures).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include <fmt/format.h>

#include "core/kb_detail.hpp"
#include "core/strings.hpp"

namespace accel {
namespace kb_detail {

namespace {

/// The placeholders filled from the wheel tables (kb/wheels.json) and the
/// Windows HIP SDK table; nullopt for another name.
std::optional<std::string> table_value(const std::string& name, const EvalContext& c) {
  const MachineFacts& f = c.f;
  if (name == "windows_hip_sdk") {
    const auto it = c.kb.windows_hip_sdk.find(f.gfx);
    if (f.gfx.empty() || c.kb.windows_hip_sdk.empty()) return "";
    if (it == c.kb.windows_hip_sdk.end() || it->second == "none") return "not supported";
    return it->second == "runtime" ? "the HIP runtime only (no HIP SDK libraries)"
                                   : "the HIP runtime and SDK libraries";
  }
  if (name == "therock_family" || name == "therock_index") {
    bool known = false;
    const TherockFamily* t = c.kb.tables.therock_family_for(f, &known);
    if (!t) return "";
    return name == "therock_family" ? t->family : "https://rocm.nightlies.amd.com/v2/" + t->family + "/";
  }
  if (name == "wheel_variant" || name == "wheel_archs" || name == "wheel_source") {
    const auto rows = c.kb.tables.rows_for(f);
    if (rows.empty()) return "";
    const TorchWheel* w = rows.front();
    if (name == "wheel_variant") return w->variant;
    if (name == "wheel_source") return w->source;
    std::string archs;
    for (const auto& a : w->archs) archs += (archs.empty() ? "" : " ") + a;
    if (!w->ptx.empty()) archs += " (+PTX " + w->ptx + ")";
    return archs;
  }
  if (name == "wheel_fit" || name == "wheel_fit_variant") {
    // The newest torch release and CUDA variant of the wheel table that
    // runs on this GPU (and this driver, when known).
    const auto fit = c.kb.tables.newest_fit(f, driver_max_cuda(c.kb, f));
    if (!fit) return "";
    if (name == "wheel_fit_variant") return fit->variant;
    return fmt::format(
        "torch {} with the {} wheels (pip install torch torchvision torchaudio --index-url "
        "https://download.pytorch.org/whl/{})",
        fit->torch, fit->variant, fit->variant);
  }
  if (name == "python_torch") return f.python.empty() ? "" : c.kb.tables.releases_for_python(f.python);
  if (name == "torch_newest") return c.kb.tables.newest_release();
  return std::nullopt;
}

/// The value of placeholder `name`: a capture of the message, a fact of the
/// machine, or what the kb's tables say about them; "" when unknown.
std::string placeholder_value(const std::string& name, const EvalContext& c) {
  if (const auto it = c.captures.find(name); it != c.captures.end()) return it->second;
  if (const std::string* v = text_fact(c.f, name)) return *v;
  if (name == "gfx_name") return c.gfx ? c.gfx->name : "";
  if (name == "gfx_family") return c.gfx ? c.gfx->family : "";
  if (name == "gfx_note") return c.gfx ? c.gfx->note : "";
  if (name == "override") return c.gfx ? c.gfx->override_value : "";
  if (name == "sm_name") return c.sm ? c.sm->name : "";
  if (name == "min_cuda") return c.sm ? c.sm->min_cuda : "";
  if (name == "wheel") return c.sm ? c.sm->wheel : "";
  if (name == "min_driver") return min_driver(c);
  if (name == "dml_dtypes") return c.kb.dml_dtypes;
  if (name == "directml_inbox") return c.kb.directml_versions.inbox_text();
  if (auto v = table_value(name, c)) return std::move(*v);
  return {};
}

/// The '}' that closes the '{' at `open` (defaults may hold placeholders);
/// npos when there is none.
std::size_t matching_brace(std::string_view text, std::size_t open) {
  for (std::size_t j = open + 1, depth = 1; j < text.size(); ++j) {
    if (text[j] == '{') ++depth;
    if (text[j] == '}' && --depth == 0) return j;
  }
  return std::string_view::npos;
}

/// Placeholder names are lower-case letters, digits and '_'.
bool is_placeholder_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char x) {
    return std::islower(static_cast<unsigned char>(x)) || std::isdigit(static_cast<unsigned char>(x)) ||
           x == '_';
  });
}

}  // namespace

/// Replaces {name} and {name|default}; unknown names without a default become <name>.
std::string render(std::string_view text, const EvalContext& c) {
  std::string out;
  out.reserve(text.size() + 32);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if ((ch == '{' || ch == '}') && i + 1 < text.size() && text[i + 1] == ch) {  // {{ and }}
      out.push_back(ch);
      ++i;
      continue;
    }
    const std::size_t close = ch == '{' ? matching_brace(text, i) : std::string_view::npos;
    if (close == std::string_view::npos) {
      out.push_back(ch);
      continue;
    }
    const std::string_view inner = text.substr(i + 1, close - i - 1);
    const auto bar = inner.find('|');
    const std::string name(inner.substr(0, bar));
    if (!is_placeholder_name(name)) {
      out.push_back(ch);
      continue;
    }
    std::string value = placeholder_value(name, c);
    if (value.empty())
      value = bar == std::string_view::npos ? "<" + name + ">" : render(inner.substr(bar + 1), c);
    out += value;
    i = close;
  }
  return out;
}

namespace {

/// Calls `on_placeholder(name, default_or_npos_view, has_default)` for each
/// placeholder of `text` at its own level, as render() reads them: {{ and }}
/// are literal braces, and a brace group that is not a placeholder is read
/// inside.
template <typename F>
void for_each_placeholder(std::string_view text, F&& on_placeholder) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((text[i] == '{' || text[i] == '}') && i + 1 < text.size() && text[i + 1] == text[i]) {
      ++i;
      continue;
    }
    const std::size_t close = text[i] == '{' ? matching_brace(text, i) : std::string_view::npos;
    if (close == std::string_view::npos) continue;
    const std::string_view inner = text.substr(i + 1, close - i - 1);
    const auto bar = inner.find('|');
    const std::string name(inner.substr(0, bar));
    if (!is_placeholder_name(name)) continue;
    on_placeholder(name, bar == std::string_view::npos ? std::string_view{} : inner.substr(bar + 1),
                   bar != std::string_view::npos);
    i = close;
  }
}

/// The placeholder names `text` uses, in defaults too.
void placeholders_used(std::string_view text, std::set<std::string>& out) {
  for_each_placeholder(text, [&](const std::string& name, std::string_view fallback, bool has_default) {
    out.insert(name);
    if (has_default) placeholders_used(fallback, out);
  });
}

}  // namespace

std::string template_problem(std::string_view text) {
  std::string problem;
  for_each_placeholder(text, [&](const std::string& name, std::string_view fallback, bool has_default) {
    if (!problem.empty() || !has_default) return;
    std::set<std::string> used;
    placeholders_used(fallback, used);
    if (used.count(name)) {
      problem = "the default of {" + name + "|...} uses {" + name +
                "}, which is always empty there (a default is the text for no value)";
    } else {
      problem = template_problem(fallback);
    }
  });
  return problem;
}

}  // namespace kb_detail
}  // namespace accel
