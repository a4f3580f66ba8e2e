#!/usr/bin/env bash
# Issue 14's validation on a GPU machine: the accel_doctor Python package
# built with `pip install --no-build-isolation .` against the machine's own
# torch (not Debian's), then measured through the Python-hosted engine:
#   0. what the machine has (python, torch, pybind11, Python headers);
#   1. one build tree: the front end, the native engine, the Python module
#      and the test PrivateUse1 backend, against this torch (timed);
#   2. tests/python/package.sh on that tree (the CI test: venv, pip install,
#      ops on cpu, the front end's Python fallback, --import, the test
#      backend's native ops and CPU fallbacks);
#   3. ops --quick on cuda:0 twice, through the native engine and through the
#      package (--python), and their statuses, where-it-ran and times compared
#      key by key;
#   4. the default diagnosis through the package, timed (RUNS times).
#   OUT=... [RUNS=1] scripts/device/py_validate.sh
# Needs the staged build deps in .devdeps/ (scripts/device/stage_deps.sh).
# Packs everything into $OUT/py.tar.gz and copies summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/py-out}"; R=/tmp/py-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/py.tar.gz" py-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
RUNS="${RUNS:-1}"
export PATH="$PATH:/usr/local/cuda/bin"
say() { echo "$*" | tee -a "$R/summary.txt"; }

PY=${PYTHON:-$(command -v python3)}
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
"$PY" - > "$R/python_env.txt" 2>&1 <<'PYEOF'
import sys, sysconfig, importlib.util, os
print("python", sys.executable, sys.version.split()[0], "EXT_SUFFIX", sysconfig.get_config_var("EXT_SUFFIX"))
inc = sysconfig.get_paths()["include"]
print("Python.h", os.path.exists(os.path.join(inc, "Python.h")), inc)
for m in ("torch", "pybind11", "setuptools", "pip", "scikit_build_core"):
    s = importlib.util.find_spec(m)
    v = ""
    if s:
        try:
            v = __import__(m).__version__
        except Exception as e:
            v = "import failed: %s" % e
    print(m, "yes" if s else "no", v)
import torch
print("torch", torch.__version__, "cuda", torch.version.cuda, "available", torch.cuda.is_available(),
      "cmake", torch.utils.cmake_prefix_path)
PYEOF
sed 's/^/  /' "$R/python_env.txt" | tee -a "$R/summary.txt"

BUILD=/tmp/build-py; rm -rf "$BUILD"
TORCH_CMAKE=$("$PY" -c 'import torch; print(torch.utils.cmake_prefix_path)')
PYBIND=$("$PY" -c 'import pybind11; print(pybind11.get_cmake_dir())' 2>/dev/null || true)
t0=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_PYTHON_MODULE=ON \
  -DPython_EXECUTABLE="$PY" -DTorch_DIR="$TORCH_CMAKE/Torch" \
  -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr${PYBIND:+;$PYBIND}" > "$R/configure.txt" 2>&1 ||
  { say "configure failed:"; tail -30 "$R/configure.txt" | tee -a "$R/summary.txt"; exit 1; }
# -k 0: a target that fails to compile (say the test backend against a newer
# torch) leaves the others built and the rest of the run going.
ninja -C "$BUILD" -k 0 -j "$(nproc)" accel-doctor accel-doctor-torch accel_doctor_engine accel_doctor_testdev \
  > "$R/build.txt" 2>&1; rc=$?
say "build (front end, native engine, Python module, test backend; Release, $(nproc) jobs): rc=$rc in $(( $(date +%s) - t0 )) s"
[ "$rc" -eq 0 ] || grep -E "error|FAILED" "$R/build.txt" | head -30 | tee -a "$R/summary.txt"
[ -x "$BUILD/accel-doctor" ] && ls "$BUILD"/_engine* > /dev/null 2>&1 || { say "no front end or module: stop"; exit 1; }

