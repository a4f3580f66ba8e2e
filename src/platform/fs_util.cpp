// Small-file helpers for the probes (portable: std::filesystem), and the
// string helpers they share.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "platform/detail.hpp"

namespace accel::platform {

ProbeRoots ProbeRoots::under(const std::string& base) {
  ProbeRoots r;
  r.sys = detail::join(base, "sys");
  r.proc = detail::join(base, "proc");
  r.dev = detail::join(base, "dev");
  r.etc = detail::join(base, "etc");
  r.opt_rocm = detail::join(base, "opt/rocm");
  r.usr_share = detail::join(base, "usr/share");
  r.use_vendor_libraries = false;
  return r;
}

namespace detail {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const std::string& path, std::string* error, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::string out;
  char buf[8192];
  while (out.size() < limit) {
    in.read(buf, sizeof buf);
    const std::streamsize n = in.gcount();
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    if (!in) break;
  }
  if (in.bad()) {
    // sysfs attributes can fail on read (EIO, ENODEV) though open succeeded.
    if (error) *error = path + ": read failed";
    return std::nullopt;
  }
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::optional<std::string> read_line(const std::string& path, std::string* error) {
  auto text = read_text(path, error, 64 * 1024);
  if (!text) return std::nullopt;
  const auto nl = text->find('\n');
  std::string line = trim(nl == std::string::npos ? *text : text->substr(0, nl));
  if (line.empty()) {
    if (error) *error = path + ": empty";
    return std::nullopt;
  }
  return line;
}

std::vector<std::string> list_dir(const std::string& path, std::string* error) {
  std::vector<std::string> out;
  std::error_code ec;
  fs::directory_iterator it(path, ec);
  if (ec) {
    if (error) *error = path + ": " + ec.message();
    return out;
  }
  for (const auto& entry : it) out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(path, ec));
}

std::string read_link(const std::string& path) {
  std::error_code ec;
  const auto target = fs::read_symlink(path, ec);
  return ec ? std::string() : target.string();
}

std::string real_path(const std::string& path) {
  std::error_code ec;
  const auto p = fs::canonical(path, ec);
  return ec ? std::string() : p.string();
}

std::string join(const std::string& a, const std::string& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const bool a_slash = a.back() == '/';
  const bool b_slash = b.front() == '/';
  if (a_slash && b_slash) return a + b.substr(1);
  if (a_slash || b_slash) return a + b;
  return a + "/" + b;
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

std::optional<std::uint64_t> parse_uint(std::string_view s, int base) {
  const std::string t = trim(s);
  if (t.empty() || t[0] == '-') return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(t.c_str(), &end, base);
  if (errno != 0 || end == t.c_str() || *end != '\0') return std::nullopt;
  return static_cast<std::uint64_t>(v);
}

}  // namespace detail
}  // namespace accel::platform
