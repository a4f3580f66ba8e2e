// The GPU busy sampler (platform/gpu_busy.hpp): which sources this machine
// has, the amdgpu sysfs source, and the sampling thread.
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "platform/detail.hpp"
#include "platform/gpu_busy.hpp"

namespace accel::platform {

namespace {

#if defined(_WIN32)
constexpr bool kWindows = true;
#else
constexpr bool kWindows = false;
#endif

/// amdgpu's own average (gpu_busy_percent, amdgpu_pm.c) of each AMD GPU whose file reads.
class AmdgpuBusySource final : public GpuBusySource {
 public:
  struct Device {
    std::string path, id, name;
  };
  explicit AmdgpuBusySource(std::vector<Device> devices) : devices_(std::move(devices)) {}
  std::vector<GpuBusyReading> read() override {
    std::vector<GpuBusyReading> out;
    for (const auto& d : devices_) {
      const auto text = detail::read_text(d.path, nullptr, 64);
      const auto v = text ? detail::parse_gpu_busy_percent(*text) : std::nullopt;
      if (!v) continue;
      GpuBusyReading r;
      r.id = d.id;
      r.name = d.name;
      r.source = "amdgpu gpu_busy_percent";
      r.busy_percent = *v;
      r.engines_percent = {{"gfx", *v}};
      out.push_back(std::move(r));
    }
    return out;
  }

 private:
  std::vector<Device> devices_;
};

std::unique_ptr<GpuBusySource> open_amdgpu_source(const std::vector<GpuHardware>& gpus,
                                                  const ProbeRoots& roots, std::string& why) {
  std::vector<AmdgpuBusySource::Device> devices;
  std::string tried;
  for (const auto& g : gpus) {
    if (g.driver != "amdgpu" || g.pci_address.empty()) continue;
    const std::string path =
        detail::join(roots.sys, "bus/pci/devices/" + g.pci_address + "/gpu_busy_percent");
    std::string err;
    const auto text = detail::read_text(path, &err, 64);
    if (!text || !detail::parse_gpu_busy_percent(*text)) {
      tried += (tried.empty() ? "" : "; ") + (err.empty() ? path + ": not a percentage" : err);
      continue;
    }
    devices.push_back({path, "pci:" + g.pci_address, g.name});
  }
  if (devices.empty()) {
    why = tried.empty() ? "no GPU bound to amdgpu" : tried;
    return nullptr;
  }
  return std::make_unique<AmdgpuBusySource>(std::move(devices));
}

}  // namespace

GpuBusySources open_gpu_busy_sources(const std::vector<GpuHardware>& gpus, const ProbeRoots& roots) {
  GpuBusySources out;
  std::string why;
  try {
#if defined(_WIN32)
    // PDH covers every vendor's adapter (by LUID); NVML only when PDH cannot be opened.
    if (auto pdh = detail::open_pdh_gpu_busy_source(why)) {
      out.sources.push_back(std::move(pdh));
      return out;
    }
    out.unavailable.push_back("PDH: " + why);
#endif
    if (roots.use_vendor_libraries) {
      why.clear();
      if (auto nvml = detail::open_nvml_gpu_busy_source(why)) {
        out.sources.push_back(std::move(nvml));
      } else {
        out.unavailable.push_back("NVML: " + why);
      }
    }
    why.clear();
    if (auto amd = open_amdgpu_source(gpus, roots, why)) {
      out.sources.push_back(std::move(amd));
    } else if (!kWindows) {  // Windows has no sysfs: PDH's line says it all
      out.unavailable.push_back("amdgpu: " + why);
    }
  } catch (const std::exception& e) {
    out.unavailable.push_back(std::string("GPU busy sources: ") + e.what());
  }
  return out;
}

double gpu_busy_period_from_environment(std::string* problem) {
  // PDH's GPU Engine object has an instance per process and engine and costs
  // more to collect than NVML or a sysfs read: a longer default on Windows.
  const double fallback = kWindows ? 250 : 100;
  const char* v = std::getenv("ACCEL_DOCTOR_GPU_BUSY_MS");
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double ms = std::strtod(v, &end);
  if (end == v || *end != '\0' || ms < 0 || !(ms < 1e7)) {
    if (problem)
      *problem =
          fmt::format("ACCEL_DOCTOR_GPU_BUSY_MS={} is not a number of milliseconds: sampling every {:.0f} ms",
                      v, fallback);
    return fallback;
  }
  if (ms == 0) return 0;
  return std::max(ms, 20.0);
}

GpuBusySampler::GpuBusySampler(GpuBusySources sources, double period_ms)
    : sources_(std::move(sources)), period_ms_(period_ms), epoch_(std::chrono::steady_clock::now()) {}

GpuBusySampler::~GpuBusySampler() { stop(); }

double GpuBusySampler::now_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - epoch_).count();
}

std::string GpuBusySampler::why_not() const {
  if (!sources_.sources.empty()) return "";
  std::string s;
  for (const auto& u : sources_.unavailable) s += (s.empty() ? "" : "; ") + u;
  return s.empty() ? "no GPU utilisation source on this system" : s;
}

void GpuBusySampler::start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || sources_.sources.empty() || period_ms_ <= 0) return;
  stop_requested_ = false;
  thread_ = std::thread([this] { loop(); });
}

void GpuBusySampler::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuBusySampler::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  samples_.clear();
}

void GpuBusySampler::sample_once() {
  GpuBusySample s;
  for (auto& src : sources_.sources) {
    try {
      auto readings = src->read();
      s.readings.insert(s.readings.end(), std::make_move_iterator(readings.begin()),
                        std::make_move_iterator(readings.end()));
    } catch (const std::exception&) {
      // a source must not throw; if one does, this sample goes without it
    }
  }
  s.t_ms = now_ms();
  std::lock_guard<std::mutex> lock(mu_);
  samples_.push_back(std::move(s));
}

void GpuBusySampler::loop() {
  const auto period = std::chrono::duration<double, std::milli>(period_ms_);
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    sample_once();
    next += std::chrono::duration_cast<std::chrono::steady_clock::duration>(period);
    const auto now = std::chrono::steady_clock::now();
    if (next < now) next = now;  // a slow read: no burst of catch-up samples
    std::unique_lock<std::mutex> lock(mu_);
    if (wake_.wait_until(lock, next, [this] { return stop_requested_; })) return;
  }
}

GpuBusy GpuBusySampler::summary(double t0_ms, double t1_ms) const {
  std::lock_guard<std::mutex> lock(mu_);
  return summarize_gpu_busy(samples_, t0_ms, t1_ms, period_ms_);
}

}  // namespace accel::platform
