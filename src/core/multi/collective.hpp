// Collective operations across ranks (processes, one per GPU or CPU), their
// sizes, their bandwidths and the values a correct run produces. Torch-free:
// the torch engine runs them (engines/torch/multi/), the front end and the
// rules read the figures.
//
// Bandwidths are exactly those of nccl-tests
// (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md, and
// src/{all_reduce,all_gather,reduce_scatter,broadcast,sendrecv}.cu, *GetBw):
//   time t      the time of one operation (the mean of back-to-back calls,
//               averaged over the ranks: nccl-tests' default `-a 1`)
//   S           the operation's size in bytes: the buffer each rank holds for
//               all-reduce and broadcast; the whole gathered output for
//               all-gather (n x the per-rank input); the whole input for
//               reduce-scatter (n x the per-rank output); the bytes sent for
//               send/recv
//   algbw = S / t                              (GB/s, 1e9 bytes/s)
//   busbw = algbw x factor, factor:
//     all-reduce      2 (n - 1) / n
//     all-gather      (n - 1) / n
//     reduce-scatter  (n - 1) / n
//     broadcast       1
//     send/recv       1
// busbw is comparable with the link's bandwidth whatever the number of ranks
// n: it is what the slowest link carried.
//
// Correctness: rank r's input element i is pattern_value(r, i) = 1 + (r + i)
// mod 3, small integers, so sums over up to 85 ranks are exact in fp32,
// fp16 and bf16 (8 significant bits) alike; expected_value() is what element
// i of rank r's output must be.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace accel::multi {

/// The operations measured. send_recv is one link: one rank sends, the next
/// receives (a pair of ranks, in rank order around the ring).
enum class Collective { all_reduce, all_gather, reduce_scatter, broadcast, send_recv };

/// "all_reduce", "all_gather", "reduce_scatter", "broadcast", "send_recv".
std::string_view to_string(Collective c);
/// Parses those names (and "allreduce", "allgather", "reducescatter",
/// "sendrecv"); nullopt otherwise.
std::optional<Collective> parse_collective(std::string_view name);
/// The four group collectives, in run order (send_recv is not among them).
const std::vector<Collective>& group_collectives();

/// The bus-bandwidth factor of `c` for `ranks` ranks (table above); 0 for
/// fewer than 2 ranks.
double bus_factor(Collective c, int ranks);

/// The elements one operation moves, for a requested size S.
struct CollectiveShape {
  std::int64_t input_elements = 0;   ///< per rank
  std::int64_t output_elements = 0;  ///< per rank
  double size_bytes = 0;             ///< S as nccl-tests counts it (after rounding)
};

/// The per-rank buffers of `c` for a requested size of `size_bytes` (S) with
/// elements of `element_bytes`: all-gather and reduce-scatter round the
/// per-rank count down to a multiple of 16 bytes, as nccl-tests does
/// (base = (count / n) & ~(16 / element_bytes - 1)). Throws
/// std::invalid_argument for a non-positive size, element size or rank count.
CollectiveShape collective_shape(Collective c, double size_bytes, int element_bytes, int ranks);

struct Bandwidth {
  double algbw_gbps = 0;
  double busbw_gbps = 0;
};
/// algbw and busbw for S = `size_bytes` moved in `time_us` by `ranks`
/// ranks; zeros for a non-positive time.
Bandwidth bandwidth(Collective c, double size_bytes, double time_us, int ranks);

/// Rank `rank`'s input element `index`: 1 + (rank + index) mod 3.
double pattern_value(int rank, std::int64_t index);

/// What element `index` of rank `rank`'s output must be after `c` over
/// `ranks` ranks, whose inputs hold `input_elements` elements each (the
/// CollectiveShape's): all-reduce the sum of the ranks' element `index`;
/// all-gather rank (index / input_elements)'s element index mod
/// input_elements; reduce-scatter the sum of the ranks' element
/// rank * output + index; broadcast (root 0) rank 0's element; send_recv
/// the element of the rank before `rank` in the ring.
double expected_value(Collective c, int rank, std::int64_t index, int ranks, std::int64_t input_elements);

/// The message sizes (S, bytes) of a sweep: powers of 4 from `min_bytes` to
/// `max_bytes` inclusive (nccl-tests' -b/-e with -f 4). Empty when min >
/// max or min <= 0.
std::vector<double> size_sweep(double min_bytes, double max_bytes);

/// "4KiB", "1MiB", "256MiB", "1GiB": the size part of a result key (binary
/// prefixes, whole numbers; other sizes as "<n>B").
std::string size_label(double bytes);
/// Parses a size as users write it: "4096", "64K", "64KiB", "1M", "1MiB",
/// "2G", "2GiB" (binary prefixes, case-insensitive); nullopt otherwise.
std::optional<double> parse_size(std::string_view text);

/// The stable key of a collective row:
/// "multi/<backend>/<collective>/<dtype>/<size label>/n<ranks>".
std::string collective_key(std::string_view backend, Collective c, std::string_view dtype, double size_bytes,
                           int ranks);
/// The key of a send/recv link row:
/// "multi/<backend>/send_recv/<dtype>/<size label>/r<src>-r<dst>".
std::string link_key(std::string_view backend, std::string_view dtype, double size_bytes, int src, int dst);
/// The key of the group row (rendezvous, ranks, versions): "multi/<backend>/group/n<ranks>".
std::string group_key(std::string_view backend, int ranks);
/// The key of one rank's own row (its host, device, transports): "multi/<backend>/rank/r<rank>".
std::string rank_key(std::string_view backend, int rank);

/// The links a run measures: each rank to the next in the ring, (0,1),
/// (1,2), ..., (n-1,0), one at a time (with two ranks: both directions).
/// Empty for fewer than two ranks.
std::vector<std::pair<int, int>> ring_links(int ranks);

}  // namespace accel::multi
