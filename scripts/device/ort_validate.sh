#!/usr/bin/env bash
# Issue 12's validation on the GPU machine (H200): the ONNX Runtime engine of
# the front end run through the machine's Python onnxruntime wheel (its
# capi/libonnxruntime.so.1.30.0; CPU provider only there), so the engine is
# measured on a second runtime build and a many-core CPU:
#   1. the front end and the unit tests, torch-free (-DACCEL_TORCH_FREE=ON),
#      against the staged build deps in .devdeps/ (scripts/device/stage_deps.sh);
#   2. the ONNX Runtime unit tests (ABI slots, engine, writer, profile, rules)
#      against the wheel's library (ACCEL_ORT_LIBRARY);
#   3. accel-doctor ort --list; ort --device cpu (the whole catalog and the
#      workloads, full sizes: the seed's 8192^2 MatMul) with --onnxruntime;
#      ort --quick found through the Python package (--python); auto and
#      cuda on a CPU-only wheel (the reason / exit 2); the protobuf writer;
#   4. the default run without a torch engine: its ONNX Runtime line.
#   OUT=... [PYTHON=python3] scripts/device/ort_validate.sh
# Every step has its own time limit and failure is recorded, not fatal; the
# results are packed into $OUT/ort.tar.gz on exit, summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
OUT="${OUT:-/tmp/ort-out}"; R=/tmp/ort-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/ort.tar.gz" ort-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
say() { echo "$*" | tee -a "$R/summary.txt"; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

PY=${PYTHON:-$(command -v python3)}
say "date: $(date -u +%FT%TZ); host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "python: $PY $("$PY" -c 'import sys; print(sys.version.split()[0])' 2>&1)"
"$PY" - > "$R/wheel.txt" 2>&1 <<'PYEOF'
import importlib.util, os
from importlib import metadata
s = importlib.util.find_spec("onnxruntime")
print("package:", s.submodule_search_locations[0] if s else None)
print("distributions:", sorted(f"{d.metadata['Name']} {d.version}" for d in metadata.distributions()
                               if (d.metadata['Name'] or '').lower().startswith('onnxruntime')))
if s:
    capi = os.path.join(s.submodule_search_locations[0], "capi")
    print("capi:", sorted(os.listdir(capi)))
    import onnxruntime
    print("onnxruntime", onnxruntime.__version__, onnxruntime.get_available_providers())
PYEOF
sed 's/^/  /' "$R/wheel.txt" | tee -a "$R/summary.txt"
CAPI=$("$PY" -c 'import importlib.util as u, os; s = u.find_spec("onnxruntime"); print(os.path.join(s.submodule_search_locations[0], "capi"))' 2>/dev/null)
LIB=""
if [ -n "$CAPI" ]; then
  # The versioned file first (libonnxruntime.so.1.30.0), as the engine's own search does.
  LIB=$(ls "$CAPI"/libonnxruntime.so* 2>/dev/null | awk '{ print length($0) " " $0 }' | sort -rn | head -1 | cut -d' ' -f2)
fi
say "runtime library: ${LIB:-none found}"
[ -n "$LIB" ] || { say "no onnxruntime wheel with a capi/libonnxruntime.so*: stop"; exit 1; }

# 1. Build (torch-free: the ONNX Runtime engine is in the front end).
BUILD=/tmp/build-ort; rm -rf "$BUILD"
t0=$(date +%s.%N)
DEPS="$SRC/.devdeps/root/usr"
[ -d "$DEPS" ] || say "warning: no staged deps in .devdeps/ (scripts/device/stage_deps.sh); trying the system's"
timeout 120 cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_TORCH_FREE=ON \
  -DCMAKE_PREFIX_PATH="$DEPS" > "$R/configure.txt" 2>&1 || { say "configure failed"; tail -30 "$R/configure.txt" | tee -a "$R/summary.txt"; exit 1; }
timeout 420 ninja -C "$BUILD" -j "$(nproc)" accel-doctor unit_tests > "$R/build.txt" 2>&1; rc=$?
say "build (accel-doctor, unit_tests): rc=$rc in $(elapsed "$t0") s"
grep -E "error|FAILED" "$R/build.txt" | head -20 | tee -a "$R/summary.txt"
BIN=$BUILD/accel-doctor
[ -x "$BIN" ] || { say "no accel-doctor binary: stop"; exit 1; }

# 2. The ONNX Runtime unit tests against the wheel's library.
if [ -x "$BUILD/tests/unit_tests" ]; then
  t0=$(date +%s.%N)
  ACCEL_ORT_LIBRARY="$LIB" ACCEL_REQUIRE_ORT=1 ACCEL_KB_DIR="$SRC/kb" timeout 300 "$BUILD/tests/unit_tests" \
    --gtest_filter='Ort*:OnnxWriter*:RulesOrt*' > "$R/unit_ort.txt" 2>&1; rc=$?
  say "unit tests Ort*:OnnxWriter*:RulesOrt* against the wheel: rc=$rc in $(elapsed "$t0") s; $(grep -E '^\[  (PASSED|FAILED)' "$R/unit_ort.txt" | tr '\n' ' ')"
  grep -E '^\[  FAILED|Failure|SKIPPED' "$R/unit_ort.txt" | head -20 | tee -a "$R/summary.txt"
fi

# 3. The command.
run() {  # name, time limit (s), args...
  local name=$1 limit=$2; shift 2
  local s; s=$(date +%s.%N)
  timeout "$limit" "$BIN" "$@" > "$R/$name.txt" 2> "$R/$name.err"; local rc=$?
  say "$name: accel-doctor $* -> exit $rc in $(elapsed "$s") s"
  [ "$rc" -eq 124 ] && say "  $name: TIME LIMIT ($limit s)"
  [ "$rc" -ge 2 ] && sed 's/^/  stderr: /' "$R/$name.err" | tail -5 | tee -a "$R/summary.txt"
  return 0
}
cd "$R"
export NO_COLOR=1
run list 30 ort --list
run cpu_full 420 ort --device cpu --onnxruntime "$LIB" --json "$R/cpu_full.json"
run cpu_quick_python 240 ort --device cpu --quick --python "$PY" --json "$R/cpu_quick_python.json"
run auto_quick 240 ort --quick --no-workloads --onnxruntime "$LIB" --filter ort/linalg/,ort/conv/ --json "$R/auto_quick.json"
run cuda_asked 60 ort --device cuda --onnxruntime "$LIB"
run writer 240 ort --device cpu --quick --protobuf-writer --no-workloads --onnxruntime "$LIB" \
  --filter ort/linalg/,ort/conv/,ort/norm/,ort/attention/ --json "$R/writer.json"
run missing 30 ort --onnxruntime /nonexistent/libonnxruntime.so.1
# 4. The default run without a torch engine (torch-free build): its ONNX Runtime line.
run doctor 300 --onnxruntime "$LIB" --json "$R/doctor.json"
grep -i "onnx runtime" "$R/doctor.txt" | head -5 | sed 's/^/  /' | tee -a "$R/summary.txt"

"$PY" - "$R" <<'PYEOF' 2>&1 | tee -a "$R/summary.txt"
import collections, json, os, sys
R = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(R, name)))
    except Exception as e:
        print(f"{name}: unreadable ({e})")
        return None
