// The knowledge base: the condition language of entries and fixes
// ("when": {"vendor": "amd", "not": {...}}), evaluated three-valued
// (true, false, unknown) against the machine's facts. docs/knowledge-base.md.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

#include "core/kb_detail.hpp"
#include "core/strings.hpp"

namespace accel {
namespace kb_detail {

namespace {

/// "48.01 GiB" -> bytes; nullopt when not a size.
std::optional<double> parse_size(std::string_view text) {
  static const RE2 re(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGTP]?)(i?)B?\s*$)");
  std::string num, unit, ibit;
  if (!RE2::FullMatch(sp(text), re, &num, &unit, &ibit)) return std::nullopt;
  double v = std::strtod(num.c_str(), nullptr);
  const double base = ibit.empty() ? 1000.0 : 1024.0;
  const std::string units = "KMGTP";
  if (!unit.empty()) {
    const auto pos = units.find(unit[0]);
    for (std::size_t i = 0; i <= pos; ++i) v *= base;
  }
  return v;
}

Tri tri(bool b) { return b ? Tri::T : Tri::F; }

Tri tri_not(Tri t) { return t == Tri::U ? Tri::U : (t == Tri::T ? Tri::F : Tri::T); }

Tri tri_from(const std::optional<bool>& b) { return b ? tri(*b) : Tri::U; }

bool matches_value(const json& want, const std::string& have, bool os_rule) {
  auto one = [&](const std::string& w) {
    const std::string lw = lower(w);
    if (lw == have) return true;
    return os_rule && lw == "linux" && have == "wsl";
  };
  if (want.is_string()) return one(want.get<std::string>());
  for (const auto& w : want) {
    if (one(w.get<std::string>())) return true;
  }
  return false;
}

}  // namespace

std::string min_driver(const EvalContext& c) {
  if (!c.driver_min) return {};
  return c.f.os == "windows" ? c.driver_min->windows_min : c.driver_min->linux_min;
}

namespace {

/// A version a `version_below`/`version_at_least` operand names: a literal
/// ("12.3"), a version fact of the machine or a capture of the message.
/// Unknown (nullopt) when the fact is not known; "" (false) when a capture
/// the message does not carry is named or the value is not a version: the
/// message is known in full, as for `capture`.
std::optional<std::string> version_operand(const std::string& name, const EvalContext& c) {
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) return name;
  if (const std::string* v = text_fact(c.f, name)) {
    if (v->empty()) return std::nullopt;
    return parse_version(*v).empty() ? std::string() : *v;
  }
  const auto cap = c.captures.find(name);
  if (cap == c.captures.end() || parse_version(cap->second).empty()) return std::string();
  return cap->second;
}

