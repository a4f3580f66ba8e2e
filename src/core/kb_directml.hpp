// DirectML versions (kb/arch.json "directml_versions"): the in-box DirectML
// of each Windows build and the DirectML each ONNX Runtime release's DirectML
// execution provider was built against. One table, read by the knowledge base
// (explain's {directml_inbox} text) and by the windows.directml_too_old rule.
#pragma once

#include <string>
#include <vector>

#include "core/json.hpp"

namespace accel {

struct DirectMlVersionTable {
  struct Inbox {
    int os_build = 0;      ///< the first build that ships it (18362)
    std::string directml;  ///< "1.0.0"
    std::string os;        ///< "Windows 10 1903"
  };
  struct Onnxruntime {
    std::string onnxruntime;  ///< "1.18"
    std::string directml;     ///< "1.14.1"
    std::string source;
  };
  std::vector<Inbox> inbox;              ///< ascending os_build
  std::vector<Onnxruntime> onnxruntime;  ///< ascending onnxruntime version
  std::string source;

  bool empty() const { return inbox.empty() && onnxruntime.empty(); }
  /// The in-box DirectML of a Windows build: the newest entry at or below
  /// `os_build`; nullptr before the first (no DirectML in Windows).
  const Inbox* inbox_for_build(int os_build) const;
  /// The entry of the newest listed ONNX Runtime release at or below
  /// `version` ("1.20.1", "1.22.0.0"): its DirectML is what that release and
  /// (DirectML only goes up) every later one needs at least; nullptr when
  /// `version` is older than every entry or not a version.
  const Onnxruntime* for_onnxruntime(const std::string& version) const;
  /// One line for explain's {directml_inbox}: "Windows 10 1903 (build 18362): 1.0.0; ...".
  std::string inbox_text() const;
};

/// Parses arch.json's "directml_versions" object; throws KbError (core/kb.hpp)
/// naming `file` when a field is missing or malformed (needs "source").
DirectMlVersionTable parse_directml_versions(const json& doc, const std::string& file);

/// -1, 0, 1 comparing dotted versions numerically ("1.15.2" vs "1.8.0"); missing parts count 0.
int compare_dotted_versions(const std::string& a, const std::string& b);

}  // namespace accel