for name in ("cpu_full.json", "cpu_quick_python.json", "auto_quick.json", "writer.json"):
    r = load(name)
    if not r:
        continue
    info = r["context"]["environment"].get("onnxruntime") or {}
    rows = [x for x in r["results"] if x["key"].startswith(("ort/", "bench/ort-"))]
    st = collections.Counter(x["status"] for x in rows)
    print(f"{name}: ONNX Runtime {info.get('version')} API {info.get('api_version')} [{info.get('found_by')}] "
          f"model path {info.get('model_path')}, device {info.get('device')} ({info.get('device_reason')}); "
          f"{len(rows)} rows {dict(st)}")
    for w in info.get("warnings", []):
        print("  warning:", w)
    for x in rows:
        if x["status"] not in ("ok", "unavailable"):
            print(f"  {x['key']}: {x['status']} {x.get('reason') or (x.get('error') or {}).get('message', '')}")
    for x in rows:
        if x["kind"] == "bench" and x.get("timing"):
            rf = x.get("roofline") or {}
            m = x["metrics"]
            print(f"  {x['key']}: median {x['timing']['median_us']:.0f} us (IQR {x['timing']['iqr_us']:.0f}), "
                  f"{m.get('tflops', 0):.3f} TFLOP/s, {rf.get('percent_of_bound', 0):.1f}% of "
                  f"{rf.get('peak_tflops', 0):.2f} TFLOP/s ({rf.get('peak_source', '')})"
                  + (f", {m['samples_per_s']:.0f} samples/s" if "samples_per_s" in m else "")
                  + (f", {m['images_per_s']:.1f} images/s" if "images_per_s" in m else ""))
    un = sorted(x["key"] for x in rows if x["status"] == "unavailable")
    if un:
        print(f"  unavailable on the CPU provider ({len(un)}):", ", ".join(un[:40]))
r = load("doctor.json")
if r:
    ph = [x for x in r["results"] if x["key"].startswith(("ort/", "bench/ort-", "doctor/onnxruntime"))]
    print("doctor.json: ONNX Runtime rows:", len(ph), "environment.onnxruntime:",
          (r["context"]["environment"].get("onnxruntime") or {}).get("device"))
PYEOF
