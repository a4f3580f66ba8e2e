#!/usr/bin/env bash
# Issue 14's validation on a GPU machine: the accel_doctor Python package
# built with `pip install --no-build-isolation .` against the machine's own
# torch (not Debian's), then measured through the Python-hosted engine:
#   1. tests/python/package.sh (the CI test: venv, pip install, ops on cpu,
#      the front end's Python fallback, --import failures);
#   2. python -m accel_doctor ops --quick on the GPU, through the package;
#   3. the default diagnosis through the package, timed (wall, RUNS times);
#   4. --import of a plugin module that registers nothing (import recorded).
#   OUT=... [RUNS=2] scripts/device/py_validate.sh
# Needs the staged build deps in .devdeps/ (scripts/device/stage_deps.sh).
# Packs everything into $OUT/py.tar.gz and copies summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/py-out}"; R=/tmp/py-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/py.tar.gz" py-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
RUNS="${RUNS:-2}"
export PATH="$PATH:/usr/local/cuda/bin"
say() { echo "$*" | tee -a "$R/summary.txt"; }

PY=${PYTHON:-$(command -v python3)}
say "host: $(nproc) cores; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
say "python: $PY $("$PY" -c 'import sys,torch;print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1)"

BUILD=/tmp/build-py; rm -rf "$BUILD"; mkdir -p "$BUILD"
export CMAKE_ARGS="-DCMAKE_PREFIX_PATH=$PWD/.devdeps/root/usr -DCMAKE_BUILD_TYPE=Release"
export JOBS="$(nproc)"
t0=$(date +%s)
PYTHON="$PY" tests/python/package.sh "$BUILD" "$R/package" > "$R/package.txt" 2>&1; rc=$?
say "tests/python/package.sh: rc=$rc in $(( $(date +%s) - t0 )) s (pip install builds the engine module from clean)"
tail -n 15 "$R/package.txt" | sed 's/^/  /' | tee -a "$R/summary.txt"
cp "$BUILD/python-package-test/pip.log" "$R/" 2>/dev/null
venv=$BUILD/py-venv
[ -x "$venv/bin/python" ] || { say "no venv: stop"; exit 1; }
"$venv/bin/python" -m pip show accel-doctor > "$R/pip_show.txt" 2>&1

# 2. The GPU through the package.
rc=0; "$venv/bin/python" -m accel_doctor --json "$R/ops_cuda.json" ops --quick --device cuda \
  > "$R/ops_cuda.txt" 2> "$R/ops_cuda.err" || rc=$?
say "python -m accel_doctor ops --quick --device cuda: exit $rc"

# 3. The default diagnosis through the package, timed.
for i in $(seq 1 "$RUNS"); do
  s=$(date +%s.%N)
  rc=0; "$venv/bin/python" -m accel_doctor --redact --json "$R/doctor_$i.json" > "$R/doctor_$i.txt" 2> "$R/doctor_$i.err" || rc=$?
  e=$(date +%s.%N)
  secs=$(python3 -c "print(f'{$e - $s:.1f}')")
  echo "$secs" >> "$R/doctor_seconds.txt"
  say "default run $i through the package: rc=$rc in ${secs} s; $(grep -m1 '^Verdict' "$R/doctor_$i.txt")"
done
"$venv/bin/python" - "$R/ops_cuda.json" "$R/doctor_1.json" <<'PY' | tee -a "$R/summary.txt"
import collections, json, sys
for path in sys.argv[1:]:
    try:
        r = json.load(open(path))
    except Exception as e:
        print(path, "unreadable:", e); continue
    host = r["context"]["environment"]["torch"].get("host", {})
    c = collections.Counter((x["kind"], x["status"]) for x in r["results"])
    print(path.split("/")[-1], "host:", host.get("kind"), host.get("python_executable"),
          "torch", host.get("torch_python_version"))
    print("  results:", dict(c))
    print("  devices:", [d["id"] + " " + d["name"] for d in r["context"]["environment"]["devices"]])
    print("  findings:", [f["id"] for f in r.get("findings", [])])
PY

# 4. A plugin that imports cleanly and registers nothing: recorded, no harm.
mkdir -p "$R/plugin"; echo 'VERSION = "0.0-test"' > "$R/plugin/accel_doctor_test_plugin.py"
rc=0; PYTHONPATH="$R/plugin" "$venv/bin/python" -m accel_doctor --import accel_doctor_test_plugin \
  --json "$R/import.json" env > "$R/import.txt" 2>&1 || rc=$?
say "--import accel_doctor_test_plugin env: exit $rc; plugins: $("$venv/bin/python" -c "import json;print(json.load(open('$R/import.json'))['context']['environment']['torch']['host'].get('plugins'))" 2>&1)"