t0=$(date +%s)
PYTHON="$PY" JOBS="$(nproc)" ACCEL_DOCTOR_TESTDEV_LIB="$BUILD/tests/libaccel_doctor_testdev.so" \
  tests/python/package.sh "$BUILD" "$R/package" > "$R/package.txt" 2>&1; rc=$?
say "tests/python/package.sh: rc=$rc in $(( $(date +%s) - t0 )) s"
sed 's/^/  /' "$R/package.txt" | tail -n 25 | tee -a "$R/summary.txt"
cp "$BUILD/py-venv/../python-package-test/pip.log" "$R/" 2>/dev/null
venv=$BUILD/py-venv
[ -x "$venv/bin/python" ] || { say "no venv: stop"; exit 1; }
"$venv/bin/python" -m pip show accel-doctor > "$R/pip_show.txt" 2>&1

# 3. ops --quick on cuda:0, native engine vs the package.
BIN=$BUILD/accel-doctor
for engine in native python; do
  extra=(); [ "$engine" = python ] && extra=(--python "$venv/bin/python")
  s=$(date +%s.%N)
  rc=0; "$BIN" "${extra[@]}" --json "$R/ops_$engine.json" ops --quick --device cuda:0 \
    > "$R/ops_$engine.txt" 2> "$R/ops_$engine.err" || rc=$?
  say "ops --quick --device cuda:0 through the $engine engine: exit $rc in $(python3 -c "import time;print(f'{time.time()-$s:.1f}')") s"
done
"$PY" - "$R/ops_native.json" "$R/ops_python.json" <<'PYEOF' | tee -a "$R/summary.txt"
import json, statistics, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for name, r in (("native", a), ("python", b)):
    h = r["context"]["environment"]["torch"].get("host", {})
    print(f"  {name}: host {h.get('kind')} {h.get('python_executable', '')} torch {r['context']['environment']['torch']['version']}"
          f" {h.get('torch_python_version', '')}, {len(r['results'])} results")
ra = {x["key"]: x for x in a["results"]}
rb = {x["key"]: x for x in b["results"]}
only_a, only_b = sorted(set(ra) - set(rb)), sorted(set(rb) - set(ra))
status = [k for k in ra if k in rb and ra[k]["status"] != rb[k]["status"]]
def where(x): return (x.get("profile") or {}).get("where")
wdiff = [k for k in ra if k in rb and where(ra[k]) != where(rb[k])]
print(f"  keys: {len(set(ra) & set(rb))} in both, {len(only_a)} only native {only_a[:5]}, {len(only_b)} only python {only_b[:5]}")
print(f"  statuses differ: {len(status)}", [(k, ra[k]['status'], rb[k]['status']) for k in status[:10]])
print(f"  profile.where differs: {len(wdiff)}", [(k, where(ra[k]), where(rb[k])) for k in wdiff[:10]])
ratios = sorted(rb[k]["timing"]["median_us"] / ra[k]["timing"]["median_us"] for k in ra
                if k in rb and ra[k].get("timing") and rb[k].get("timing") and ra[k]["timing"]["median_us"] > 0)
if ratios:
    q = statistics.quantiles(ratios, n=20)
    print(f"  device time python/native over {len(ratios)} checks: median {statistics.median(ratios):.3f}, "
          f"5% {q[0]:.3f}, 95% {q[-1]:.3f}, min {ratios[0]:.3f}, max {ratios[-1]:.3f}")
import collections
print("  statuses (python):", dict(collections.Counter(x["status"] for x in b["results"])))
PYEOF

# 4. The default diagnosis through the package, timed.
for i in $(seq 1 "$RUNS"); do
  s=$(date +%s.%N)
  rc=0; "$venv/bin/python" -m accel_doctor --redact --json "$R/doctor_$i.json" > "$R/doctor_$i.txt" 2> "$R/doctor_$i.err" || rc=$?
  secs=$(python3 -c "import time;print(f'{time.time()-$s:.1f}')")
  say "default run $i through the package: rc=$rc in ${secs} s; $(grep -m1 '^Verdict' "$R/doctor_$i.txt")"
done
