// Locations the tool needs at run time.
#pragma once

#include <string>

namespace accel {

/// Directory of the running executable, empty when it cannot be found.
std::string executable_dir();

}  // namespace accel
