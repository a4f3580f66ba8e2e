// Command-line helpers shared by the commands' option bindings.
#include <CLI/CLI.hpp>

#include "cli/app.hpp"

namespace accel::cli {

CLI::Option* add_off_flag(CLI::App* cmd, const std::string& name, bool& target,
                          const std::string& description) {
  return cmd->add_flag_callback(
      name, [&target] { target = false; }, description);
}

}  // namespace accel::cli
