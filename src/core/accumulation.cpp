#include "core/accumulation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace accel {

namespace {
/// rms relative error of one round-to-nearest, in units of u (measured; see
/// the header).
constexpr double kRoundingRms = 0.42;
}  // namespace

std::optional<HalfFormat> parse_half_format(std::string_view dtype) {
  if (dtype == "fp16") return HalfFormat::fp16;
  if (dtype == "bf16") return HalfFormat::bf16;
  return std::nullopt;
}

const char* to_string(HalfFormat f) { return f == HalfFormat::fp16 ? "fp16" : "bf16"; }

double unit_roundoff(HalfFormat f) {
  return f == HalfFormat::fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
}

AccumulationModel accumulation_model(HalfFormat format, int64_t length) {
  AccumulationModel m;
  m.format = format;
  m.length = std::max<int64_t>(length, 1);
  const double u = unit_roundoff(format);
  m.expected_fp32 = kRoundingRms * u;
  m.expected_in_format = kRoundingRms * u * std::sqrt(std::max(1.0, static_cast<double>(m.length) / 2.0));
  m.tolerance = std::max(4.0 * m.expected_fp32, std::sqrt(m.expected_fp32 * m.expected_in_format));
  return m;
}

std::string explain_accumulation_error(const AccumulationModel& m, double rel_error) {
  const char* f = to_string(m.format);
  const std::string expected = fmt::format(
      "for {}-long sums a kernel that accumulates in fp32 gives about {:.2g} and one that "
      "accumulates in {} about {:.2g}",
      m.length, m.expected_fp32, f, m.expected_in_format);
  if (rel_error > 4 * m.expected_in_format) {
    return fmt::format("more error than accumulating in {} explains ({}): the result is wrong, not imprecise",
                       f, expected);
  }
  if (rel_error >= 0.5 * m.expected_in_format) {
    return fmt::format("this kernel accumulates in {} ({}): it loses precision that fp32 keeps", f, expected);
  }
  return fmt::format(
      "this kernel rounds its partial sums to {} along the way ({}): it loses precision that "
      "fp32 keeps",
      f, expected);
}

}  // namespace accel
