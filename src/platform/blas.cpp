// Which CPU BLAS this process really uses. A stock install can silently use
// the netlib reference BLAS (Debian's libtorch-dev links libblas.so.3, which
// the alternatives system points at /usr/lib/<triplet>/blas/libblas.so.3 =
// reference netlib unless libopenblas0 / libblis / MKL is installed), a
// 10-100x slower CPU matmul than an optimised one.
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "platform/detail.hpp"

namespace accel::platform {

namespace detail {

namespace {

std::string base_name(const std::string& path) { return path.substr(path.find_last_of("/\\") + 1); }

/// What a library's real path says about the BLAS inside, "" when nothing.
struct PathVerdict {
  std::string name;
  std::string basis;
  bool generic = false;  ///< a plain libblas.so: reference unless symbols say otherwise
};

PathVerdict classify_path(const std::string& real) {
  const std::string base = base_name(real);
  // Debian/Ubuntu alternatives: /usr/lib/<triplet>/<dir>/libblas.so.3, where
  // <dir> names the implementation (update-alternatives --display libblas.so.3-<triplet>).
  if (contains(real, "/blas/libblas.so") || contains(real, "/blas/libcblas.so")) {
    return {
        "reference",
        "the Debian/Ubuntu alternatives directory blas/ holds the netlib reference BLAS (package libblas3)"};
  }
  if (contains(real, "/openblas") || starts_with(base, "libopenblas")) {
    return {"openblas", "the library path names OpenBLAS"};
  }
  if (contains(real, "/atlas/") || starts_with(base, "libatlas") || starts_with(base, "libsatlas") ||
      starts_with(base, "libtatlas")) {
    return {"atlas", "the library path names ATLAS"};
  }
  if (contains(real, "/blis") || starts_with(base, "libblis") || starts_with(base, "libamdblis")) {
    return {"blis", "the library path names BLIS"};
  }
  if (starts_with(base, "libmkl_")) return {"mkl", "the library is part of Intel MKL"};
  if (contains(real, "Accelerate.framework") || contains(real, "vecLib.framework")) {
    return {"accelerate", "the library is part of Apple's Accelerate framework"};
  }
  if (starts_with(base, "libarmpl")) return {"armpl", "the library is Arm Performance Libraries"};
  if (starts_with(base, "libnvpl_blas")) return {"nvpl", "the library is NVIDIA Performance Libraries BLAS"};
  if (starts_with(base, "libflexiblas")) return {"flexiblas", "the library is the FlexiBLAS dispatcher"};
  if (starts_with(base, "libblas.") || starts_with(base, "libcblas.")) {
    PathVerdict v{"reference", "", true};
    return v;
  }
  return {};
}

/// "3.11.0" out of "libblas.so.3.11.0".
std::string soname_version(const std::string& real) {
  const std::string base = base_name(real);
  const auto so = base.find(".so.");
  return so == std::string::npos ? std::string() : base.substr(so + 4);
}

/// The token after "Version" in MKL's version string
/// ("Intel(R) oneAPI Math Kernel Library Version 2024.0-Product Build 20231011 ...").
std::string mkl_version_number(const std::string& s) {
  const auto words = split_ws(s);
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "Version") {
      const std::string& v = words[i + 1];
      return v.substr(0, v.find('-'));
    }
  }
  return {};
}

std::string first_lib_matching(const std::vector<LoadedLibrary>& libs, const char* part) {
  for (const auto& l : libs) {
    const std::string& p = l.real_path.empty() ? l.path : l.real_path;
    if (contains(base_name(p), part) || contains(base_name(l.path), part)) return p;
  }
  return {};
}

std::string flexiblas_name(const std::string& backend) {
  std::string up;
  for (char c : backend) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (contains(up, "NETLIB")) return "reference";
  if (contains(up, "OPENBLAS")) return "openblas";
  if (contains(up, "MKL")) return "mkl";
  if (contains(up, "BLIS")) return "blis";
  if (contains(up, "ATLAS")) return "atlas";
  return "flexiblas";
}

}  // namespace

