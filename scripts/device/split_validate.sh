#!/usr/bin/env bash
# Issue 10's validation on a GPU machine: builds the torch-free front end and
# the torch engine from clean (timed apart), checks the front end links no
# torch, runs the default diagnosis RUNS times through the engine (wall time
# of each, median and spread), and checks the no-engine paths.
#   OUT=... [RUNS=3] scripts/device/split_validate.sh
# Packs everything into $OUT/split.tar.gz (the device tool returns at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/split-out}"; R=/tmp/split-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/split.tar.gz" split-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
RUNS="${RUNS:-3}"
export PATH="$PATH:/usr/local/cuda/bin"
say() { echo "$*" | tee -a "$R/summary.txt"; }

BUILD=/tmp/build-split; rm -rf "$BUILD"
t0=$(date +%s)
cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
  -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
t1=$(date +%s)
ninja -C $BUILD -j "$(nproc)" accel-doctor > "$R/build_frontend.txt" 2>&1; rc1=$?
t2=$(date +%s)
ninja -C $BUILD -j "$(nproc)" accel-doctor-torch > "$R/build_engine.txt" 2>&1; rc2=$?
t3=$(date +%s)
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "configure $((t1 - t0)) s; front end rc=$rc1 in $((t2 - t1)) s; engine rc=$rc2 in $((t3 - t2)) s (ccache: ${CCACHE_DISABLE:+off}${CCACHE_DISABLE:-as configured})"
grep -E "error|FAILED" "$R/build_frontend.txt" "$R/build_engine.txt" | head -20
BIN=$BUILD/accel-doctor
[ -x "$BIN" ] && [ -x "$BUILD/accel-doctor-torch" ] || { say "no binaries"; exit 1; }
if ldd "$BIN" | grep -iE 'libtorch|libc10' > "$R/ldd_torch.txt"; then say "FAIL: the front end links torch"; else say "ldd accel-doctor: no torch library"; fi
"$BUILD/accel-doctor-torch" --version >> "$R/summary.txt" 2>&1

for i in $(seq 1 "$RUNS"); do
  s=$(date +%s.%N)
  "$BIN" --redact --json "$R/doctor_$i.json" > "$R/doctor_$i.txt" 2> "$R/doctor_$i.err"; rc=$?
  e=$(date +%s.%N)
  secs=$(python3 -c "print(f'{$e - $s:.1f}')")
  echo "$secs" >> "$R/doctor_seconds.txt"
  say "default run $i: rc=$rc in ${secs} s; $(grep -m1 '^Verdict' "$R/doctor_$i.txt")"
done
python3 - "$R/doctor_seconds.txt" <<'PY' | tee -a "$R/summary.txt"
import statistics, sys
v = sorted(float(x) for x in open(sys.argv[1]) if x.strip())
print(f"default run wall time: median {statistics.median(v):.1f} s, min {v[0]:.1f}, max {v[-1]:.1f} over {len(v)} runs")
PY
python3 - "$R/doctor_1.json" <<'PY' | tee -a "$R/summary.txt"
import json, sys, collections
r = json.load(open(sys.argv[1]))
c = collections.Counter((x["kind"], x["status"]) for x in r["results"])
print("results of run 1:", dict(c))
print("findings of run 1:", [f["id"] for f in r["findings"]])
print("devices:", [d["id"] + " " + d["name"] for d in r["context"]["environment"]["devices"]])
PY

rc=0; "$BIN" --engine /nonexistent ops > "$R/noengine_ops.txt" 2>&1 || rc=$?
say "ops with --engine /nonexistent: exit $rc (2 expected)"
rc=0; "$BIN" --engine /nonexistent --json "$R/noengine.json" > "$R/noengine_doctor.txt" 2>&1 || rc=$?
say "default run with --engine /nonexistent: exit $rc; $(grep -m1 '^Verdict' "$R/noengine_doctor.txt")"
