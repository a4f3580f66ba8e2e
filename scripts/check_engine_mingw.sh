#!/usr/bin/env bash
# Compiles every torch-engine translation unit for Windows with mingw-w64,
# syntax only (-fsyntax-only), against this machine's torch headers (Debian's
# libtorch-dev, 1.13): the engine must stay free of POSIX-only calls and
# headers, since on Windows it is built with MSVC against the user's PyTorch
# wheel (CMakePresets.json). The headers are those of the torch build/ was
# configured with (Torch_DIR), else /usr/include. It cannot link here (no Windows libtorch), and
# the CUDA backend (src/engines/torch/backend/cuda) needs CUDA headers, so
# those are left out; MSVC-only diagnostics are not caught either.
#   scripts/check_engine_mingw.sh        (JOBS=N to run N compilers at once)
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=x86_64-w64-mingw32-g++-posix
command -v "$CXX" > /dev/null || { echo "check_engine_mingw: $CXX not found (scripts/setup.sh test installs it)" >&2; exit 2; }
# The torch headers the build used: <prefix>/share/cmake/Torch -> <prefix>/include.
TORCH_INC=/usr/include
torch_dir=$(sed -n 's/^Torch_DIR:[A-Z]*=//p' "${BUILD:-build}/CMakeCache.txt" 2>/dev/null || true)
[ -n "$torch_dir" ] && [ -f "$torch_dir/../../../include/ATen/ATen.h" ] && TORCH_INC=$(cd "$torch_dir/../../../include" && pwd)
[ -f "$TORCH_INC/ATen/ATen.h" ] || { echo "check_engine_mingw: no torch headers in $TORCH_INC (libtorch-dev, or build/ configured with Torch_DIR)" >&2; exit 2; }
# Only the header folders the engine needs, never /usr/include itself (its
# glibc headers would mix with mingw's).
STAGE=$(mktemp -d); trap 'rm -rf "$STAGE"' EXIT
for d in ATen c10 torch caffe2 gflags glog nlohmann fmt; do
  [ -e "$TORCH_INC/$d" ] && ln -s "$TORCH_INC/$d" "$STAGE/$d"
done
# The engine's files only: src/engine_api (torch-free) is built and tested for
# Windows in the Windows stage (scripts/test_windows.sh).
mapfile -t files < <(find src/engines/torch -name '*.cpp' -not -path '*/backend/cuda/*' | sort)
FLAGS="-std=c++17 -DNDEBUG -DFMT_HEADER_ONLY -Isrc -I$STAGE -I$STAGE/torch/csrc/api/include"
# <ATen/ATen.h> precompiled once, as the native build does (CMakeLists.txt):
# each file's check then takes 5 CPU-s instead of 12 (2026-12-02).
mkdir -p "$STAGE/pch"
echo '#include <ATen/ATen.h>' > "$STAGE/pch/engine_pch.h"
export CXX STAGE FLAGS
start=$(date +%s)
# shellcheck disable=SC2086
"$CXX" $FLAGS -x c++-header "$STAGE/pch/engine_pch.h" -o "$STAGE/pch/engine_pch.h.gch" 2>"$STAGE/pch.err" \
  || { echo "check_engine_mingw: <ATen/ATen.h> does not compile with mingw-w64:"; head -20 "$STAGE/pch.err"; exit 1; }
printf '%s\n' "${files[@]}" | xargs -P "${JOBS:-2}" -I{} sh -c \
  '"$CXX" $FLAGS -fsyntax-only -Winvalid-pch -include "$STAGE/pch/engine_pch.h" "{}" 2>"$STAGE/$(echo {} | tr / _).err" || { echo "FAIL {}"; head -20 "$STAGE/$(echo {} | tr / _).err"; exit 255; }'
echo "check_engine_mingw: ${#files[@]} engine files compile for Windows (mingw-w64, syntax only) in $(( $(date +%s) - start )) s"