namespace {

/// The BLAS an identification function answered for (FlexiBLAS, MKL,
/// OpenBLAS, BLIS, ATLAS, in that order); false when none did.
bool identify_by_symbols(const std::vector<LoadedLibrary>& libs, const BlasSymbols& syms, BlasInfo& b,
                         std::vector<std::string>& evidence) {
  auto provider_or = [&](const char* part) {
    std::string lib = first_lib_matching(libs, part);
    return lib.empty() ? syms.sgemm_provider : lib;
  };
  if (syms.flexiblas_backend) {
    // FlexiBLAS (Fedora, RHEL, openSUSE default) dispatches to a backend chosen at run time.
    b.name = flexiblas_name(*syms.flexiblas_backend);
    b.library = provider_or("flexiblas");
    evidence.push_back(fmt::format("flexiblas_current_backend() answers \"{}\"", *syms.flexiblas_backend));
  } else if (syms.mkl_version) {
    b.name = "mkl";
    b.version = mkl_version_number(*syms.mkl_version);
    b.library = provider_or("mkl");
    evidence.push_back(fmt::format("mkl_get_version_string() answers \"{}\"", trim(*syms.mkl_version)));
  } else if (syms.openblas_config || syms.openblas_threads) {
    b.name = "openblas";
    b.library = provider_or("openblas");
    if (syms.openblas_config) {
      // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64"
      const auto words = split_ws(*syms.openblas_config);
      if (words.size() > 1 && words[0] == "OpenBLAS") b.version = words[1];
      evidence.push_back(fmt::format("openblas_get_config() answers \"{}\"", trim(*syms.openblas_config)));
    }
    if (syms.openblas_threads) {
      evidence.push_back(fmt::format("openblas_get_num_threads() = {}", *syms.openblas_threads));
    }
  } else if (syms.blis_version) {
    b.name = "blis";
    b.version = *syms.blis_version;
    b.library = provider_or("blis");
    evidence.push_back(fmt::format("bli_info_get_version_str() answers \"{}\"", *syms.blis_version));
  } else if (syms.atlas) {
    b.name = "atlas";
    b.library = provider_or("atlas");
    evidence.push_back("ATL_buildinfo is exported (ATLAS)");
  } else {
    return false;
  }
  return true;
}

/// No identification function: judge by the library files mapped in the
/// process, else by the library that exports sgemm_.
void identify_by_files(const std::vector<LoadedLibrary>& libs, const BlasSymbols& syms, BlasInfo& b,
                       std::vector<std::string>& evidence) {
  const LoadedLibrary* best = nullptr;
  PathVerdict best_v;
  for (const auto& l : libs) {
    const PathVerdict v = classify_path(l.real_path.empty() ? l.path : l.real_path);
    if (v.name.empty()) continue;
    if (!best || (best_v.generic && !v.generic)) {
      best = &l;
      best_v = v;
    }
  }
  if (best) {
    const std::string real = best->real_path.empty() ? best->path : best->real_path;
    b.name = best_v.name;
    b.library = real;
    if (best_v.name == "reference") b.version = soname_version(real);
    const std::string via = best->path != real ? fmt::format("{} resolves to {}", best->path, real) : real;
    if (best_v.generic) {
      evidence.push_back(fmt::format(
          "likely: {} is a plain libblas and no OpenBLAS, MKL, BLIS, FlexiBLAS or ATLAS identification "
          "function is exported, which is the netlib reference BLAS",
          via));
    } else {
      evidence.push_back(fmt::format("{}: {}", via, best_v.basis));
      evidence.push_back(
          "no OpenBLAS, MKL, BLIS, FlexiBLAS or ATLAS identification function is exported in this process");
    }
  } else if (!syms.sgemm_provider.empty()) {
    b.name = "unknown";
    b.library = syms.sgemm_provider;
    evidence.push_back(fmt::format(
        "sgemm_ is exported by {} and no BLAS identification function answers: the BLAS is probably "
        "linked statically into it (torch's BLAS_INFO build setting says which)",
        syms.sgemm_provider));
  } else {
    b.not_collected["name"] =
        "no BLAS library is mapped and no BLAS symbol (sgemm_, openblas_get_config, "
        "mkl_get_version_string, "
        "bli_info_get_version_str) is exported: torch may link its BLAS statically with hidden symbols "
        "(see torch's BLAS_INFO)";
  }
}

}  // namespace

