#include "core/redact.hpp"
#include "core/strings.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

namespace accel {

namespace {

re2::StringPiece sp(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Replaces every match of `re` in `text` by what `fn` returns for it
/// (nullopt keeps the match). `fn` gets the groups and the match's offsets.
template <typename F>
std::string replace_matches(std::string_view text, const RE2& re, F&& fn) {
  const int n = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> g(static_cast<std::size_t>(n));
  std::string out;
  std::size_t pos = 0, copied = 0;
  while (pos <= text.size() && re.Match(sp(text), pos, text.size(), RE2::UNANCHORED, g.data(), n)) {
    const std::size_t start = static_cast<std::size_t>(g[0].data() - text.data());
    const std::size_t end = start + g[0].size();
    if (const std::optional<std::string> rep = fn(g, start, end)) {
      out.append(text.substr(copied, start - copied));
      out += *rep;
      copied = end;
    }
    pos = end > start ? end : end + 1;
  }
  out.append(text.substr(std::min(copied, text.size())));
  return out;
}

// Home directories: the user name is the part after the users' folder.
const RE2& home_unix() {
  static const RE2 re("(/(?:var/)?home/|/Users/)([^/\\s\"'\\\\:<>|*?]+)");
  return re;
}
const RE2& home_windows() {
  static const RE2 re(
      "(?i)([a-z]:(?:\\\\|/)+(?:users|documents and settings)(?:\\\\|/)+)([^\\\\/\\s\"':<>|*?]+)");
  return re;
}

bool not_a_user(const std::string& name) {
  static const std::set<std::string> kNot{"<user>",    "user",         "shared", "public",       "default",
                                          "all users", "default user", "root",   "administrator"};
  return name.size() < 2 || kNot.count(lower(name)) > 0;
}

/// Replaces whole-word, case-insensitive occurrences of `word` by `token`.
std::string replace_word(const std::string& text, const std::string& word, const std::string& token) {
  if (word.empty()) return text;
  const std::string lt = lower(text), lw = lower(word);
  std::string out;
  std::size_t pos = 0, copied = 0;
  while ((pos = lt.find(lw, pos)) != std::string::npos) {
    const std::size_t end = pos + lw.size();
    const bool left = pos == 0 || !word_char(text[pos - 1]);
    const bool right = end >= text.size() || !word_char(text[end]);
    if (left && right) {
      out.append(text, copied, pos - copied);
      out += token;
      copied = end;
    }
    pos = end;
  }
  out.append(text, copied, std::string::npos);
  return out;
}

std::vector<std::string> sorted_longest_first(std::vector<std::string> v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

/// Words before an IPv4-looking number that say it is a version, not an address.
bool looks_like_version(std::string_view text, std::size_t start) {
  if (start > 0 && (text[start - 1] == 'v' || text[start - 1] == 'V')) return true;
  // Only a version word right before the number ("cuDNN 8.9.7.29", "driver
  // version: 31.0.15.3", "ROCm 6.2.4.1"), not anywhere in the line: a GPU
  // log line names CUDA or NCCL next to real addresses too
  // ("NCCL_COMM_ID=192.168.1.77:29500").
  const std::size_t from = start > 24 ? start - 24 : 0;
  std::string before = lower(text.substr(from, start - from));
  while (!before.empty() && std::string_view(" \t:=\"'(").find(before.back()) != std::string_view::npos) {
    before.pop_back();
  }
  for (const char* w : {"version", "driver", "cudnn", "cuda", "rocm", "torch", "vbios", "firmware", "inforom",
                        "miopen", "nccl", "release", "build", "oem object", "ecc object", "image", "ver"}) {
    const std::string_view word(w);
    if (before.size() >= word.size() && before.compare(before.size() - word.size(), word.size(), word) == 0) {
      return true;
    }
  }
  return false;
}

std::string redact_patterns(std::string_view input) {
  std::string s(input);
  // Home paths keep their shape.
  s = replace_matches(s, home_unix(),
                      [](const auto& g, std::size_t, std::size_t) -> std::optional<std::string> {
                        return g[1].as_string() + "<user>";
                      });
  s = replace_matches(s, home_windows(),
                      [](const auto& g, std::size_t, std::size_t) -> std::optional<std::string> {
                        return g[1].as_string() + "<user>";
                      });
  // "Serial Number : 1653724055615", "GPU UUID : GPU-...", "Unique ID: 0x..." (nvidia-smi -q, rocm-smi).
  static const RE2 kv(
      "(?i)((?:serial(?:[ _]?number)?|uuid|unique[ _]id|gpu pdi|guid)[\"']?(?:\\s*[:=]\\s*[\"']?|\\s+))"
      "([^\\s,;\"'}\\]]+)");
  s = replace_matches(s, kv, [](const auto& g, std::size_t, std::size_t) -> std::optional<std::string> {
    const std::string v = g[2].as_string();
    // Identifiers have digits; "serial numbers are" is prose.
    if (v.front() == '<' || std::none_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return std::nullopt;
    }
    return g[1].as_string() + "<serial>";
  });
  // UUIDs, with the GPU-/MIG- prefixes NVIDIA uses.
  static const RE2 uuid(
      "(?i)\\b((?:GPU|MIG)-)?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\b");
  s = replace_matches(s, uuid, [](const auto& g, std::size_t, std::size_t) -> std::optional<std::string> {
    return g[1].as_string() + "<uuid>";
  });
  // MAC addresses.
  static const RE2 mac("(?i)\\b(?:[0-9a-f]{2}[:-]){5}[0-9a-f]{2}\\b");
  s = replace_matches(s, mac, [](const auto&, std::size_t, std::size_t) -> std::optional<std::string> {
    return std::string("<mac>");
  });
  // IPv4 (not inside longer dotted numbers, not version numbers).
  static const RE2 ipv4(
      "\\b(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?["
      "0-9])\\b");
  {
    const std::string cur = s;
    s = replace_matches(
        cur, ipv4, [&cur](const auto&, std::size_t a, std::size_t b) -> std::optional<std::string> {
          if (a > 0 && (cur[a - 1] == '.' || std::isdigit(static_cast<unsigned char>(cur[a - 1]))))
            return std::nullopt;
          if (b < cur.size() && cur[b] == '.' && b + 1 < cur.size() &&
              std::isdigit(static_cast<unsigned char>(cur[b + 1]))) {
            return std::nullopt;
          }
          if (looks_like_version(cur, a)) return std::nullopt;
          return std::string("<ip>");
        });
  }
  // IPv6: 8 groups, or compressed (::) with at least 3 groups; never C++ scopes like c10::Error.
  static const RE2 ipv6("(?i)[0-9a-f:]*::?[0-9a-f:]+");
  {
    const std::string cur = s;
    s = replace_matches(
        cur, ipv6, [&cur](const auto& g, std::size_t a, std::size_t b) -> std::optional<std::string> {
          if (a > 0 && (word_char(cur[a - 1]) || cur[a - 1] == '.')) return std::nullopt;
          if (b < cur.size() && (word_char(cur[b]) || cur[b] == '.')) return std::nullopt;
          const std::string m = g[0].as_string();
          const bool compressed = m.find("::") != std::string::npos;
          int groups = 0;
          std::size_t i = 0;
          while (i <= m.size()) {
            const auto colon = m.find(':', i);
            const std::string part = m.substr(i, colon == std::string::npos ? std::string::npos : colon - i);
            if (part.size() > 4) return std::nullopt;
            if (!part.empty()) ++groups;
            if (colon == std::string::npos) break;
            i = colon + 1;
          }
          if (m.find(":::") != std::string::npos) return std::nullopt;
          if ((compressed && groups >= 3) || (!compressed && groups == 8)) return std::string("<ip>");
          return std::nullopt;
        });
  }
  return s;
}

bool identifying_key(const std::string& key, bool* host) {
  const std::string k = lower(key);
  // "host", "src_host", "dst_host": the ranks of a multi run (their identities and links).
  *host = k == "hostname" || k == "host_name" || k == "nodename" || k == "fqdn" || k == "host" ||
          k == "src_host" || k == "dst_host";
  if (*host) return true;
  for (const char* w : {"serial", "uuid", "guid", "pdi"}) {
    if (k.find(w) != std::string::npos) return true;
  }
  return k == "user" || k == "username" || k == "user_name" || k == "login" || k == "mac" ||
         k == "mac_address" || k == "ip" || k == "ip_address";
}

}  // namespace

void RedactSecrets::add_users_from_text(std::string_view text) {
  for (const RE2* re : {&home_unix(), &home_windows()}) {
    re2::StringPiece in = sp(text);
    std::string prefix, user;
    while (RE2::FindAndConsume(&in, *re, &prefix, &user)) {
      if (!not_a_user(user) && std::find(users.begin(), users.end(), user) == users.end())
        users.push_back(user);
    }
  }
}

void RedactSecrets::add_from_report(const Report& report) {
  const std::string& h = report.context.environment.host.hostname;
  if (!h.empty()) hostnames.push_back(h);
  // The other ranks of a multi run: their hosts are in the rows' identities.
  for (const auto& r : report.results) {
    if (r.kind != ResultKind::multi) continue;
    std::vector<json> ids;
    if (r.evidence.contains("identity")) ids.push_back(r.evidence["identity"]);
    for (const auto& id : r.evidence.value("identities", json::array())) ids.push_back(id);
    for (const auto& id : ids) {
      const std::string host = id.is_object() ? id.value("host", std::string()) : std::string();
      if (!host.empty() && std::find(hostnames.begin(), hostnames.end(), host) == hostnames.end())
        hostnames.push_back(host);
    }
  }
  add_users_from_text(json(report).dump());
}

std::string redact_text(std::string_view text, const RedactSecrets& secrets) {
  std::string s = redact_patterns(text);
  std::vector<std::string> hosts;
  for (const auto& h : secrets.hostnames) {
    // Host-name fields are always replaced (redact_report); in free text a
    // name of under 4 letters ("gpu", "vm") would take ordinary words with it
    // ("The <host> is slowing its clocks") and identifies nobody.
    if (h.size() < 4 || lower(h) == "localhost") continue;
    hosts.push_back(h);
    const auto dot = h.find('.');
    if (dot != std::string::npos && dot >= 4) hosts.push_back(h.substr(0, dot));
  }
  for (const auto& h : sorted_longest_first(hosts)) s = replace_word(s, h, "<host>");
  std::vector<std::string> users;
  for (const auto& u : secrets.users) {
    if (!not_a_user(u)) users.push_back(u);
  }
  for (const auto& u : sorted_longest_first(users)) s = replace_word(s, u, "<user>");
  return s;
}

json redact_json(const json& j, const RedactSecrets& secrets) {
  if (j.is_string()) return redact_text(j.get<std::string>(), secrets);
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(redact_json(v, secrets));
    return out;
  }
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      bool host = false;
      const std::string key = redact_text(it.key(), secrets);
      const json& v = it.value();
      if (identifying_key(it.key(), &host) && (v.is_string() || v.is_number())) {
        const bool empty = v.is_string() && (v.get<std::string>().empty() || v.get<std::string>() == "N/A");
        out[key] = empty ? v : json(host ? "<host>" : "<redacted>");
      } else {
        out[key] = redact_json(v, secrets);
      }
    }
    return out;
  }
  return j;
}

Report redact_report(const Report& report, const RedactSecrets& extra) {
  RedactSecrets s = extra;
  s.add_from_report(report);
  const json j = redact_json(json(report), s);
  return j.get<Report>();
}

}  // namespace accel
