#!/usr/bin/env bash
# One device call: build accel-doctor against the machine's Python torch,
# run the test suite and the tool, record reference data, and leave
# everything under $OUT (results.tar.gz + summary.txt).
# Usage (on the GPU machine, repo root): scripts/device/validate.sh [steps...]
#   steps: build test env ops doctor fixtures bench llm train reference (default: all known)
set -uo pipefail
OUT="${OUT:-/tmp/accel-out}"
mkdir -p "$OUT/r"
R="$OUT/r"
exec > >(tee -a "$R/log.txt") 2>&1
steps="${*:-build test env ops doctor fixtures}"
has() { [[ " $steps " == *" $1 "* ]]; }
stamp() { echo "=== $(date -u +%H:%M:%S) $*"; }
ROOT=$(pwd)
# ACCEL_FROM_HEAD=1 builds the last commit (git archive) instead of the
# working tree, so half-finished work beside it does not break the run.
if [ "${ACCEL_FROM_HEAD:-0}" = 1 ] && git rev-parse HEAD >/dev/null 2>&1; then
  rm -rf /tmp/src && mkdir -p /tmp/src && git archive HEAD | tar -x -C /tmp/src
  cp -r "$ROOT/.devdeps" /tmp/src/ 2>/dev/null
  [ -f "$ROOT/scripts/device/profile_trace.py" ] && cp "$ROOT"/scripts/device/*.py /tmp/src/scripts/device/ 2>/dev/null
  echo "building HEAD $(git rev-parse --short HEAD) from /tmp/src"
  ROOT=/tmp/src
fi
BUILD=/tmp/build-dev
export PATH="$PATH:/usr/local/cuda/bin"
PY=${PYTHON:-python3}

stamp "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv | tee "$R/gpu.csv"
$PY -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda, "arch", torch.cuda.get_arch_list())' | tee "$R/torch.txt"
nproc; g++ --version | head -1; cmake --version | head -1; nvcc --version | tail -1

if has build; then
  stamp "configure + build"
  cmake -S "$ROOT" -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_PREFIX_PATH="$ROOT/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || { tail -40 "$R/configure.txt"; }
  grep -E "accel-doctor:" "$R/configure.txt"
  time ninja -C $BUILD -j "$(nproc)" > "$R/build.txt" 2>&1; rc=$?
  grep -E "error|FAILED" "$R/build.txt" | head -60
  echo "build rc=$rc"
fi
BIN=$BUILD/accel-doctor
export ACCEL_DOCTOR_KB="$ROOT/kb"

if has test && [ -x $BIN ]; then
  stamp "tests"
  (cd $BUILD && timeout 900 ctest --output-on-failure -j 8 > "$R/ctest.txt" 2>&1; echo "ctest rc=$?")
  tail -25 "$R/ctest.txt"
fi
if has env && [ -x $BIN ]; then
  stamp "env"
  $BIN env --json "$R/env.json" > "$R/env.txt" 2>&1; echo "env rc=$?"; cat "$R/env.txt"
fi
if has ops && [ -x $BIN ]; then
  stamp "ops (full)"
  /usr/bin/time -v $BIN ops --json "$R/ops.json" > "$R/ops.txt" 2> "$R/ops.time"; echo "ops rc=$?"
  tail -60 "$R/ops.txt"; grep -E "Elapsed|Maximum resident" "$R/ops.time"
fi
if has doctor && [ -x $BIN ]; then
  stamp "default run"
  /usr/bin/time -v $BIN --json "$R/doctor.json" > "$R/doctor.txt" 2> "$R/doctor.time"; echo "doctor rc=$?"
  tail -8 "$R/doctor.txt"; grep -E "Elapsed|Maximum resident" "$R/doctor.time"
fi
if has fixtures; then
  stamp "fixtures"
  $PY - <<'PY' > "$R/show_config_2.11_cuda.txt"
import torch; print(torch.__config__.show(), end="")
PY
  # The PCI and driver files the platform probes read, for recorded-tree tests.
  mkdir -p "$R/sysfs"
  for d in /sys/bus/pci/devices/*; do
    cls=$(cat $d/class 2>/dev/null); case "$cls" in 0x03*) ;; *) continue;; esac
    t="$R/sysfs$d"; mkdir -p "$t"
    for f in class vendor device subsystem_vendor subsystem_device boot_vga current_link_speed max_link_speed current_link_width max_link_width numa_node; do
      [ -r $d/$f ] && cat $d/$f > "$t/$f" 2>/dev/null
    done
    [ -L $d/driver ] && echo "$(basename $(readlink $d/driver))" > "$t/driver.name"
  done
  ls -la /dev/nvidia* > "$R/dev_nodes.txt" 2>&1
  nvidia-smi -q > "$R/nvidia-smi-q.txt" 2>&1
  $PY "$ROOT/scripts/device/profile_trace.py" "$R/trace_h200.json" > "$R/profile_trace.txt" 2>&1; echo "trace rc=$?"
fi
for s in bench llm train reference; do
  if has $s && [ -x "$ROOT/scripts/device/step_$s.sh" ]; then stamp "$s"; bash "$ROOT/scripts/device/step_$s.sh" "$BIN" "$R"; fi
done
stamp "done"
tar -C "$OUT" -czf "$OUT/results.tar.gz" r && du -sh "$OUT/results.tar.gz"
cp "$R/log.txt" "$OUT/summary.txt"
rm -rf "$R"
