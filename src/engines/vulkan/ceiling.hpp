// The Vulkan compute ceiling (issue 13): what the silicon and the graphics
// driver alone reach on each physical device, whatever the framework makes of
// it. The loader is opened at run time (libvulkan.so.1 / vulkan-1.dll); the
// compute shaders (shaders/*.comp) are compiled to SPIR-V by glslc at build
// time (shaders/dot_int8.spvasm assembled by spirv-as) and embedded. No
// build-time Vulkan library.
//
// Measurements per device (keys "bench/vulkan/<group>/<name>/<dtype>/<shape>",
// the device "vulkan:<index>" in Result::device, its identity in `evidence`):
//   compute/fma/fp32/chains32   peak fp32 FMA rate (independent chains per lane)
//   compute/fma/fp16/chains32   the same in fp16 where shaderFloat16
//   compute/dot/int8/chains32   peak int8 dot product rate (OpSDotKHR, packed 4x8-bit,
//                               VK_KHR_shader_integer_dot_product), in TOPS
//   memory/copy/u32/large       device copy, bytes read + written
//   memory/read/u32/large       read-only (a position-weighted sum)
//   transfer/h2d/u8/<size>      host-visible -> device-local (vkCmdCopyBuffer)
//   transfer/d2h/u8/<size>      and back
//
// This header holds the pure parts (sizing, growth of the dispatch, the
// checksums the host recomputes, the join with the framework's rows, the
// table); runtime.cpp (discovery), gpu.cpp (the logical device) and
// measure.cpp (the measurements) talk to Vulkan, runtime_stub.cpp stands in
// when the build had no glslc or no Vulkan headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/evidence.hpp"
#include "core/vulkan_join.hpp"

namespace accel {
class GpuPeakTable;
}

