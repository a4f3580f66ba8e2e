// The measurements of the Vulkan ceiling (measure.hpp): the chain kernels
// (fp32/fp16 FMA, int8 dot product), device memory, host<->device copies.
#include "engines/vulkan/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/stats.hpp"
#include "engines/vulkan/shaders.hpp"

namespace accel::vulkan::detail {

namespace {

using Clock = std::chrono::steady_clock;

Push push_of(std::uint32_t w0, std::uint32_t w1 = 0) {
  Push p;
  p.words[0] = w0;
  p.words[1] = w1;
  return p;
}

/// The chain kernels' push constants: the trip count, then b, c and the seed
/// (FmaParams: floats; DotParams: int32), 4 bytes each.
template <typename Params>
Push chain_push(std::uint32_t iterations, const Params& prm) {
  static_assert(sizeof(prm.b) == 4 && sizeof(prm.c) == 4 && sizeof(prm.seed) == 4);
  Push p;
  p.words[0] = iterations;
  std::memcpy(&p.words[1], &prm.b, 4);
  std::memcpy(&p.words[2], &prm.c, 4);
  std::memcpy(&p.words[3], &prm.seed, 4);
  return p;
}

/// Samples of `record`: one untimed warm-up submit, then `n` timed ones.
/// Device time from the timestamps when the queue has them, else the host
/// clock (the row says which); the host clock's median goes into metrics.
struct Sampled {
  std::vector<double> samples_us;
  double host_median_ms = 0;
  double device_median_ms = 0;
  std::string method = "vulkan_timestamps";
};
Sampled sample(Gpu& gpu, const std::function<void()>& record, int n) {
  const bool ts = gpu.info().timestamp_valid_bits > 0;
  gpu.submit(record, false);
  Sampled s;
  std::vector<double> host, device;
  for (int i = 0; i < n; ++i) {
    const auto t = gpu.submit(record, ts);
    host.push_back(t.host_ms);
    device.push_back(ts ? t.device_ms : t.host_ms);
    s.samples_us.push_back((ts ? t.device_ms : t.host_ms) * 1000);
  }
  s.host_median_ms = quantile(host, 0.5);
  s.device_median_ms = quantile(device, 0.5);
  if (!ts) s.method = "host_clock";
  return s;
}

void finish_row(Result& r, const Sampled& s) {
  r.timing->method = s.method;
  r.metrics["host_median_ms"] = s.host_median_ms;
  const std::string cc = timing_cross_check(s.device_median_ms, s.host_median_ms);
  if (!cc.empty()) r.warnings.push_back(cc);
}

/// One chain kernel: its shader, push constants, work and checksum.
struct ChainSpec {
  std::string group, name, dtype;
  std::string_view spirv;
  std::function<Push(std::uint32_t iterations)> push;
  double ops_per_lane_trip = 0;  ///< FLOPs (or integer ops) one lane does per loop trip
  /// Relative error of lane `lane`'s checksum word after `iterations` trips.
  std::function<double(std::uint32_t lane, std::uint32_t iterations, std::uint32_t word)> error;
  double tolerance = 0;
  std::string checked;  ///< what the checksum compares, for Accuracy::detail
};

ChainSpec chain_spec(ChainKind kind) {
  ChainSpec c;
  if (kind == ChainKind::dot_int8) {
    const DotParams prm = dot_params();
    c = {"compute",
         "dot",
         "int8",
         shaders::dot_int8(),
         [prm](std::uint32_t n) { return chain_push(n, prm); },
         8.0 * kDotUnroll * kDotChains,
         [prm](std::uint32_t lane, std::uint32_t n, std::uint32_t word) {
           return static_cast<std::uint32_t>(dot_lane_expected(prm, lane, n)) == word ? 0.0 : 1.0;
         },
         0.0,
         fmt::format("64 lanes' wrapping sums of their {} chains, recomputed exactly on the host",
                     kDotChains)};
    return c;
  }
  const bool fp16 = kind == ChainKind::fma_fp16;
  const FmaParams prm = fma_params(fp16);
  c = {"compute",
       "fma",
       fp16 ? "fp16" : "fp32",
       fp16 ? shaders::fma_fp16() : shaders::fma_fp32(),
       [prm](std::uint32_t n) { return chain_push(n, prm); },
       2.0 * kFmaUnroll * kFmaChains,
       [prm](std::uint32_t lane, std::uint32_t n, std::uint32_t word) {
         const double want = fma_lane_expected(prm, lane, n);
         float got = 0;
         std::memcpy(&got, &word, sizeof got);
         const double err = std::abs(got - want) / std::max(1e-30, std::abs(want));
         return std::isfinite(err) ? err : 1e30;
       },
       fma_tolerance(fp16),
       fmt::format("64 lanes' sums of their {} chains against the closed form in double", kFmaChains)};
  return c;
}

}  // namespace

Result measure_chains(Gpu& gpu, ChainKind kind, const Options& o) {
  const DeviceInfo& d = gpu.info();
  const ChainSpec spec = chain_spec(kind);
  const auto t_start = Clock::now();
  const std::size_t pi = gpu.pipeline(spec.spirv, 1);
  const std::uint32_t groups = d.software ? 16 : 8192;
  const std::uint64_t lanes = std::uint64_t{groups} * kWorkgroupSize;
  Buffer out = gpu.make_buffer(lanes * 4, false);
  const double target = d.software ? o.software_target_ms : o.gpu_target_ms;
  std::uint32_t iterations = d.software ? 2 : 64;
  auto record = [&] { gpu.record_dispatch(pi, {&out}, spec.push(iterations), groups); };
  // Grow the trip count until one submit lasts `target`; bounded in time.
  const bool ts = d.timestamp_valid_bits > 0;
  gpu.submit(record, false);  // warm-up: the pipeline's first dispatch may compile it (lavapipe JITs)
  auto t = gpu.submit(record, ts);
  std::vector<std::string> growth{fmt::format("{}:{:.3f}ms", iterations, ts ? t.device_ms : t.host_ms)};
  while (auto next = next_iterations(iterations, ts ? t.device_ms : t.host_ms, target)) {
    if (std::chrono::duration<double>(Clock::now() - t_start).count() > (d.software ? 5 : 30)) break;
    iterations = *next;
    t = gpu.submit(record, ts);
    growth.push_back(fmt::format("{}:{:.3f}ms", iterations, ts ? t.device_ms : t.host_ms));
  }
  const Sampled s = sample(gpu, record, d.software ? o.software_samples : o.gpu_samples);
  // Checksums of 64 lanes spread over the dispatch, recomputed on the host.
  const auto sums = gpu.download(out, lanes * 4);
  gpu.free(out);
  double worst = 0;
  int bad = 0;
  for (int k = 0; k < 64; ++k) {
    const auto lane = static_cast<std::uint32_t>((lanes - 1) * k / 63);
    const double err = spec.error(lane, iterations, sums[lane]);
    if (!(err <= spec.tolerance)) ++bad;
    worst = std::max(worst, err);
  }
  Work w;
  w.flops = static_cast<double>(lanes) * iterations * spec.ops_per_lane_trip;
  Result r = make_row(d, spec.group, spec.name, spec.dtype, "chains32", s.samples_us, w);
  finish_row(r, s);
  if (kind == ChainKind::dot_int8) {
    // Integer operations: TOPS, as kb/gpus.json's int8 figures.
    r.metrics["tops"] = r.metrics["tflops"];
    r.metrics.erase("tflops");
    r.evidence["hardware_accelerated"] = d.int8_dot_accelerated;
  }
  r.metrics["iterations"] = iterations;
  r.metrics["lanes"] = static_cast<double>(lanes);
  r.evidence["growth"] = growth;
  r.accuracy = Accuracy{"checksum", worst, spec.tolerance, spec.checked};
  if (bad > 0) {
    r.status = Status::mismatch;
    r.reason = fmt::format("{} of 64 sampled lane checksums wrong (worst relative error {:.3g})", bad, worst);
  }
  if (ts && t.device_ms < target && !d.software) {
    r.warnings.push_back(fmt::format("the dispatch did not reach {:.0f} ms per submit", target));
  }
  return r;
}

std::vector<Result> measure_memory(Gpu& gpu, const Options& o, std::optional<std::uint64_t> llc_bytes,
                                   const std::string& sizing) {
  const DeviceInfo& d = gpu.info();
  const std::uint64_t bytes = memory_buffer_bytes(d, o.quick, llc_bytes);
  const std::uint64_t words = bytes / 4, elements = bytes / 16;
  const auto count = static_cast<std::uint32_t>(elements);
  const std::uint32_t groups = static_cast<std::uint32_t>(
      std::min<std::uint64_t>((elements + kWorkgroupSize - 1) / kWorkgroupSize, 65535));
  const std::uint32_t seed = 0x5eed1234u;
  const std::size_t fill = gpu.pipeline(shaders::fill(), 1);
  const std::size_t read = gpu.pipeline(shaders::read(), 2);
  const std::size_t copy = gpu.pipeline(shaders::copy(), 2);
  Buffer src = gpu.make_buffer(bytes, false);
  Buffer dst = gpu.make_buffer(bytes, false);
  Buffer sums = gpu.make_buffer(std::uint64_t{groups} * 4, false);
  gpu.submit(
      [&] { gpu.record_dispatch(fill, {&src}, push_of(static_cast<std::uint32_t>(words), seed), groups); },
      false);
  const std::uint32_t expected = read_checksum_expected(words, seed);
  auto checksum = [&]() {
    std::uint32_t s = 0;
    for (auto v : gpu.download(sums, std::uint64_t{groups} * 4)) s += v;
    return s;
  };
  const int n = d.software ? o.software_samples : 21;
  const std::string shape = "large";
  std::vector<Result> rows;

  const Sampled sr = sample(
      gpu,
      [&] {
        gpu.record_dispatch(read, {&src, &sums}, push_of(count), groups);
      },
      n);
  const std::uint32_t got_read = checksum();
  Result rr = make_row(d, "memory", "read", "u32", shape, sr.samples_us, Work{0, static_cast<double>(bytes)});
  finish_row(rr, sr);
  rows.push_back(rr);

  const Sampled sc = sample(
      gpu,
      [&] {
        gpu.record_dispatch(copy, {&src, &dst}, push_of(count), groups);
      },
      n);
  gpu.submit([&] { gpu.record_dispatch(read, {&dst, &sums}, push_of(count), groups); }, false);
  const std::uint32_t got_copy = checksum();
  Result rc =
      make_row(d, "memory", "copy", "u32", shape, sc.samples_us, Work{0, 2.0 * static_cast<double>(bytes)});
  finish_row(rc, sc);
  rows.push_back(rc);

  for (auto* r : {&rows[0], &rows[1]}) {
    const std::uint32_t got = r == &rows[0] ? got_read : got_copy;
    r->metrics["buffer_bytes"] = static_cast<double>(bytes);
    r->evidence["buffer_sizing"] = sizing;
    r->accuracy = Accuracy{"checksum", got == expected ? 0.0 : 1.0, 0,
                           fmt::format("position-weighted sum {:#010x}, expected {:#010x}", got, expected)};
    if (got != expected) {
      r->status = Status::mismatch;
      r->reason = fmt::format("checksum {:#010x} != {:#010x} expected from the data", got, expected);
    }
  }
  gpu.free(src);
  gpu.free(dst);
  gpu.free(sums);
  return rows;
}

std::vector<Result> measure_transfers(Gpu& gpu, const Options& o) {
  const DeviceInfo& d = gpu.info();
  const std::uint64_t bytes = (d.software ? 8 : 256) * (1ull << 20);
  const std::string shape = d.software ? "8MiB" : "256MiB";
  Buffer host = gpu.make_buffer(bytes, true);
  Buffer back = gpu.make_buffer(bytes, true);
  Buffer dev = gpu.make_buffer(bytes, false);
  auto* h = static_cast<std::uint32_t*>(host.mapped);
  for (std::uint64_t i = 0; i < bytes / 4; ++i) h[i] = fill_word(static_cast<std::uint32_t>(i), 77u);
  std::memset(back.mapped, 0, bytes);
  const int n = d.software ? o.software_samples : 11;
  std::vector<Result> rows;
  const Sampled up = sample(
      gpu, [&] { gpu.copy(host, dev, bytes); }, n);
  const Sampled down = sample(
      gpu, [&] { gpu.copy(dev, back, bytes); }, n);
  const bool same = std::memcmp(host.mapped, back.mapped, bytes) == 0;
  for (const bool h2d : {true, false}) {
    Result r = make_row(d, "transfer", h2d ? "h2d" : "d2h", "u8", shape, (h2d ? up : down).samples_us,
                        Work{0, static_cast<double>(bytes)});
    finish_row(r, h2d ? up : down);
    r.accuracy =
        Accuracy{"exact", same ? 0.0 : 1.0, 0, "host -> device -> host round trip compared byte for byte"};
    if (!same) {
      r.status = Status::mismatch;
      r.reason = "the bytes read back differ from those written";
    }
    rows.push_back(std::move(r));
  }
  gpu.free(host);
  gpu.free(back);
  gpu.free(dev);
  return rows;
}

}  // namespace accel::vulkan::detail
