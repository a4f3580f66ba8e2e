#!/usr/bin/env bash
# The Windows part of `make test` (issue 10): cross-builds the torch-free
# libraries, their unit tests and the Windows-only tests with Debian's
# mingw-w64 into build-windows/ (what `make windows` does) and runs them with
# ctest under Wine, headless, in a Wine prefix of their own under the build dir.
#   scripts/test_windows.sh            build + ctest
#   scripts/test_windows.sh build      build only (`make windows`)
#   BUILD_WINDOWS=dir JOBS=n scripts/test_windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_WINDOWS:-build-windows}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

start=$(date +%s)
if [ ! -f "$build/build.ninja" ]; then
  # Release: no debug info (it made each file half as slow again to build, and
  # unit_tests.exe 220 MB); x86_64-w64-mingw32-addr2line needs RelWithDebInfo.
  # -O1, not -O3: this build is for the tests under Wine, which run in seconds
  # either way, and -O1 compiles in 57-61% of the time of -O3 (rules_perf.cpp
  # 16.6 -> 9.5 CPU-s, html_charts.cpp 17.7 -> 10.8; 2026-12-02).
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_TORCH_FREE=ON \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64-x86_64.cmake
fi
cmake --build "$build" -j "$jobs"
built=$(date +%s)
[ "${1:-}" = build ] && exit 0

# One Wine prefix for every test program, created once (wineboot, a few
# seconds). The first program starts the wineserver, the others share it
# (`wineserver -p`, a persistent server, made ctest's programs hang here).
# No X display is needed: the programs are console programs, and
# WINEDLLOVERRIDES keeps Wine from offering to install Mono and Gecko.
export WINEPREFIX="$PWD/$build/wineprefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset DISPLAY WAYLAND_DISPLAY
wine=$(command -v wine64 || true)
[ -n "$wine" ] || wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine || true)
if [ -z "$wine" ]; then
  echo "test_windows: Wine not found (scripts/setup.sh test installs wine and wine64)" >&2
  exit 2
fi
wineserver=$(command -v wineserver || true)
[ -n "$wineserver" ] || wineserver=/usr/lib/wine/wineserver
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  "$wine" wineboot --init >/dev/null 2>&1 || true
  # An unhandled exception must end the process, as Windows does for a worker
  # in a job with JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION (which Wine
  # ignores), not start Wine's debugger (winedbg --auto, seconds per crash).
  "$wine" reg add 'HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug' /v Debugger /d '' /f >/dev/null 2>&1 || true
  "$wine" reg add 'HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug' /v Auto /d 0 /f >/dev/null 2>&1 || true
fi
trap '"$wineserver" -k 2>/dev/null || true' EXIT

(cd "$build" && ctest --output-on-failure -j "$jobs")
end=$(date +%s)
echo "test_windows: build $((built - start)) s, Wine tests $((end - built)) s"
