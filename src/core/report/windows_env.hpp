// The Windows section of the environment (environment.windows) as labelled
// rows, shared by the console, Markdown and HTML reporters so that the three
// show the same facts. A value the probe could not read shows as
// "not collected: <why>".
#pragma once

#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

struct EnvRow {
  std::string group;  ///< "Adapters (DXGI)", "Power", "Security", "AMD stack", "Runtimes"
  std::string label;
  std::string value;
};

/// Rows in display order. Adapters come one row each, with every index side
/// by side ("DXGI 0, high-performance 1") and the LUID as the join key.
std::vector<EnvRow> windows_env_rows(const WindowsInfo& w);

}  // namespace accel
