// Profiler evidence as neutral data, and the pure logic that decides where
// the work of a check ran. The engine turns a libtorch profiler capture into
// TraceEvents (from the Chrome trace Kineto writes, or from the event list
// when the build has no Kineto); everything after that is here, tested on
// traces recorded on real GPUs (tests/fixtures/traces/).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/evidence.hpp"

namespace accel {

/// One profiler event, whatever the backend.
struct TraceEvent {
  enum class Kind { op, kernel, memcpy, memset, sync, runtime, annotation, other };
  Kind kind = Kind::other;
  std::string name;
  int device = -1;  ///< device index for device activity, -1 for host
  double ts_us = 0;
  double dur_us = 0;
  double bytes = 0;          ///< memcpy/memset bytes when the profiler reports them
  std::string copy;          ///< "HtoD", "DtoH", "DtoD", "HtoH" for memcpy
  int64_t correlation = -1;  ///< links a device activity to the host call that launched it
};

std::string_view to_string(TraceEvent::Kind k);

/// Parses a Chrome/Perfetto trace written by torch's Kineto profiler
/// (`traceEvents` with cat = cpu_op, kernel, gpu_memcpy, gpu_memset,
/// cuda_runtime, cuda_driver, ...). Throws ReportError on malformed JSON.
std::vector<TraceEvent> parse_chrome_trace(const std::string& text);

/// Maps a memcpy event name ("Memcpy HtoD (Pageable -> Device)",
/// "hipMemcpyDtoH") to its direction, empty when unknown.
std::string copy_direction(std::string_view name);

/// Host-side call names that wait for the device.
bool is_sync_call(std::string_view name);

/// Kernel/op name patterns that name the implementation that ran
/// (kb/kernels.json): role (gemm, conv, sdpa, ...) -> library/backend.
class ImplementationTable {
 public:
  /// Loads `kernels.json` from a kb directory; throws KbError.
  static ImplementationTable load(const std::string& kb_dir);
  ImplementationTable();
  ~ImplementationTable();
  ImplementationTable(ImplementationTable&&) noexcept;
  ImplementationTable& operator=(ImplementationTable&&) noexcept;

  /// role -> implementation for every pattern matched by the kernels and
  /// ops in `events` (first match per role, in file order).
  std::map<std::string, std::string> identify(const std::vector<TraceEvent>& events) const;
  /// The role ("gemm", "conv", ...) whose kernel pattern matches `kernel`, or "".
  std::string role_of_kernel(const std::string& kernel) const;
  std::size_t size() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Merges Chrome traces (one per check) into one, with a global instant
/// event named after each part at its first timestamp. Parts that are not
/// valid traces are skipped. Returns the merged JSON text.
std::string merge_chrome_traces(const std::vector<std::pair<std::string, std::string>>& named_parts);

/// The same, streamed: part i (named `names[i]`) is read with `read_part(i)`
/// only when its turn comes and written to `out` event by event, so memory
/// stays at one part (a full GPU run is hundreds of traces, several GB as one
/// document). Invalid UTF-8 in names is replaced, never thrown. Returns the
/// number of parts merged.
std::size_t merge_chrome_traces(std::ostream& out, const std::vector<std::string>& names,
                                const std::function<std::string(std::size_t)>& read_part);

/// Device time of a workload split by what the code was doing, from user
/// annotations (record_function ranges named "<prefix>::<class>") and
/// kernel names. Kernels are tied to the host call that launched them by
/// correlation id, and that call to the innermost enclosing annotation.
struct DeviceTimeBreakdown {
  struct Kernel {
    std::string name;
    std::string cls;  ///< the class it was counted in
    int count = 0;
    double total_us = 0;
  };
  std::map<std::string, double> by_class_us;  ///< class -> device µs
  std::vector<Kernel> by_kernel;              ///< per kernel name, longest total first
  double kernel_us = 0;                       ///< sum of kernel durations
  double copy_us = 0;
  int kernels = 0;
  double span_us = 0;        ///< first device activity start to last end
  double busy_us = 0;        ///< union of device activity intervals
  double idle_fraction = 0;  ///< 1 - busy / span
};

/// `class_of_annotation` maps an annotation name to a class ("" = ignore
/// it); kernels under no annotation are "GEMM" when `implementations` names
/// them a GEMM, else "elementwise"; copies are "copies".
DeviceTimeBreakdown attribute_device_time(
    const std::vector<TraceEvent>& events,
    const std::function<std::string(const std::string&)>& class_of_annotation,
    const ImplementationTable* implementations);

struct ClassifyOptions {
  bool target_is_host = false;       ///< the check ran on the CPU
  bool profiler_sees_device = true;  ///< the profiler self-check saw device kernels
  bool transfer_check = false;       ///< the op is a host<->device copy by design
};

/// Summarises the events of one call and decides `where` it ran.
ProfileEvidence classify_events(const std::vector<TraceEvent>& events, const ClassifyOptions& options,
                                const ImplementationTable* implementations = nullptr);

}  // namespace accel
