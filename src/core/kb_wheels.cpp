#include "core/kb_wheels.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>

#include "core/strings.hpp"

namespace accel {

namespace {

const RE2& arch_re() {
  static const RE2 re(R"(sm_\d{2,3}|gfx\d{2,4}[0-9a-f]?)");
  return re;
}

void check_archs(const std::vector<std::string>& archs, const std::string& where, bool gfx_only) {
  if (archs.empty()) throw KbError(where + ": the target list is empty");
  for (const auto& a : archs) {
    if (!RE2::FullMatch(a, arch_re()) || (gfx_only && a.rfind("gfx", 0) != 0)) {
      throw KbError(fmt::format("{}: '{}' is not an {} target", where, a, gfx_only ? "gfx" : "sm_NN or gfx"));
    }
  }
}

void check_versions(const std::vector<std::string>& vs, const std::string& where, const char* what) {
  for (const auto& v : vs) {
    if (parse_version(v).size() < 2)
      throw KbError(fmt::format("{}: '{}' is not a {} version", where, v, what));
  }
}

std::string os_of(const MachineFacts& f) { return f.os == "wsl" ? "linux" : f.os; }

/// "cu128" / "rocm6.4" of the facts' torch build, "" when neither is known.
std::string variant_of(const MachineFacts& f) {
  if (!f.torch_cuda.empty()) {
    const auto cv = parse_version(f.torch_cuda);
    return cv.size() < 2 ? std::string() : fmt::format("cu{}{}", cv[0], cv[1]);
  }
  if (!f.torch_rocm.empty()) {
    const auto rv = parse_version(f.torch_rocm);
    return rv.size() < 2 ? std::string() : fmt::format("rocm{}.{}", rv[0], rv[1]);
  }
  return {};
}

bool same_minor(std::string_view a, std::string_view b) {
  const auto va = parse_version(a), vb = parse_version(b);
  return va.size() >= 2 && vb.size() >= 2 && va[0] == vb[0] && va[1] == vb[1];
}

/// "cu126" -> "12.6"; "" for other variants.
std::string cuda_of_variant(const std::string& variant) {
  if (variant.rfind("cu", 0) != 0 || variant.size() < 5) return {};
  const std::string digits = variant.substr(2);
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

}  // namespace

WheelTables WheelTables::load(const json& doc, const std::string& file) {
  WheelTables t;
  try {
    for (const auto& w : doc.at("torch_wheels")) {
      TorchWheel row;
      row.torch = w.at("torch").get<std::string>();
      row.variant = w.at("variant").get<std::string>();
      row.os = w.value("os", "");
      row.archs = w.at("archs").get<std::vector<std::string>>();
      row.ptx = w.value("ptx", "");
      row.source = w.value("source", "");
      const std::string where =
          fmt::format("{} torch {} {}{}", file, row.torch, row.variant, row.os.empty() ? "" : " " + row.os);
      if (row.source.empty()) throw KbError(where + ": needs 'source'");
      if (!row.os.empty() && row.os != "linux" && row.os != "windows")
        throw KbError(fmt::format("{}: unknown os '{}' (linux or windows)", where, row.os));
      check_archs(row.archs, where, false);
      if (!row.ptx.empty() && !RE2::FullMatch(row.ptx, arch_re())) throw KbError(where + ": bad 'ptx'");
      t.wheels.push_back(std::move(row));
    }
    if (doc.contains("torch_releases")) {
      for (const auto& r : doc.at("torch_releases")) {
        TorchRelease rel;
        rel.torch = r.at("torch").get<std::string>();
        rel.cuda = r.value("cuda", std::vector<std::string>{});
        rel.rocm = r.value("rocm", std::vector<std::string>{});
        rel.python = r.value("python", std::vector<std::string>{});
        rel.source = r.value("source", "");
        const std::string where = fmt::format("{} torch release {}", file, rel.torch);
        if (rel.source.empty()) throw KbError(where + ": needs 'source'");
        check_versions(rel.cuda, where, "CUDA");
        check_versions(rel.rocm, where, "ROCm");
        check_versions(rel.python, where, "Python");
        t.releases.push_back(std::move(rel));
      }
    }
    if (doc.contains("therock_families")) {
      for (const auto& w : doc.at("therock_families")) {
        TherockFamily fam;
        fam.family = w.at("family").get<std::string>();
        fam.targets = w.at("targets").get<std::vector<std::string>>();
        fam.platforms = w.at("platforms").get<std::vector<std::string>>();
        fam.source = w.value("source", "");
        const std::string where = fmt::format("{} TheRock family {}", file, fam.family);
        if (fam.source.empty()) throw KbError(where + ": needs 'source'");
        check_archs(fam.targets, where, true);
        for (const auto& pl : fam.platforms) {
          if (pl != "linux" && pl != "windows")
            throw KbError(fmt::format("{}: unknown platform '{}'", where, pl));
        }
        t.therock.push_back(std::move(fam));
      }
    }
  } catch (const json::exception& ex) {
    throw KbError(fmt::format("kb file {}: {}", file, ex.what()));
  }
  return t;
}

std::vector<const TorchWheel*> WheelTables::rows_for(const MachineFacts& f) const {
  std::vector<const TorchWheel*> out;
  const std::string variant = variant_of(f);
  if (variant.empty() || parse_version(f.torch_version).size() < 2) return out;
  const std::string os = os_of(f);
  for (const auto& w : wheels) {
    if (w.variant != variant || !same_minor(w.torch, f.torch_version)) continue;
    if (!w.os.empty() && !os.empty() && w.os != os) continue;
    out.push_back(&w);
  }
  return out;
}

std::optional<bool> WheelTables::build_runs_on(const MachineFacts& f) const {
  std::optional<bool> answer;
  for (const TorchWheel* w : rows_for(f)) {
    const auto runs = wheel_runs_on(*w, f.sm, f.gfx);
    if (!runs) return std::nullopt;
    if (answer && *answer != *runs) return std::nullopt;  // the OS rows disagree and the OS is unknown
    answer = runs;
  }
  return answer;
}

const TherockFamily* WheelTables::therock_family_for(const MachineFacts& f, bool* known) const {
  *known = !f.gfx.empty() && f.gfx.find('x', 3) == std::string::npos && !therock.empty();
  if (!*known) return nullptr;
  const std::string os = os_of(f);
  const TherockFamily* best = nullptr;
  for (const auto& t : therock) {
    if (std::find(t.targets.begin(), t.targets.end(), f.gfx) == t.targets.end()) continue;
    if (!os.empty() && std::find(t.platforms.begin(), t.platforms.end(), os) == t.platforms.end()) continue;
    if (!best || t.targets.size() < best->targets.size()) best = &t;
  }
  return best;
}

std::optional<WheelFit> WheelTables::newest_fit(const MachineFacts& f, const std::string& max_cuda) const {
  if (f.sm.empty()) return std::nullopt;
  const std::string os = os_of(f);
  const TorchWheel* best = nullptr;
  for (const auto& w : wheels) {
    const std::string cuda = cuda_of_variant(w.variant);
    if (cuda.empty()) continue;
    if (!w.os.empty() && !os.empty() && w.os != os) continue;
    if (!max_cuda.empty() && compare_versions(cuda, max_cuda) > 0) continue;
    if (wheel_runs_on(w, f.sm, "") != true) continue;
    // With no OS known, a row for one OS only counts when the other OS's row
    // of the same build also runs (or there is none).
    if (os.empty() && !w.os.empty()) {
      bool other_ok = true;
      for (const auto& o : wheels) {
        if (&o != &w && o.torch == w.torch && o.variant == w.variant && wheel_runs_on(o, f.sm, "") != true)
          other_ok = false;
      }
      if (!other_ok) continue;
    }
    if (!best) {
      best = &w;
      continue;
    }
    // The newest release; within it the lowest CUDA variant that runs, which
    // the most drivers can run (cu128, not cu129, for an sm_120 GPU).
    const int by_torch = compare_versions(w.torch, best->torch);
    if (by_torch > 0 || (by_torch == 0 && compare_versions(cuda, cuda_of_variant(best->variant)) < 0))
      best = &w;
  }
  if (!best) return std::nullopt;
  return WheelFit{best->torch, best->variant};
}

std::string WheelTables::releases_for_python(std::string_view python) const {
  std::string out;
  for (const auto& r : releases) {
    for (const auto& p : r.python) {
      if (compare_versions(p, python) == 0 && parse_version(python).size() >= 2) {
        out += (out.empty() ? "" : ", ") + r.torch;
        break;
      }
    }
  }
  return out;
}

std::string WheelTables::newest_release() const {
  std::string newest;
  for (const auto& r : releases) {
    if (newest.empty() || compare_versions(r.torch, newest) > 0) newest = r.torch;
  }
  return newest;
}

std::optional<bool> wheel_runs_on(const TorchWheel& w, std::string_view sm, std::string_view gfx) {
  const bool cuda_wheel = w.variant.rfind("cu", 0) == 0;
  if (cuda_wheel) {
    int have = 0;
    if (sm.size() < 5 || !RE2::FullMatch(sm.substr(3), R"((\d+))", &have)) return std::nullopt;
    for (const auto& a : w.archs) {
      int cc = 0;
      if (a.rfind("sm_", 0) != 0 || !RE2::FullMatch(a.substr(3), R"((\d+))", &cc)) continue;
      if (cc / 10 == have / 10 && cc % 10 <= have % 10) return true;
    }
    int ptx = 0;
    if (!w.ptx.empty() && RE2::FullMatch(w.ptx.substr(3), R"((\d+))", &ptx) && ptx <= have) return true;
    return false;
  }
  if (gfx.empty() || gfx.find('x', 3) != std::string_view::npos) return std::nullopt;  // a family wildcard
  return std::find(w.archs.begin(), w.archs.end(), std::string(gfx)) != w.archs.end();
}

}  // namespace accel
