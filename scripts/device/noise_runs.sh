#!/usr/bin/env bash
# Between-process noise on a GPU machine (issue 16): builds accel-doctor,
# then runs `ops --quick` and `bench --quick` again and again, each run its
# own process, until DEADLINE_S, so the spread between two runs of the same
# thing can be read off (scripts/bench/noise_floors.py) and compare_noise.sh
# can replay the pairs. Packs the reports into $OUT/noise.tar.gz.
#   OUT=... DEADLINE_S=540 [ARGS_OPS="ops --quick"] [ARGS_BENCH="bench --quick"] scripts/device/noise_runs.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/noise-out}"; R=/tmp/noise-r; rm -rf "$R"; mkdir -p "$R/ops" "$R/bench" "$OUT"
pack() { tar -C /tmp -czf "$OUT/noise.tar.gz" noise-r 2>/dev/null; cp "$R/log.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
trap 'pack; exit 143' TERM
exec > >(tee -a "$R/log.txt") 2>&1
DEADLINE_S="${DEADLINE_S:-540}"
t0=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - t0) )); }
export ACCEL_DOCTOR_KB="$PWD/kb" PATH="$PATH:/usr/local/cuda/bin"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
BUILD=/tmp/build-dev; BIN=$BUILD/accel-doctor
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
ninja -C $BUILD -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1
echo "build rc=$? at +$(( $(date +%s) - t0 ))s"
[ -x "$BIN" ] || { grep -E "error|FAILED" "$R/build.txt" | head -20; exit 1; }
i=0
while :; do
  for s in ops bench; do
    [ "$s" = ops ] && args=${ARGS_OPS:-ops --quick} || args=${ARGS_BENCH:-bench --quick}
    l=$(left); [ "$l" -lt 70 ] && { echo "stop: ${l}s left"; exit 0; }
    st=$(date +%s)
    # shellcheck disable=SC2086  # args are words
    timeout $(( l - 10 )) "$BIN" --quiet --redact --json "$R/$s/run$i.json" $args > /dev/null 2> "$R/$s/err$i.txt"
    echo "$s run$i rc=$? $(( $(date +%s) - st ))s"
  done
  i=$((i + 1))
done
