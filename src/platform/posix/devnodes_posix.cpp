// GPU device nodes and whether this user may open them (POSIX: stat, access,
// the group database). A user outside the node's group (video, render) sees
// the GPU in lspci but every runtime fails to open it.
#if !defined(_WIN32)

#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform::detail {

namespace {

bool process_in_group(gid_t gid) {
  if (getegid() == gid) return true;
  const int n = getgroups(0, nullptr);
  if (n <= 0) return false;
  std::vector<gid_t> groups(static_cast<std::size_t>(n));
  const int m = getgroups(n, groups.data());
  return m > 0 && std::find(groups.begin(), groups.begin() + m, gid) != groups.begin() + m;
}

NodeAccess inspect(const std::string& path) {
  NodeAccess a;
  a.path = path;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    a.mode = st.st_mode & 07777;
    if (const struct group* gr = getgrgid(st.st_gid)) {
      a.owner_group = gr->gr_name;
    } else {
      a.owner_group = std::to_string(st.st_gid);
    }
    a.user_in_group = process_in_group(st.st_gid);
  }
  // access(2) checks with the real user id, as opening the node would.
  a.readable_writable = access(path.c_str(), R_OK | W_OK) == 0;
  return a;
}

}  // namespace

void probe_device_nodes(const ProbeRoots& roots, DriverInfo& d) {
  std::vector<std::string> paths;
  for (const char* fixed : {"nvidiactl", "nvidia-uvm", "kfd", "dxg"}) {
    const std::string p = join(roots.dev, fixed);
    if (exists(p)) paths.push_back(p);
  }
  for (const auto& name : list_dir(roots.dev)) {
    if (starts_with(name, "nvidia") && name.size() > 6 &&
        std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      paths.push_back(join(roots.dev, name));
    }
  }
  for (const auto& name : list_dir(join(roots.dev, "dri"))) {
    if (starts_with(name, "renderD")) paths.push_back(join(join(roots.dev, "dri"), name));
  }
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) d.device_nodes.push_back(describe_node_access(inspect(p)));
  if (paths.empty()) {
    d.not_collected["device_nodes"] = fmt::format(
        "no GPU device node in {} (nvidia*, kfd, dri/renderD*, dxg): no GPU driver loaded, or a container "
        "started without the GPU devices (--gpus / --device)",
        roots.dev);
  }
}

}  // namespace accel::platform::detail

#else  // _WIN32

#include "platform/detail.hpp"

namespace accel::platform::detail {
void probe_device_nodes(const ProbeRoots&, DriverInfo& d) {
  d.not_collected["device_nodes"] = "not implemented on this OS";
}
}  // namespace accel::platform::detail

#endif