BlasInfo classify_blas(const std::vector<LoadedLibrary>& libs, const BlasSymbols& syms) {
  BlasInfo b;
  std::vector<std::string> evidence;
  if (!identify_by_symbols(libs, syms, b, evidence)) identify_by_files(libs, syms, b, evidence);
  if (!syms.sgemm_provider.empty() && syms.sgemm_provider != b.library) {
    evidence.push_back(fmt::format("sgemm_ resolves to {}", syms.sgemm_provider));
  }
  // The LAPACK beside it: a reference LAPACK on top of a fast BLAS is fine; name it anyway.
  for (const auto& l : libs) {
    const std::string real = l.real_path.empty() ? l.path : l.real_path;
    if (starts_with(base_name(real), "liblapack.")) {
      const bool ref = contains(real, "/lapack/liblapack.so");
      evidence.push_back(fmt::format("LAPACK: {}{}", real, ref ? " (netlib reference)" : ""));
      break;
    }
  }
  for (std::size_t i = 0; i < evidence.size(); ++i) b.evidence += (i ? "; " : "") + evidence[i];
  if (b.library.empty() && !b.name.empty())
    b.not_collected["library"] = "the symbol's library could not be found";
  if (b.version.empty() && !b.name.empty() && b.name != "unknown") {
    b.not_collected["version"] = "the library does not state its version";
  }
  return b;
}

}  // namespace detail

BlasInfo probe_blas() {
  using namespace detail;
  try {
    std::string err;
    const auto libs = loaded_libraries(&err);
    BlasSymbols syms;
    using CharFn = const char* (*)();
    using IntFn = int (*)();
    for (const char* name : {"openblas_get_config", "openblas_get_config64_"}) {
      if (auto f = reinterpret_cast<CharFn>(global_symbol(name))) {
        if (const char* s = f()) syms.openblas_config = s;
        break;
      }
    }
    for (const char* name : {"openblas_get_num_threads", "openblas_get_num_threads64_"}) {
      if (auto f = reinterpret_cast<IntFn>(global_symbol(name))) {
        syms.openblas_threads = f();
        break;
      }
    }
    // void mkl_get_version_string(char* buf, int len) (mkl_service.h)
    if (auto f = reinterpret_cast<void (*)(char*, int)>(global_symbol("mkl_get_version_string"))) {
      char buf[256] = {0};
      f(buf, static_cast<int>(sizeof buf - 1));
      syms.mkl_version = std::string(buf);
    }
    // char* bli_info_get_version_str(void) (blis.h)
    if (auto f = reinterpret_cast<CharFn>(global_symbol("bli_info_get_version_str"))) {
      if (const char* s = f()) syms.blis_version = s;
    }
    // int flexiblas_current_backend(char* name, size_t len) (flexiblas_api.h)
    if (auto f = reinterpret_cast<int (*)(char*, size_t)>(global_symbol("flexiblas_current_backend"))) {
      char buf[256] = {0};
      f(buf, sizeof buf - 1);
      syms.flexiblas_backend = std::string(buf);
    }
    syms.atlas = global_symbol("ATL_buildinfo") != nullptr;
    syms.sgemm_provider = object_of_address(global_symbol("sgemm_"));
    if (!syms.sgemm_provider.empty()) {
      const std::string real = real_path(syms.sgemm_provider);
      if (!real.empty()) syms.sgemm_provider = real;
    }
    BlasInfo b = classify_blas(libs, syms);
    if (!err.empty()) b.not_collected["loaded_libraries"] = err;
    return b;
  } catch (const std::exception& e) {
    BlasInfo b;
    b.not_collected["name"] = std::string("probe failed: ") + e.what();
    return b;
  }
}

}  // namespace accel::platform
