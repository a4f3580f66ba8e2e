// Performance rules: the CPU BLAS library (reference netlib). Thresholds and shared helpers:
// rules_perf_detail.hpp.
#include "core/rules/rules_perf_detail.hpp"

namespace accel::rules::perf {

// ---------------------------------------------------------------- CPU BLAS

void rule_reference_blas(const Ctx& c, std::vector<Finding>& out) {
  if (lower(c.env.blas.name) != "reference") return;
  std::string evidence =
      fmt::format("the CPU BLAS loaded in this process is the netlib reference implementation{}{}",
                  c.env.blas.version.empty() ? "" : " " + c.env.blas.version,
                  c.env.blas.library.empty() ? "" : " (" + c.env.blas.library + ")");
  const Result* best = nullptr;
  for (const auto& row : bench_rows(c, "gemm")) {
    if (row.r->device != "cpu" || row.k.dtype != "fp32") continue;
    if (!best || row.r->work.flops > best->work.flops) best = row.r;
  }
  if (best) {
    evidence +=
        fmt::format("; fp32 GEMM {} on the CPU runs at {}", best->shape.empty() ? best->key : best->shape,
                    rate(metric(*best, "tflops") * 1000, "GFLOP/s"));
    if (best->roofline && best->roofline->percent_of_bound > 0) {
      evidence += fmt::format(" ({} of the CPU's estimated peak)", pct(best->roofline->percent_of_bound));
    }
  }
  if (!c.env.torch.build.empty() && c.env.torch.build.count("BLAS_INFO")) {
    evidence += fmt::format("; torch was built with BLAS_INFO={}", c.env.torch.build.at("BLAS_INFO"));
  }
  std::string fix;
  const std::string triplet =
      (c.env.host.arch == "aarch64" ? "aarch64" : "x86_64") + std::string("-linux-gnu");
  if (c.platform.debian_like) {
    fix = fmt::format(
        "sudo apt install libopenblas0-pthread, then make it the system BLAS and LAPACK: sudo "
        "update-alternatives "
        "--config libblas.so.3-{0} and sudo update-alternatives --config liblapack.so.3-{0} (choose the "
        "openblas-pthread entries); check with `accel-doctor env`. Or use a torch wheel from PyPI (pip "
        "install "
        "torch), which bundles MKL on x86-64 and OpenBLAS on aarch64",
        triplet);
  } else if (c.platform.fedora_like) {
    fix =
        "sudo dnf install flexiblas-openblas-openmp and select it (flexiblas default OPENBLAS-OPENMP), or "
        "use a "
        "torch wheel from PyPI (pip install torch), which bundles its own BLAS";
  } else if (c.platform.arch_like) {
    fix =
        "sudo pacman -S openblas blas-openblas, or use a torch wheel from PyPI (pip install torch), which "
        "bundles its own BLAS";
  } else {
    fix =
        "Use a torch build linked against an optimised BLAS: the PyPI/conda wheels bundle MKL (x86-64) or "
        "OpenBLAS (aarch64); for a distribution torch, install OpenBLAS and make it the system libblas";
  }
  const bool cpu_target = c.target_is_cpu();
  out.push_back(make_finding(
      "cpu_blas_reference", cpu_target ? Severity::critical : Severity::warning, cpu_target ? 90 : 35,
      "The CPU BLAS is the slow netlib reference implementation", evidence,
      std::string(
          "The reference BLAS is a straightforward loop nest without SIMD kernels, blocking or threads: an "
          "optimised BLAS (OpenBLAS, MKL, BLIS) is typically 10-100x faster on matrix products, which "
          "dominate linear layers and attention on the CPU") +
          (cpu_target ? "."
                      : " (here only CPU-side work: preprocessing, CPU fallbacks, the CPU comparisons)."),
      fix, "https://wiki.debian.org/DebianScience/LinearAlgebraLibraries"));
}

}  // namespace accel::rules::perf
