// The frame of one suite item (suite_item.hpp).
#include "engines/torch/suite_item.hpp"

#include <chrono>

#include "engines/torch/backend/backend.hpp"

namespace accel::engine {

Result run_suite_item(
    Result r, const c10::Device& device, std::chrono::steady_clock::time_point wall0,
    const std::function<void(Result&)>& body,
    const std::function<void(Result&, const std::exception&, const std::string& message)>& on_error) {
  r.device = device_string(device);
  WarningCapture warnings;
  try {
    body(r);
  } catch (const std::exception& e) {
    const std::string msg = exception_message(e);
    r.status = Status::error;
    r.reason = msg.substr(0, msg.find('\n'));
    r.error = ErrorInfo{r.reason, "", "", "", ""};
    r.timing.reset();
    if (on_error) on_error(r, e, msg);
  }
  r.warnings = warnings.messages();
  r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

void release_device_memory(const c10::Device& device) {
  if (device.is_cpu()) return;
  if (const auto* b = accelerator_backend(device)) b->empty_cache();
}

}  // namespace accel::engine
