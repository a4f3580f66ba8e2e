#include "core/multi/nccl_log.hpp"

#include <re2/re2.h>

#include <algorithm>

#include "core/strings.hpp"

namespace accel::multi {

namespace {

void add_unique(std::vector<std::string>& v, const std::string& s, std::size_t max = 20) {
  if (s.empty() || v.size() >= max) return;
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

bool NcclLogSummary::uses_sockets() const {
  return std::any_of(transports.begin(), transports.end(),
                     [](const NcclTransport& t) { return t.detail.rfind("NET/Socket", 0) == 0; });
}

std::string NcclLogSummary::between(int rank, int peer, bool either) const {
  std::vector<std::string> found;
  for (const auto& t : transports) {
    const bool fwd = t.from_rank == rank && t.to_rank == peer;
    const bool back = either && t.from_rank == peer && t.to_rank == rank;
    if (fwd || back) add_unique(found, t.detail);
  }
  std::string out;
  for (const auto& f : found) out += (out.empty() ? "" : ", ") + f;
  return out;
}

NcclLogSummary parse_nccl_log(std::string_view text) {
  static const RE2 kPrefix(R"(^\s*([^\s:]+):\d+:\d+ \[[^\]]*\] )");
  static const RE2 kVersion(R"(\b(NCCL|RCCL) version ([0-9][0-9A-Za-z.+_-]*))");
  static const RE2 kNetwork(R"(NCCL INFO Using network (.+?)\s*$)");
  static const RE2 kSocketIf(R"(NET/Socket : Using (.+?)\s*$)");
  static const RE2 kIfEntry(R"(\[\d+\]([^\s\[]+?)(?:<\d+>)?(?:\s|$))");
  static const RE2 kSetting(R"(\b(NCCL_[A-Z0-9_]+) set by environment to ([^\s]*?)\.?\s*$)");
  static const RE2 kChannel(
      R"(Channel \d+(?:/\d+)? : (\d+)\[[^\]]*\] -> (\d+)\[[^\]]*\](?: \[(?:send|receive)\])? via ((P2P|SHM|NET|COLLNET)[^\s]*))");
  static const RE2 kP2pFail(R"((Could not enable P2P between [^\n]*|P2P is disabled between [^\n.]*))");
  static const RE2 kWarn(R"(NCCL WARN (.+?)\s*$)");
  NcclLogSummary s;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const re2::StringPiece line(text.data() + start, end - start);
    start = end + 1;
    if (line.find("NCCL") == re2::StringPiece::npos && line.find("RCCL") == re2::StringPiece::npos &&
        line.find("Channel") == re2::StringPiece::npos) {
      if (end == text.size()) break;
      continue;
    }
    std::string host, a, b, c, d;
    if (RE2::PartialMatch(line, kPrefix, &host)) add_unique(s.hosts, host, 256);
    if (s.version.empty() && RE2::PartialMatch(line, kVersion, &a, &b)) {
      s.library = a;
      s.version = b;
    }
    if (RE2::PartialMatch(line, kNetwork, &a)) s.network = trim(a);
    if (RE2::PartialMatch(line, kSocketIf, &a)) {
      re2::StringPiece rest(a);
      std::string itf;
      while (RE2::FindAndConsume(&rest, kIfEntry, &itf)) add_unique(s.socket_interfaces, itf);
    }
    if (RE2::PartialMatch(line, kSetting, &a, &b)) s.env_settings[a] = b;
    if (RE2::PartialMatch(line, kChannel, &a, &b, &c, &d)) {
      NcclTransport t;
      t.from_rank = std::stoi(a);
      t.to_rank = std::stoi(b);
      t.detail = c;
      t.kind = d;
      auto it = std::find_if(s.transports.begin(), s.transports.end(), [&](const NcclTransport& x) {
        return x.from_rank == t.from_rank && x.to_rank == t.to_rank && x.detail == t.detail;
      });
      if (it == s.transports.end()) {
        t.channels = 1;
        if (s.transports.size() < 1024) s.transports.push_back(t);
      } else {
        ++it->channels;
      }
    }
    if (RE2::PartialMatch(line, kP2pFail, &a)) add_unique(s.p2p_failures, trim(a));
    if (RE2::PartialMatch(line, kWarn, &a)) add_unique(s.warnings, trim(a));
    if (end == text.size()) break;
  }
  return s;
}

}  // namespace accel::multi

// JSON (de)serialisers declared in core/multi/nccl_log.hpp.
namespace accel::multi {
ACCEL_JSON_DEFINE(NcclTransport, from_rank, to_rank, kind, detail, channels)
ACCEL_JSON_DEFINE(NcclLogSummary, library, version, network, socket_interfaces, env_settings, transports,
                  p2p_failures, warnings, hosts)
}  // namespace accel::multi