namespace accel::vulkan {

/// One physical device as Vulkan describes it.
struct DeviceInfo {
  int index = 0;
  std::string name;
  std::string type;       ///< "discrete_gpu", "integrated_gpu", "virtual_gpu", "cpu", "other"
  bool software = false;  ///< a CPU / software rasteriser (lavapipe, llvmpipe, SwiftShader, WARP)
  std::string vendor_id;  ///< "0x10de"
  std::string device_id;
  std::string api_version;  ///< "1.3.277"
  std::string driver_name;  ///< VkPhysicalDeviceDriverProperties (1.2), else ""
  std::string driver_info;
  std::string
      pci_address;  ///< "0000:19:00.0" (VK_EXT_pci_bus_info), "" when the driver has not the extension
  std::string device_uuid;            ///< 32 hex digits
  std::string device_luid;            ///< 16 hex digits, Windows only (deviceLUIDValid)
  bool fp16 = false;                  ///< shaderFloat16
  bool int8_dot = false;              ///< shaderIntegerDotProduct, and this build has the shader (spirv-as)
  bool int8_dot_accelerated = false;  ///< integerDotProduct4x8BitPackedSignedAccelerated
  double timestamp_period_ns = 0;
  std::uint32_t timestamp_valid_bits = 0;
  std::uint64_t device_local_bytes = 0;        ///< largest DEVICE_LOCAL heap
  std::uint64_t max_storage_buffer_range = 0;  ///< limits.maxStorageBufferRange
  std::vector<std::string> notes;              ///< what was left out on this device, and why
};

/// "discrete_gpu" ... for VkPhysicalDeviceType values 0..4 ("other" else).
std::string device_type_name(int vk_physical_device_type);
/// A CPU-type device, or a name/driver of a known software implementation.
bool is_software_device(const std::string& type, const std::string& name, const std::string& driver_name);
/// "1.3.277" from a VK_MAKE_API_VERSION value.
std::string api_version_string(std::uint32_t v);
/// Lower-case hex of bytes ("" for none).
std::string hex_bytes(const unsigned char* bytes, std::size_t n);

/// "bench/vulkan/<group>/<name>/<dtype>/<shape>".
std::string key(const std::string& group, const std::string& name, const std::string& dtype,
                const std::string& shape);

struct Options {
  bool quick = false;
  /// One submit of the FMA dispatch lasts at least this long on a GPU; on a
  /// software device the (bounded, short) software target applies.
  double gpu_target_ms = 100;
  double software_target_ms = 10;
  int gpu_samples = 9;
  int software_samples = 5;
  /// The default run: software devices are described but not measured.
  bool gpus_only = false;
  /// Loader names to try instead of the platform's (tests; the front end also
  /// takes ACCEL_DOCTOR_VULKAN_LOADER, a path or file name).
  std::vector<std::string> loader_names;
  /// kb/gpus.json, for the last-level cache that sizes the memory buffers
  /// (cache_sizing); null: the default size.
  const GpuPeakTable* datasheet = nullptr;
};

/// The run: which loader opened, every device, the result rows.
struct Run {
  bool built = true;   ///< false: this binary has no Vulkan engine (no glslc at build time)
  std::string loader;  ///< the library that opened, "" when none
  std::string error;   ///< why nothing could be measured ("" when devices were found)
  std::vector<DeviceInfo> devices;
  std::vector<Result> results;
};

/// True when this build has the int8 dot product shader (spirv-as was found).
bool int8_dot_built();

/// Measures every physical device. Never throws: a failure is `error` (no
/// loader, no instance, no device) or a row's status and reason.
Run run(const Options& options);

// ---------------------------------------------------------------- pure parts

/// Bytes of each memory-benchmark buffer: 8x the last-level cache where known
/// (else 8x 128 MiB, above every current GPU's L2 but the largest Infinity
/// Cache), at most a quarter of the device-local heap (two buffers and
/// headroom) and maxStorageBufferRange, a multiple of 1 MiB. A software device
/// gets a small buffer (16 MiB, 4 quick) so CI stays in seconds.
std::uint64_t memory_buffer_bytes(const DeviceInfo& d, bool quick,
                                  std::optional<std::uint64_t> llc_bytes = {});

/// The last-level cache a device's memory buffers are sized against, and
/// where that came from (evidence.buffer_sizing of the memory rows).
struct CacheSizing {
  std::optional<std::uint64_t> llc_bytes;  ///< none: the default (8x 128 MiB)
  std::string sizing;                      ///< "8x the 50 MiB L2 (kb/gpus.json: NVIDIA H200 SXM 141GB, ...)"
};
/// The device name as kb/gpus.json's patterns know it: the Vulkan name
/// without a driver's trailing parenthesis ("AMD Radeon RX 6650 XT (RADV
/// NAVI23)" -> "AMD Radeon RX 6650 XT"; Intel's "(DG2)" likewise).
std::string datasheet_name(const std::string& vulkan_name);
/// The kb row of the device (by datasheet_name, the device-local heap size as
/// the memory hint) and that row's `llc_bytes`; the default when the table is
/// null, no row matches or the row has no cache size. A software device gets
/// its fixed small buffers.
CacheSizing cache_sizing(const DeviceInfo& d, const GpuPeakTable* table);

/// Growth of the FMA dispatch: the loop trip count for the next submit after
/// one of `iterations` lasted `measured_ms`, or nullopt when `measured_ms`
/// reached `target_ms` (or the cap is hit). Grows by the measured ratio with
/// 20% headroom, at least 2x and at most 64x per step.
std::optional<std::uint32_t> next_iterations(std::uint32_t iterations, double measured_ms, double target_ms,
                                             std::uint32_t cap = 1u << 24);

/// Parameters of the FMA shaders' contraction x <- x*b + c.
struct FmaParams {
  float b = 0.999f;
  float c = 0.001f;
  float seed = 0.25f;
};
inline FmaParams fma_params(bool fp16) {
  // fp16: b, c exact in half precision, fixed point 1.0; fp32: a slow
  // contraction, so the checksum depends on the trip count.
  return fp16 ? FmaParams{0.875f, 0.125f, 0.25f} : FmaParams{0.999f, 0.001f, 0.25f};
}
/// Chains per lane and FMAs per chain per loop trip of the FMA shaders.
inline constexpr int kFmaChains = 32;
inline constexpr int kFmaUnroll = 4;
inline constexpr std::uint32_t kWorkgroupSize = 256;
/// The checksum lane `lane` writes after `iterations` loop trips, recomputed in
/// double with the closed form x_n = b^n (x_0 - f) + f, f = c / (1 - b).
double fma_lane_expected(const FmaParams& p, std::uint32_t lane, std::uint32_t iterations);
/// Relative tolerance of the FMA checksum (fp16 rounds each step).
inline double fma_tolerance(bool fp16) { return fp16 ? 2e-2 : 1e-3; }

/// Parameters of the int8 dot product shader's step
/// x <- dot(bytes(x), bytes(b)) + c, signed bytes, wrapping int32 (OpSDotKHR
/// with PackedVectorFormat4x8Bit, then OpIAdd; shaders/dot_int8.spvasm).
struct DotParams {
  std::int32_t b = 0;
  std::int32_t c = 0;
  std::int32_t seed = 0;
};
/// b's bytes are (3, -5, 7, -11); c and seed have varied bytes, so every step
/// sees other operands.
inline DotParams dot_params() { return {static_cast<std::int32_t>(0xF507FB03u), 0x3779B97F, 0x2545F491}; }
inline constexpr int kDotChains = 32;
inline constexpr int kDotUnroll = 4;
/// The packed signed 4x8-bit dot product of a and b (what OpSDotKHR returns).
std::int32_t dot4_i8_packed(std::int32_t a, std::int32_t b);
/// The checksum word lane `lane` writes after `iterations` loop trips (4
/// steps each) of its 32 chains: their wrapping sum. Exact; the step maps
/// into a set of about 2^17 values, so each chain is followed to its cycle
/// and the rest of the trips skipped (cost: the cycle's length, not the trips).
std::int32_t dot_lane_expected(const DotParams& p, std::uint32_t lane, std::uint32_t iterations);

/// The fill shader's word i (lowbias32 hash of i ^ seed).
std::uint32_t fill_word(std::uint32_t i, std::uint32_t seed);
/// What the read shader's words sum to over a buffer of `words` filled words
/// (words a multiple of 4): sum over uvec4 elements e of (e's four words) x (e + 1), mod 2^32.
std::uint32_t read_checksum_expected(std::uint64_t words, std::uint32_t seed);

/// A line when the device timestamps and the host clock around the same
/// submits disagree (device time above the host's, or under half of it when
/// the submits are long enough for the host clock to be meaningful); "" when
/// they agree.
std::string timing_cross_check(double device_median_ms, double host_median_ms);

/// A bench row with its timing (make_timing over `samples_us`, method
/// "vulkan_timestamps"), its work and metrics ("tflops" from flops, "gbps"
/// from bytes) and the device's identity in `evidence`.
Result make_row(const DeviceInfo& d, const std::string& group, const std::string& name,
                const std::string& dtype, const std::string& shape, std::vector<double> samples_us,
                const Work& work);
/// A row that could not be measured (status skipped or error, with the reason).
Result make_missing_row(const DeviceInfo& d, const std::string& group, const std::string& name,
                        const std::string& dtype, const std::string& shape, Status status,
                        std::string reason);

// ---------------------------------------------------------------- joining

// framework_counterpart, framework_device_pci, attach_framework_ratios:
// core/vulkan_join.hpp (the rules join the same way).

/// Against the datasheet of kb/gpus.json (the row found by the device's
/// name): roofline.peak_tflops / bandwidth_gbps and percent_of_bound for the
/// fp32 FMA (the vector fp32 figure) and the device memory rows. fp16 is not
/// compared: the table's fp16 is the matrix-unit rate. Software devices are
/// never compared (their figure is not a GPU ceiling).
void attach_datasheet(std::vector<Result>& vulkan_rows, const GpuPeakTable& table);

/// The text of `bench --vulkan`: one block per device (identity, type, a
/// software device labelled as such), a row per figure with its median and
/// IQR, % of the datasheet, framework / ceiling.
std::string render(const Run& run);

}  // namespace accel::vulkan
