#include "core/units.hpp"

#include <cmath>

#include <fmt/format.h>

namespace accel {

std::string format_sig3(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e4 || a < 1e-3) return fmt::format("{:.2e}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

std::string format_us(double us) {
  if (!std::isfinite(us)) return "-";
  const double a = std::fabs(us);
  if (a < 1) return fmt::format("{} ns", format_sig3(us * 1000));
  if (a < 1000) return fmt::format("{} µs", format_sig3(us));
  if (a < 1e6) return fmt::format("{} ms", format_sig3(us / 1000));
  return fmt::format("{} s", format_sig3(us / 1e6));
}

std::string format_bytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", v);
  return fmt::format("{:.1f} {}", v, kUnits[u]);
}

std::string format_ratio(double r) {
  if (!std::isfinite(r)) return "-";
  return fmt::format("{}x", format_sig3(r));
}

}  // namespace accel
