// Health rules: the host (CPU limits, threads, governor). Thresholds and shared helpers:
// rules_health_detail.hpp.
#include "core/rules/rules_health_detail.hpp"

namespace accel::rules::health {

// ---------------------------------------------------------------- host

std::optional<int> env_int(const Ctx& c, const char* name) {
  const EnvVar* v = c.env_var(name);
  if (!v) return std::nullopt;
  try {
    std::size_t pos = 0;
    const int n = std::stoi(v->value, &pos);
    if (pos == 0) return std::nullopt;
    return n;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// CPUs this process may use: its affinity mask and cgroup CPU quota (rounded
/// up), whichever is smaller; nullopt when neither was read.
std::optional<int> usable_cpus(const HostInfo& h) {
  std::optional<int> n = h.affinity_cpus;
  if (h.cpu_quota_cpus && *h.cpu_quota_cpus > 0) {
    const int q = static_cast<int>(std::ceil(*h.cpu_quota_cpus - 1e-9));
    n = std::min(n.value_or(q), q);
  }
  return n;
}

/// A process limited to part of the machine's CPUs (affinity, cgroup quota).
void rule_host_cpu_limited(const Ctx& c, std::vector<Finding>& out) {
  const auto& h = c.env.host;
  const auto usable = usable_cpus(h);
  if (!usable || !h.logical_cores || *usable >= *h.logical_cores) return;
  const int logical = *h.logical_cores;
  std::vector<std::string> by;
  if (h.affinity_cpus && *h.affinity_cpus < logical)
    by.push_back(fmt::format("CPU affinity {} ({} CPUs)", h.affinity_list, *h.affinity_cpus));
  if (h.cpu_quota_cpus && *h.cpu_quota_cpus < logical)
    by.push_back(fmt::format("cgroup CPU quota {:.2g} CPUs", *h.cpu_quota_cpus));
  const bool severe = *usable * 2 <= logical;
  std::string evidence =
      fmt::format("{} of {} logical CPUs usable: {}", *usable, logical, fmt::join(by, "; "));
  if (c.env.torch.intra_op_threads)
    evidence += fmt::format("; torch intra-op threads {}", *c.env.torch.intra_op_threads);
  const bool over = c.env.torch.intra_op_threads && *c.env.torch.intra_op_threads > *usable;
  if (over) evidence += " (more threads than usable CPUs: they preempt each other)";
  out.push_back(make_finding(
      "host_cpu_limited", severe || over ? Severity::warning : Severity::info,
      severe ? (c.target_is_cpu() ? 62 : 42) : 14,
      fmt::format("This process may use {} of the machine's {} CPUs", *usable, logical), evidence,
      c.target_is_cpu()
          ? "Every CPU figure of this run (GEMM rate, bandwidth, operator times) describes that part of the "
            "machine, and models run at that speed."
          : "The host side of GPU work runs on these CPUs: kernel launches, data loading and augmentation, "
            "operators that fall back to the CPU, and the CPU baseline of every speed-up this report shows. "
            "Too "
            "few CPUs leave the GPU waiting for input.",
      "The launcher or container set it: taskset / numactl, docker run --cpus / --cpuset-cpus, a Kubernetes "
      "CPU limit, Slurm --cpus-per-task; give the job more CPUs, or if the limit is meant, match torch's "
      "threads and DataLoader num_workers to it (torch.set_num_threads)",
      "https://docs.kernel.org/admin-guide/cgroup-v2.html#cpu"));
}

void rule_threads(const Ctx& c, std::vector<Finding>& out) {
  const auto& h = c.env.host;
  const auto threads = c.env.torch.intra_op_threads;
  if (!threads || !h.logical_cores || *threads <= 0) return;
  const int t = *threads, logical = *h.logical_cores;
  const int physical = h.physical_cores.value_or(0);
  // A BLAS thread pool of its own nests inside each intra-op thread.
  std::optional<int> blas;
  std::string blas_var;
  for (const char* n : {"OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const auto v = env_int(c, n);
    if (!v) continue;
    if (std::string(n) == "OMP_NUM_THREADS" && *v == t) continue;  // torch took its count from it
    blas = v;
    blas_var = n;
    break;
  }
  std::string fix = fmt::format(
      "Use at most one thread per physical core in total: torch.set_num_threads({}) or OMP_NUM_THREADS={}; "
      "with several worker processes divide the cores between them (e.g. torchrun sets OMP_NUM_THREADS=1 per "
      "process), and leave the BLAS pool at 1 inside torch's threads (OPENBLAS_NUM_THREADS=1 / "
      "MKL_NUM_THREADS=1)",
      physical > 0 ? physical : logical, physical > 0 ? physical : logical);
  const std::string why =
      "More runnable threads than cores make them preempt each other and thrash the caches; spinning OpenMP "
      "threads then waste whole time slices, so CPU work gets slower, not faster.";
  if (t > logical) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::warning, c.target_is_cpu() ? 60 : 30,
        fmt::format("torch uses {} threads on {} logical cores", t, logical),
        fmt::format(
            "intra-op threads {}, logical cores {}, physical {}{}", t, logical,
            physical > 0 ? std::to_string(physical) : "?",
            c.env_var("OMP_NUM_THREADS") ? ", OMP_NUM_THREADS=" + c.env_var("OMP_NUM_THREADS")->value : ""),
        why, fix, "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (blas && *blas > 1 && t > 1 && t * *blas > logical) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::warning, c.target_is_cpu() ? 55 : 25,
        fmt::format("{} intra-op threads x {}={} = {} threads on {} logical cores", t, blas_var, *blas,
                    t * *blas, logical),
        fmt::format("torch intra-op threads {}, {}={}, logical cores {}", t, blas_var, *blas, logical), why,
        fix, "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (physical > 0 && t > physical && logical > physical && c.target_is_cpu()) {
    out.push_back(make_finding(
        "thread_oversubscription", Severity::info, 12,
        fmt::format("torch uses {} threads on {} physical cores (SMT siblings)", t, physical),
        fmt::format("intra-op threads {}, physical cores {}, logical {}", t, physical, logical),
        "Two threads on one core share its vector units: compute-bound ops (GEMM, convolution) rarely gain "
        "and "
        "often lose from SMT threads.",
        fmt::format("Try torch.set_num_threads({}) (or OMP_NUM_THREADS={}) and compare", physical, physical),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  // The other way round: cores torch leaves idle. On a CPU run every figure
  // is the CPU's; on a GPU run the host side (CPU fallbacks, the CPU twin of
  // every speed-up, preprocessing in the process) runs on these threads.
  const int cores = std::min(physical > 0 ? physical : logical, usable_cpus(h).value_or(logical));
  if (!c.target_is_cpu() && t * 2 <= cores && cores >= 4) {
    const EnvVar* omp = c.env_var("OMP_NUM_THREADS");
    out.push_back(make_finding(
        "thread_undersubscription", Severity::warning, 35,
        fmt::format("torch uses {} of {} cores for its CPU work", t, cores),
        fmt::format("intra-op threads {}, physical cores {}, logical {}{}", t,
                    physical > 0 ? std::to_string(physical) : "?", logical,
                    omp ? ", OMP_NUM_THREADS=" + omp->value : ""),
        "The GPU does the model's work, but the host side runs on these threads: operators that fall back to "
        "the CPU, tensors prepared in the process, and the CPU baseline of every speed-up this report shows "
        "(measured on a fraction of the machine, so the speed-ups are inflated).",
        omp ? fmt::format(
                  "OMP_NUM_THREADS={} limits it (launchers such as torchrun set 1 per process): raise it "
                  "to {} / number of processes, or unset it",
                  omp->value, cores)
            : fmt::format("torch.set_num_threads({}) at start-up, or OMP_NUM_THREADS={}", cores, cores),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
    return;
  }
  if (c.target_is_cpu() && t < cores) {
    const EnvVar* omp = c.env_var("OMP_NUM_THREADS");
    out.push_back(make_finding(
        "thread_undersubscription", t * 2 <= cores ? Severity::warning : Severity::info,
        t * 2 <= cores ? 45 : 12, fmt::format("torch uses {} of {} cores", t, cores),
        fmt::format("intra-op threads {}, physical cores {}, logical {}{}", t,
                    physical > 0 ? std::to_string(physical) : "?", logical,
                    omp ? ", OMP_NUM_THREADS=" + omp->value : ""),
        "Every CPU op (GEMM, convolution, elementwise) runs on that many threads only: the other cores idle, "
        "and the CPU's speed-up baseline and peak figures describe a part of the machine.",
        omp ? fmt::format("OMP_NUM_THREADS={} limits it: raise it to {} (or unset it), or "
                          "torch.set_num_threads({}) at start-up",
                          omp->value, cores, cores)
            : fmt::format("torch.set_num_threads({}) at start-up (or OMP_NUM_THREADS={}); a container or job "
                          "scheduler may cap the CPUs torch detects (check os.sched_getaffinity(0))",
                          cores, cores),
        "https://pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"));
  }
}

void rule_governor(const Ctx& c, std::vector<Finding>& out) {
  const std::string g = lower(c.env.host.cpu_governor);
  if (g.empty()) return;
  const bool powersave = g == "powersave" || g.find("power saver") != std::string::npos ||
                         g.find("battery saver") != std::string::npos ||
                         g.find("energy saver") != std::string::npos ||
                         g.find("low power") != std::string::npos;
  if (!powersave) return;
  std::string fix;
  if (c.platform.os == "windows") {
    fix =
        "Settings > System > Power & battery > Power mode: Best performance (or powercfg /setactive "
        "SCHEME_MIN "
        "for the High performance plan); plug the laptop in";
  } else if (c.platform.os == "macos") {
    fix =
        "Turn Low Power Mode off (System Settings > Battery, or sudo pmset -a lowpowermode 0); plug the "
        "laptop in";
  } else {
    fix =
        "sudo cpupower frequency-set -g performance (Debian/Ubuntu: apt install linux-cpupower; Fedora: dnf "
        "install kernel-tools), or powerprofilesctl set performance where power-profiles-daemon runs; on "
        "intel_pstate/amd-pstate with HWP 'powersave' still boosts, so check the measured clocks first";
  }
  const bool cpu_target = c.target_is_cpu();
  out.push_back(make_finding(
      "cpu_power_saving", cpu_target ? Severity::warning : Severity::info, cpu_target ? 40 : 12,
      fmt::format("The CPU runs the '{}' power policy", c.env.host.cpu_governor),
      fmt::format("CPU frequency governor / power plan: {}{}", c.env.host.cpu_governor,
                  c.env.host.cpu_max_mhz ? fmt::format(" (max {:.0f} MHz)", *c.env.host.cpu_max_mhz) : ""),
      cpu_target
          ? "A power-saving policy keeps clocks low and ramps them slowly: CPU work runs slower and its "
            "timings vary."
          : "The host feeds the GPU (Python, kernel launches, data loading): slow CPU clocks make "
            "launch-bound "
            "work slower and timings noisier.",
      fix, "https://docs.kernel.org/admin-guide/pm/cpufreq.html"));
}

}  // namespace accel::rules::health