/// The keys that compare a fact of the machine with the value given; nullopt
/// for another key.
std::optional<Tri> eval_fact_key(const std::string& key, const json& value, const EvalContext& c) {
  const MachineFacts& f = c.f;
  if (key == "vendor" || key == "backend" || key == "os") {
    const std::string& have = key == "vendor" ? f.vendor : key == "backend" ? f.backend : f.os;
    if (have.empty()) return Tri::U;
    return tri(matches_value(value, have, key == "os"));
  }
  if (key == "os_not") {
    // True unless the OS is known to be one of these: for advice that is
    // right on every OS but one (HSA_OVERRIDE_GFX_VERSION: not Windows), so
    // it is still given when nothing is known about the machine.
    if (f.os.empty()) return Tri::T;
    return tri(!matches_value(value, f.os, true));
  }
  if (key == "gfx_support" || key == "gfx_family" || key == "gfx_override") {
    if (!c.gfx) return Tri::U;
    const std::string& have = key == "gfx_support"  ? c.gfx->support
                              : key == "gfx_family" ? c.gfx->family
                                                    : c.gfx->override_value;
    return tri(matches_value(value, have, false));
  }
  if (key == "hint") {
    const auto id = value.get<std::string>();
    return tri(std::find(f.hints.begin(), f.hints.end(), id) != f.hints.end());
  }
  if (key == "measured_on") {
    // The device an operator check ran on ("cpu"): false, never unknown,
    // for a pasted log, which measured nothing.
    return tri(!f.measured_device.empty() && matches_value(value, f.measured_device, false));
  }
  if (key == "env_set") {
    // A variable of the machine's environment is set: unknown unless the
    // context lists every variable (a report, the live machine).
    const std::vector<std::string> names = value.is_string()
                                               ? std::vector<std::string>{value.get<std::string>()}
                                               : value.get<std::vector<std::string>>();
    for (const auto& n : names) {
      if (f.env_vars.count(n)) return Tri::T;
    }
    return f.env_known ? Tri::F : Tri::U;
  }
  if (key == "sm_at_least") {
    // "sm_90" >= 80: the GPU has what that architecture brings (bf16 and TF32
    // tensor cores from sm_80), so advice that it lacks it must not be given.
    int have = 0;
    if (f.sm.size() < 5 || !RE2::FullMatch(f.sm.substr(3), R"((\d+))", &have)) return Tri::U;
    return tri(have >= value.get<int>());
  }
  if (key == "version_below" || key == "version_at_least") {
    // ["macos_version", "12.3"]: unknown when a fact is not known, false
    // when the message does not carry a capture named.
    const auto a = version_operand(value[0].get<std::string>(), c);
    const auto b = version_operand(value[1].get<std::string>(), c);
    if (a && a->empty()) return Tri::F;
    if (b && b->empty()) return Tri::F;
    if (!a || !b) return Tri::U;
    const bool below = compare_versions(*a, *b) < 0;
    return tri(key == "version_below" ? below : !below);
  }
  if (key == "known") {
    const auto name = value.get<std::string>();
    if (const std::string* v = text_fact(f, name)) return tri(!v->empty());
    return tri(c.captures.count(name) > 0);
  }
  return std::nullopt;
}

/// The keys on the values the log's message carried (`captures`); nullopt
/// for another key.
std::optional<Tri> eval_capture_key(const std::string& key, const json& value, const EvalContext& c) {
  if (key == "capture") {
    for (const auto& [name, re] : value.items()) {
      // The message is known in full: a value it does not carry makes the condition false.
      const auto it = c.captures.find(name);
      if (it == c.captures.end()) return Tri::F;
      const RE2& r = *c.kb.cond_regex.at(re.get<std::string>());
      if (!RE2::PartialMatch(it->second, r)) return Tri::F;
    }
    return Tri::T;
  }
  if (key == "capture_gt") {
    const auto a = c.captures.find(value[0].get<std::string>());
    const auto b = c.captures.find(value[1].get<std::string>());
    if (a == c.captures.end() || b == c.captures.end()) return Tri::U;
    const auto va = parse_size(a->second), vb = parse_size(b->second);
    if (!va || !vb) return Tri::U;
    return tri(*va > *vb);
  }
  return std::nullopt;
}

/// `wheel_lacks_arch`: the official torch wheel of this build leaves the
/// GPU's architecture out.
Tri wheel_lacks_arch(const EvalContext& c) {
  const MachineFacts& f = c.f;
  // The wheel table (kb/wheels.json) decides when it lists this torch
  // build and the GPU's target is known. Otherwise: true when torch's CUDA
  // and version fall in a range of official wheels that leave the GPU's
  // architecture out; unknown without the sm, torch's CUDA, or (for a range
  // that starts at some torch version) the version.
  const std::optional<bool> runs = c.kb.tables.build_runs_on(f);
  if (runs) return tri(!*runs);
  if (!c.kb.tables.rows_for(f).empty()) {
    // The table lists this build but cannot say: its OS rows disagree and
    // the OS is not known (torch 2.7's cu128 wheels hold sm_61 on Windows
    // only), or the GPU's target is not known. The ranges below are coarser
    // than the rows and must not overrule them.
    return Tri::U;
  }
  if (!c.sm || f.torch_cuda.empty()) return Tri::U;
  Tri result = Tri::F;
  for (const auto& w : c.sm->wheels_without) {
    if (compare_versions(f.torch_cuda, w.cuda) < 0) continue;
    if (f.torch_version.empty()) {
      result = Tri::U;
    } else if (compare_versions(f.torch_version, w.torch) >= 0) {
      return Tri::T;
    }
  }
  return result;
}

