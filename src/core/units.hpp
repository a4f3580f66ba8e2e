// Human-readable numbers with their units. Times arrive in microseconds,
// sizes in bytes, rates in their SI unit (GB/s = 1e9 B/s, TFLOP/s = 1e12 FLOP/s).
#pragma once

#include <cstdint>
#include <string>

namespace accel {

/// "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
std::string format_us(double us);
/// "512 B", "1.5 KiB", "8.0 GiB" (binary prefixes)
std::string format_bytes(double bytes);
/// "14.2x", "0.53x"
std::string format_ratio(double r);
/// Three significant figures: "1.23", "45.6", "789", "1.23e+04"
std::string format_sig3(double v);

}  // namespace accel
