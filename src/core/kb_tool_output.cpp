#include "core/kb_tool_output.hpp"
#include "core/strings.hpp"

#include <re2/re2.h>

namespace accel {
namespace {

re2::StringPiece sp(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

/// "gfx1031:sramecc-:xnack-" -> "gfx1031"; "" when not a gfx target.
std::string gfx_of(std::string_view s) {
  static const RE2 re(R"((?i)^(?:amdgcn-amd-amdhsa--)?(gfx[0-9]{2,4}[0-9a-f]?)(?::[a-z0-9+-]+)*$)");
  std::string g;
  if (!RE2::FullMatch(sp(trim(s)), re, &g)) return {};
  return lower(g);
}

}  // namespace

void ToolOutputReader::flush() {
  if (open_ && (tool_ != Tool::rocminfo || cur_is_gpu_) && (!cur_.name.empty() || !cur_.arch.empty())) {
    done_.push_back(cur_);
  }
  cur_ = ToolGpu{};
  open_ = false;
  cur_is_gpu_ = false;
}

void ToolOutputReader::line(std::string_view text) {
  // Section starts (each closes the device being read).
  static const RE2 rocm_agent(R"(^\s*Agent [0-9]+\s*$)");
  static const RE2 hip_device(R"(^\s*device#\s*[0-9]+\s*$)");
  static const RE2 dx_card(R"(^\s*Card name:\s*(.+?)\s*$)");
  static const RE2 dx_section_end(
      R"(^\s*(?:Sound|Video Capture|DirectInput|USB|Disk & DVD/CD-ROM|Gameport|PS/2|System) Devices\s*$)");
  static const RE2 smi_q_product(R"(^\s*Product Name\s*:\s*(.+?)\s*$)");
  // Fields.
  static const RE2 name_field(R"(^\s*Name:\s+(.+?)\s*$)");
  static const RE2 marketing(R"(^\s*Marketing Name:\s+(.+?)\s*$)");
  static const RE2 device_type(R"(^\s*Device Type:\s+(\w+))");
  static const RE2 gcn_arch(R"(^\s*gcnArchName:\s+(\S+))");
  static const RE2 driver_field(R"(^\s*Driver Version\s*:\s*([0-9][0-9.]*))");
  static const RE2 smi_header(R"(NVIDIA-SMI\s+[0-9.]+\s+Driver Version:\s*([0-9.]+))");
  static const RE2 smi_row(
      R"(^\|\s+[0-9]+\s+((?:NVIDIA|Tesla|GeForce|Quadro|TITAN|RTX)\b.*?)\s+(?:On|Off)\s+\|)");
  static const RE2 smi_list(R"(^\s*GPU [0-9]+:\s+(.+?)\s+\(UUID:)");

  std::string v;
  if (RE2::PartialMatch(sp(text), rocm_agent)) {
    flush();
    tool_ = Tool::rocminfo;
    open_ = true;
    cur_.tool = "rocminfo";
    return;
  }
  if (RE2::PartialMatch(sp(text), hip_device)) {
    flush();
    tool_ = Tool::hipinfo;
    open_ = true;
    cur_.tool = "hipInfo";
    return;
  }
  if (RE2::PartialMatch(sp(text), dx_card, &v)) {
    flush();
    tool_ = Tool::dxdiag;
    open_ = true;
    cur_.tool = "dxdiag";
    cur_.name = v;
    return;
  }
  if (RE2::PartialMatch(sp(text), smi_q_product, &v)) {
    flush();
    tool_ = Tool::nvidia_smi_q;
    open_ = true;
    cur_.tool = "nvidia-smi";
    cur_.name = v;
    cur_.driver = smi_driver_;
    return;
  }
  if (RE2::PartialMatch(sp(text), smi_header, &v)) {
    smi_driver_ = v;
    return;
  }
  if (RE2::PartialMatch(sp(text), smi_row, &v) || RE2::PartialMatch(sp(text), smi_list, &v)) {
    flush();
    done_.push_back({"nvidia-smi", v, "", smi_driver_});
    return;
  }
  if (!open_) {
    if (RE2::PartialMatch(sp(text), driver_field, &v)) smi_driver_ = v;  // nvidia-smi -q, above its GPUs
    return;
  }
  switch (tool_) {
    case Tool::rocminfo:
      if (RE2::PartialMatch(sp(text), device_type, &v)) {
        cur_is_gpu_ = v == "GPU";
      } else if (RE2::PartialMatch(sp(text), marketing, &v)) {
        cur_.name = v;
      } else if (RE2::PartialMatch(sp(text), name_field, &v) && cur_.arch.empty()) {
        cur_.arch = gfx_of(v);  // the agent's Name is its gfx target; ISA names come later
      }
      break;
    case Tool::hipinfo:
      if (RE2::PartialMatch(sp(text), gcn_arch, &v)) {
        cur_.arch = gfx_of(v);
      } else if (RE2::PartialMatch(sp(text), name_field, &v) && cur_.name.empty()) {
        cur_.name = v;
      }
      break;
    case Tool::dxdiag:
      if (RE2::PartialMatch(sp(text), dx_section_end)) {
        flush();
        tool_ = Tool::none;
      } else if (RE2::PartialMatch(sp(text), driver_field, &v) && cur_.driver.empty()) {
        cur_.driver = v;
      }
      break;
    case Tool::nvidia_smi_q:
      // nvidia-smi -q prints the driver once above the GPUs; a GPU block has none.
      break;
    case Tool::none:
      break;
  }
}

std::vector<ToolGpu> ToolOutputReader::gpus() const {
  std::vector<ToolGpu> out = done_;
  if (open_ && (tool_ != Tool::rocminfo || cur_is_gpu_) && (!cur_.name.empty() || !cur_.arch.empty())) {
    out.push_back(cur_);
  }
  return out;
}

std::vector<ToolGpu> read_tool_output(std::string_view text) {
  ToolOutputReader r;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    r.line(text.substr(start, end - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return r.gpus();
}

}  // namespace accel
