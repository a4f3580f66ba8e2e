#!/usr/bin/env bash
# Installs what accel-doctor needs to build (and, with `test`, to run its
# tests) from the distribution's packages. With `test` it also fetches ONNX
# Runtime's libraries from npm (scripts/fetch_onnxruntime.sh) into a cache
# folder outside the repository; nothing else is downloaded.
#   scripts/setup.sh          build dependencies
#   scripts/setup.sh test     build + test dependencies
set -euo pipefail
mode="${1:-build}"

# ccache: a rebuild after `git pull` or a clean build dir recompiles only what changed.
need=(cmake ninja-build g++ ccache libcli11-dev nlohmann-json3-dev libfmt-dev libre2-dev)
if [ "$mode" = "test" ]; then
  # chromium: tests/e2e/html_report.sh renders the HTML report headless.
  need+=(libgtest-dev libgmock-dev python3 chromium)
  # clang + its runtime (ASan, UBSan, libFuzzer): scripts/sanitize_and_fuzz.sh.
  need+=(clang libclang-rt-dev)
  # The Windows stage (scripts/test_windows.sh, `make windows`): the mingw-w64
  # cross-compiler with posix threads (std::thread; the win32 variant has none),
  # GoogleTest's sources to build for it, and Wine to run the tests. Debian 12's
  # wine64 holds the 64-bit loader (/usr/lib/wine/wine64), wine the wine command.
  need+=(g++-mingw-w64-x86-64-posix googletest wine wine64)
  # DXCore's interface header (dxcore_interface.h) for the Windows probes
  # (integrated or not, WDDM version; dxcore.dll itself is loaded at run time).
  need+=(directx-headers-dev)
  # The Vulkan ceiling (docs/vulkan.md): headers and glslc to build it,
  # spirv-tools (spirv-as, spirv-val) for its int8 dot product shader (SPIR-V
  # assembly), the loader and Mesa's lavapipe (a CPU Vulkan device) to run its tests.
  need+=(libvulkan-dev glslc spirv-tools libvulkan1 mesa-vulkan-drivers)
  # The Python package (tests/python/package.sh, docs/python.md): Debian's
  # torch for Python (the same 1.13 as libtorch-dev), a venv with pip and
  # setuptools, and the headers the extension module compiles against.
  need+=(python3-torch python3-venv python3-pip python3-setuptools python3-dev pybind11-dev)
  # The ONNX Runtime engine (docs/onnxruntime.md): the onnx checker validates
  # the models accel-doctor's own ONNX writer produces (tests/unit/ort_onnx_writer_test.cpp).
  need+=(python3-onnx)
fi

fetch_test_runtimes() {
  if [ "$mode" = "test" ]; then
    echo "setup: ONNX Runtime for the tests in $("$(dirname "$0")/fetch_onnxruntime.sh")"
  fi
}

# Torch: a Python torch that imports (a GPU user's CUDA/ROCm build) is used as
# is; otherwise Debian's libtorch-dev (torch 1.13, CPU). Torch_DIR overrides.
if [ -n "${Torch_DIR:-}" ]; then
  echo "setup: using Torch_DIR=$Torch_DIR"
elif python3 -c 'import torch' >/dev/null 2>&1; then
  echo "setup: using the Python torch $(python3 -c 'import torch; print(torch.__version__)')"
else
  # libgloo-dev: the gloo headers and library Debian's libtorch was built
  # with, for the multi suite's CPU process groups (docs/multi.md).
  need+=(libtorch-dev libgloo-dev)
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: this is not a Debian/Ubuntu system, so nothing was installed." >&2
  echo "  Install these (or your distribution's equivalents), then run 'make' again:" >&2
  echo "    ${need[*]}" >&2
  echo "  For torch, set Torch_DIR=<prefix>/share/cmake/Torch or install a Python torch." >&2
  exit 2
fi

missing=()
for p in "${need[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in *"install ok installed"*) ;; *) missing+=("$p") ;; esac
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
  fetch_test_runtimes
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "setup: need root to install ${missing[*]} (no sudo found)" >&2
    exit 2
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || echo "setup: apt-get update failed; trying the cached package lists" >&2
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fetch_test_runtimes
