#include "core/multi/link_bound.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

#include "core/strings.hpp"

namespace accel::multi {

namespace {

struct PcieRate {
  double gt_s;
  double lane_gbps;
  int generation;
};
constexpr PcieRate kPcie[] = {{2.5, 0.250, 1},
                              {5.0, 0.500, 2},
                              {8.0, 8.0 * 128 / 130 / 8, 3},
                              {16.0, 16.0 * 128 / 130 / 8, 4},
                              {32.0, 32.0 * 128 / 130 / 8, 5},
                              {64.0, 64.0 * 242 / 256 / 8, 6}};

const PcieRate* rate_of(std::string_view speed) {
  const std::string s = trim(speed);
  if (s.empty()) return nullptr;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return nullptr;
  for (const auto& r : kPcie) {
    if (std::fabs(r.gt_s - v) < 0.05) return &r;
  }
  return nullptr;
}

}  // namespace

std::optional<double> pcie_lane_gbps(std::string_view speed) {
  const PcieRate* r = rate_of(speed);
  return r ? std::optional<double>(r->lane_gbps) : std::nullopt;
}

std::optional<double> pcie_link_gbps(std::string_view speed, std::optional<int> width) {
  const auto lane = pcie_lane_gbps(speed);
  if (!lane || !width || *width <= 0) return std::nullopt;
  return *lane * *width;
}

int pcie_generation(std::string_view speed) {
  const PcieRate* r = rate_of(speed);
  return r ? r->generation : 0;
}

std::optional<double> nvlink_link_gbps(std::string_view compute_capability) {
  const std::string cc = trim(compute_capability);
  if (cc == "6.0") return 20.0;
  if (cc == "7.0") return 25.0;
  if (cc == "8.0") return 25.0;
  if (cc == "8.6") return 14.0625;
  if (cc == "9.0") return 25.0;
  if (cc == "10.0") return 50.0;
  return std::nullopt;
}

std::string normalize_pci_address(std::string_view address) {
  std::string a = lower(trim(address));
  const auto first = a.find(':');
  if (first == std::string::npos || a.find(':', first + 1) == std::string::npos) return a;
  if (first > 4 && a.substr(0, first - 4).find_first_not_of('0') == std::string::npos)
    a = a.substr(first - 4);
  return a;
}

}  // namespace accel::multi