/// The derived facts ("override_set": true; false negates them); unknown
/// for a key that is none of them.
Tri eval_derived_key(const std::string& key, const json& value, const EvalContext& c) {
  const MachineFacts& f = c.f;
  if (key == "integrated_and_discrete") {
    if ((f.igpu && !*f.igpu) || (f.dgpu && !*f.dgpu)) return Tri::F;
    return f.igpu && f.dgpu ? Tri::T : Tri::U;
  }
  if (key == "override_set") return tri_from(f.override_set);
  if (key == "cpu_only_torch") return tri_from(f.cpu_only_torch);
  if (key == "cuda_older_than_arch") {
    if (c.sm && !c.sm->min_cuda.empty() && !f.torch_cuda.empty()) {
      return tri(compare_versions(f.torch_cuda, c.sm->min_cuda) < 0);
    }
    return Tri::U;
  }
  if (key == "wheel_lacks_arch") return wheel_lacks_arch(c);
  if (key == "windows_hip_sdk") {
    // What AMD's HIP SDK for Windows enables for the GPU's target: "hip_sdk"
    // (runtime and libraries), "runtime" (HIP runtime only), "none"; a target
    // the table does not list counts as "none" (AMD: not listed = not supported).
    if (!f.gfx.empty() && f.gfx.find('x', 3) == std::string::npos && !c.kb.windows_hip_sdk.empty()) {
      const auto it = c.kb.windows_hip_sdk.find(f.gfx);
      return tri(matches_value(value, it == c.kb.windows_hip_sdk.end() ? "none" : it->second, false));
    }
    return Tri::U;
  }
  if (key == "therock_has_arch") {
    // True when TheRock builds wheels for the GPU's gfx target on this OS.
    bool known = false;
    const TherockFamily* t = c.kb.tables.therock_family_for(f, &known);
    return known ? tri(t != nullptr) : Tri::U;
  }
  if (key == "driver_older_than_cuda") {
    const std::string need = min_driver(c);
    if (!f.driver.empty() && !need.empty()) return tri(compare_versions(f.driver, need) < 0);
    if (!f.driver_cuda.empty() && !f.torch_cuda.empty()) {
      return tri(compare_versions(f.driver_cuda, f.torch_cuda) < 0);
    }
    return Tri::U;
  }
  return Tri::U;
}

/// all / any / not over sub-conditions; nullopt for another key.
std::optional<Tri> eval_combinator(const std::string& key, const json& value, const EvalContext& c) {
  if (key == "all") {
    Tri result = Tri::T;
    for (const auto& sub : value) {
      const Tri t = eval(sub, c);
      if (t == Tri::F) return Tri::F;
      if (t == Tri::U) result = Tri::U;
    }
    return result;
  }
  if (key == "any") {
    Tri result = Tri::F;
    for (const auto& sub : value) {
      const Tri t = eval(sub, c);
      if (t == Tri::T) return Tri::T;
      if (t == Tri::U) result = Tri::U;
    }
    return result;
  }
  if (key == "not") return tri_not(eval(value, c));
  return std::nullopt;
}

}  // namespace

Tri eval_key(const std::string& key, const json& value, const EvalContext& c) {
  if (const auto t = eval_fact_key(key, value, c)) return *t;
  if (const auto t = eval_capture_key(key, value, c)) return *t;
  if (const auto t = eval_combinator(key, value, c)) return *t;
  const Tri result = eval_derived_key(key, value, c);
  if (value.is_boolean() && !value.get<bool>()) return tri_not(result);
  return result;
}

Tri eval(const json& cond, const EvalContext& c) {
  if (cond.is_null()) return Tri::T;
  Tri out = Tri::T;
  for (const auto& [key, value] : cond.items()) {
    const Tri t = eval_key(key, value, c);
    if (t == Tri::F) return Tri::F;
    if (t == Tri::U) out = Tri::U;
  }
  return out;
}

}  // namespace kb_detail
}  // namespace accel
