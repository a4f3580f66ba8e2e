// GPUs listed in pasted tool output (rocminfo, hipInfo, dxdiag /t,
// nvidia-smi, nvidia-smi -q, nvidia-smi -L), read line by line so explain can
// feed it from its streaming reader. Pure: no I/O, tested on recorded text.
// explain uses the GPUs found to complete the machine facts (context first):
// every gfx target (iGPU next to dGPU), the names mapped through
// kb/arch.json gpu_names, the driver version.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace accel {

/// One GPU named by a tool's output.
struct ToolGpu {
  std::string tool;    ///< "rocminfo", "hipInfo", "dxdiag", "nvidia-smi"
  std::string name;    ///< marketing name ("AMD Radeon RX 6700 XT"), may be empty
  std::string arch;    ///< "gfx1031" (feature suffixes such as ":xnack-" removed), or ""
  std::string driver;  ///< driver version the tool printed for it, or ""
};

class ToolOutputReader {
 public:
  /// One line of input (without its line ending).
  void line(std::string_view text);
  /// The GPUs read so far, in order of appearance (a device still open is included).
  std::vector<ToolGpu> gpus() const;

 private:
  void flush();
  enum class Tool { none, rocminfo, hipinfo, dxdiag, nvidia_smi_q };
  Tool tool_ = Tool::none;
  ToolGpu cur_;
  bool open_ = false;
  bool cur_is_gpu_ = false;  // rocminfo: the agent's Device Type is GPU
  std::string smi_driver_;   // nvidia-smi's table header: one driver for every row
  std::vector<ToolGpu> done_;
};

/// Reads a whole text (tests, small inputs).
std::vector<ToolGpu> read_tool_output(std::string_view text);

}  // namespace accel
