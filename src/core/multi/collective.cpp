#include "core/multi/collective.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <stdexcept>

#include "core/strings.hpp"

namespace accel::multi {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "all_reduce";
    case Collective::all_gather:
      return "all_gather";
    case Collective::reduce_scatter:
      return "reduce_scatter";
    case Collective::broadcast:
      return "broadcast";
    case Collective::send_recv:
      return "send_recv";
  }
  return "?";
}

std::optional<Collective> parse_collective(std::string_view name) {
  const std::string n = lower(name);
  if (n == "all_reduce" || n == "allreduce") return Collective::all_reduce;
  if (n == "all_gather" || n == "allgather") return Collective::all_gather;
  if (n == "reduce_scatter" || n == "reducescatter") return Collective::reduce_scatter;
  if (n == "broadcast") return Collective::broadcast;
  if (n == "send_recv" || n == "sendrecv") return Collective::send_recv;
  return std::nullopt;
}

const std::vector<Collective>& group_collectives() {
  static const std::vector<Collective> kAll{Collective::all_reduce, Collective::all_gather,
                                            Collective::reduce_scatter, Collective::broadcast};
  return kAll;
}

double bus_factor(Collective c, int ranks) {
  if (ranks < 2) return 0;
  const double n = ranks;
  switch (c) {
    case Collective::all_reduce:
      return 2.0 * (n - 1) / n;
    case Collective::all_gather:
    case Collective::reduce_scatter:
      return (n - 1) / n;
    case Collective::broadcast:
    case Collective::send_recv:
      return 1.0;
  }
  return 0;
}

CollectiveShape collective_shape(Collective c, double size_bytes, int element_bytes, int ranks) {
  if (!(size_bytes > 0) || element_bytes <= 0 || ranks <= 0) {
    throw std::invalid_argument(
        fmt::format("collective_shape: size {} B, element {} B, {} ranks", size_bytes, element_bytes, ranks));
  }
  const auto count = static_cast<std::int64_t>(size_bytes / element_bytes);
  CollectiveShape s;
  switch (c) {
    case Collective::all_reduce:
    case Collective::broadcast:
    case Collective::send_recv:
      s.input_elements = s.output_elements = count;
      s.size_bytes = static_cast<double>(count) * element_bytes;
      break;
    case Collective::all_gather:
    case Collective::reduce_scatter: {
      // nccl-tests AllGatherGetCollByteCount / ReduceScatterGetCollByteCount.
      const std::int64_t align = element_bytes >= 16 ? 1 : 16 / element_bytes;
      const std::int64_t base = (count / ranks) & ~(align - 1);
      s.input_elements = c == Collective::all_gather ? base : base * ranks;
      s.output_elements = c == Collective::all_gather ? base * ranks : base;
      s.size_bytes = static_cast<double>(base) * ranks * element_bytes;
      break;
    }
  }
  return s;
}

Bandwidth bandwidth(Collective c, double size_bytes, double time_us, int ranks) {
  Bandwidth b;
  if (!(time_us > 0)) return b;
  b.algbw_gbps = size_bytes / (time_us * 1e-6) / 1e9;
  b.busbw_gbps = b.algbw_gbps * bus_factor(c, ranks);
  return b;
}

double pattern_value(int rank, std::int64_t index) { return 1.0 + static_cast<double>((rank + index) % 3); }

double expected_value(Collective c, int rank, std::int64_t index, int ranks, std::int64_t input_elements) {
  auto sum_at = [&](std::int64_t i) {
    double s = 0;
    for (int r = 0; r < ranks; ++r) s += pattern_value(r, i);
    return s;
  };
  switch (c) {
    case Collective::all_reduce:
      return sum_at(index);
    case Collective::all_gather:
      return input_elements > 0
                 ? pattern_value(static_cast<int>(index / input_elements), index % input_elements)
                 : 0.0;
    case Collective::reduce_scatter: {
      const std::int64_t out = ranks > 0 ? input_elements / ranks : 0;
      return sum_at(rank * out + index);
    }
    case Collective::broadcast:
      return pattern_value(0, index);
    case Collective::send_recv:
      return pattern_value((rank - 1 + ranks) % ranks, index);
  }
  return 0;
}

std::vector<double> size_sweep(double min_bytes, double max_bytes) {
  std::vector<double> out;
  if (!(min_bytes > 0) || min_bytes > max_bytes) return out;
  for (double s = min_bytes; s <= max_bytes * (1 + 1e-9); s *= 4) out.push_back(s);
  return out;
}

std::string size_label(double bytes) {
  const auto b = static_cast<std::uint64_t>(std::llround(bytes));
  for (const auto& [shift, unit] : {std::pair<int, const char*>{30, "GiB"}, {20, "MiB"}, {10, "KiB"}}) {
    const std::uint64_t one = 1ull << shift;
    if (b >= one && b % one == 0) return fmt::format("{}{}", b / one, unit);
  }
  return fmt::format("{}B", b);
}

std::optional<double> parse_size(std::string_view text) {
  const std::string t = lower(trim(text));
  if (t.empty()) return std::nullopt;
  std::size_t pos = 0;
  while (pos < t.size() && (std::isdigit(static_cast<unsigned char>(t[pos])) || t[pos] == '.')) ++pos;
  if (pos == 0) return std::nullopt;
  double value = 0;
  try {
    value = std::stod(t.substr(0, pos));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::string unit = t.substr(pos);
  double scale = 1;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else if (unit == "k" || unit == "kib" || unit == "kb") {
    scale = 1024.0;
  } else if (unit == "m" || unit == "mib" || unit == "mb") {
    scale = 1024.0 * 1024;
  } else if (unit == "g" || unit == "gib" || unit == "gb") {
    scale = 1024.0 * 1024 * 1024;
  } else {
    return std::nullopt;
  }
  if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
  return value * scale;
}

std::string collective_key(std::string_view backend, Collective c, std::string_view dtype, double size_bytes,
                           int ranks) {
  return fmt::format("multi/{}/{}/{}/{}/n{}", backend, to_string(c), dtype, size_label(size_bytes), ranks);
}

std::string link_key(std::string_view backend, std::string_view dtype, double size_bytes, int src, int dst) {
  return fmt::format("multi/{}/send_recv/{}/{}/r{}-r{}", backend, dtype, size_label(size_bytes), src, dst);
}

std::string group_key(std::string_view backend, int ranks) {
  return fmt::format("multi/{}/group/n{}", backend, ranks);
}

std::string rank_key(std::string_view backend, int rank) {
  return fmt::format("multi/{}/rank/r{}", backend, rank);
}

std::vector<std::pair<int, int>> ring_links(int ranks) {
  std::vector<std::pair<int, int>> out;
  if (ranks < 2) return out;
  for (int r = 0; r < ranks; ++r) out.emplace_back(r, (r + 1) % ranks);
  return out;
}

}  // namespace accel::multi
