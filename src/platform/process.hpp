// Facts about and changes to this process that differ by OS.
#pragma once

#include <cstdio>
#include <string>

namespace accel::platform {

/// This process's id (getpid; Windows: GetCurrentProcessId).
unsigned long process_id();

/// Sets an environment variable of this process (inherited by the children
/// it starts from then on); an empty value removes it. False when the OS
/// refuses (setenv / _putenv_s).
bool set_environment_variable(const std::string& name, const std::string& value);

/// Keeps standard output for a protocol: returns a stream on a private copy
/// of it and points descriptor 1 at standard error, so whatever else prints
/// to standard output (torch, vendor libraries) cannot corrupt the protocol
/// lines. nullptr when the OS refuses (then nothing was changed).
std::FILE* take_stdout_for_protocol();

/// Removes an empty directory; false (and nothing removed) otherwise.
/// Not std::filesystem: a PyPI torch wheel exports its own copies of some
/// std::filesystem functions (see engines/torch/ops.cpp).
bool remove_empty_directory(const std::string& path);

}  // namespace accel::platform
