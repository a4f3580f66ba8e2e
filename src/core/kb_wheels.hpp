// The torch wheel tables of kb/wheels.json, and what they answer about a
// machine: which GPU targets an official torch wheel carries code for (per
// torch minor release, wheel variant and OS), which wheel variants and Python
// versions each torch release ships, and the GPU families TheRock builds ROCm
// wheels for. Read by the knowledge base's conditions (wheel_lacks_arch,
// therock_has_arch) and placeholders ({wheel_variant}, {wheel_fit},
// {python_torch}, {therock_index}, ...). Format and sources:
// docs/knowledge-base.md ("wheels.json").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.hpp"
#include "core/kb.hpp"

namespace accel {

/// One official torch wheel variant and the GPU targets it carries code for
/// ("torch_wheels").
struct TorchWheel {
  std::string torch;               ///< "2.8": every 2.8.x release
  std::string variant;             ///< "cu128", "rocm6.4" (ROCm: major.minor)
  std::string os;                  ///< "linux" or "windows"; "" = the same list on every OS
  std::vector<std::string> archs;  ///< "sm_80", "gfx1100"
  std::string ptx;                 ///< the sm whose PTX is embedded (JIT for newer GPUs), or ""
  std::string source;
};

/// What one torch release ships ("torch_releases"): its wheel variants and
/// the Python versions of its release matrix.
struct TorchRelease {
  std::string torch;                ///< "2.8"
  std::vector<std::string> cuda;    ///< "12.6", "12.8", ...
  std::vector<std::string> rocm;    ///< "6.3", "6.4"
  std::vector<std::string> python;  ///< "3.9" ... "3.13"
  std::string source;
};

/// A GPU family TheRock builds ROCm and torch wheels for ("therock_families"):
/// its pip index is rocm.nightlies.amd.com/v2/<family>/.
struct TherockFamily {
  std::string family;  ///< "gfx110X-all"
  std::vector<std::string> targets;
  std::vector<std::string> platforms;  ///< "linux", "windows"
  std::string source;
};

/// A torch build that runs on the machine's GPU: "torch 2.8 with cu126".
struct WheelFit {
  std::string torch, variant;
};

struct WheelTables {
  std::vector<TorchWheel> wheels;
  std::vector<TorchRelease> releases;
  std::vector<TherockFamily> therock;

  /// Reads the three tables from kb/wheels.json's document. Throws KbError
  /// naming `file` and the row: a row without a source, an empty or invalid
  /// target list (not sm_NN / gfxNNNN), an unknown OS or platform.
  static WheelTables load(const json& doc, const std::string& file);

  /// The rows of this torch build (torch version + CUDA or ROCm variant of
  /// the facts) that apply on the machine's OS: the OS's own row or a row for
  /// every OS; with no OS known, all OS rows of the build. Empty when the
  /// table does not list the build.
  std::vector<const TorchWheel*> rows_for(const MachineFacts& f) const;
  /// Whether this torch build has code that runs on the GPU (f.sm or f.gfx):
  /// known only when every applicable row agrees.
  std::optional<bool> build_runs_on(const MachineFacts& f) const;
  /// The smallest TheRock family holding the GPU's gfx target on this OS
  /// (WSL counts as Linux; any OS when unknown), nullptr when none does.
  /// `*known` is false when the exact gfx target is not known.
  const TherockFamily* therock_family_for(const MachineFacts& f, bool* known) const;
  /// The newest torch release whose wheels run on the NVIDIA GPU (f.sm) on
  /// this OS, and its lowest CUDA variant that does (the one the most drivers
  /// run), needing no newer CUDA than `max_cuda` ("" = no limit, the driver is
  /// unknown). nullopt when no table row fits or the sm is unknown.
  std::optional<WheelFit> newest_fit(const MachineFacts& f, const std::string& max_cuda) const;
  /// The releases whose matrix lists Python `python` ("3.13"): "2.6, 2.7,
  /// 2.8"; "" when none does or the table is empty.
  std::string releases_for_python(std::string_view python) const;
  /// The newest release in the table ("2.12"), "" when there is none.
  std::string newest_release() const;
};

/// Whether wheel `w` runs on a GPU: an NVIDIA cubin for X.y runs on X.z with
/// z >= y, embedded PTX is compiled at load for any newer GPU; an AMD code
/// object runs only on its own gfx target. nullopt when the GPU's target is
/// not of the wheel's kind or not known exactly.
std::optional<bool> wheel_runs_on(const TorchWheel& w, std::string_view sm, std::string_view gfx);

}  // namespace accel
