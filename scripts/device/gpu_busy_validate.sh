#!/usr/bin/env bash
# Issue 11's GPU-busy validation on an NVIDIA machine (the H200): builds the
# front end and the torch engine, then runs CUDA workloads with the front
# end's GPU-utilisation sampler on (NVML, every 100 ms) and records what it
# saw per item, next to nvidia-smi's own samples taken over the same
# commands as an independent cross-check:
#   1. env --json: NVML present (the sampler's source);
#   2. llm --quick, train --quick, bench --quick --filter gemm on cuda, each
#      under `nvidia-smi -lms 100`;
#   3. llm --quick again with ACCEL_DOCTOR_GPU_BUSY_MS=0 (sampling off): its
#      tokens/s against the sampled run's, so the sampler's own cost is seen;
#   4. report --from llm.json --format md / --html (the terminal, Markdown
#      and HTML views of the samples).
#   OUT=... scripts/device/gpu_busy_validate.sh
# Needs the staged build deps in .devdeps/ (scripts/device/stage_deps.sh, run
# on the build machine and carried) and a Python torch with CUDA (the
# engine builds against it, FindTorchAuto). Never stops at the first
# failure: each step says its exit code. Packs everything into
# $OUT/gpu_busy.tar.gz and copies summary.txt beside it.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/gpu-busy-out}"; R=/tmp/gpu-busy-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/gpu_busy.tar.gz" gpu-busy-r 2>/dev/null; cp "$R/summary.txt" "$OUT/" 2>/dev/null; }
trap pack EXIT
export PATH="$PATH:/usr/local/cuda/bin"
say() { echo "$*" | tee -a "$R/summary.txt"; }
START=$(date +%s)
PY=${PYTHON:-$(command -v python3)}

say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); host: $(nproc) cores"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | head -2 | tr '\n' ' ')"
say "python: $PY $("$PY" -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.is_available())' 2>&1 | tail -1)"
prefix=""
if [ -d .devdeps/root/usr ]; then
  prefix="-DCMAKE_PREFIX_PATH=$PWD/.devdeps/root/usr"
else
  say "note: no .devdeps/root/usr (scripts/device/stage_deps.sh): relying on system packages for CLI11/json/fmt/RE2"
fi

# 1. Build (Release, no tests): both programs (the H200: ~40 s front end, ~30 s engine on 16 cores).
BUILD=/tmp/build-gpu-busy; rm -rf "$BUILD"
t0=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF $prefix \
  > "$R/configure.txt" 2>&1; rc=$?
[ $rc -eq 0 ] || { say "configure failed (rc=$rc):"; tail -25 "$R/configure.txt" | tee -a "$R/summary.txt"; exit 1; }
grep -E "accel-doctor:" "$R/configure.txt" | tee -a "$R/summary.txt"
ninja -C "$BUILD" -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1; rc=$?
say "build: rc=$rc in $(( $(date +%s) - t0 )) s"
if [ $rc -ne 0 ]; then grep -E "error|FAILED" "$R/build.txt" | head -30 | tee -a "$R/summary.txt"; exit 1; fi
BIN=$BUILD/accel-doctor
export ACCEL_DOCTOR_KB="$PWD/kb" NO_COLOR=1

# The device tool allows 600 s a command: each step gets at most STEP_S (120) and
# none starts after BUDGET_S (470) since the script began (build included), so the pack step runs.
STEP_S=${STEP_S:-120}; BUDGET_S=${BUDGET_S:-470}
# nvidia-smi's own utilisation samples while CMD runs: <name>.nvsmi.csv (timestamp, utilization.gpu %).
with_smi() {
  local name=$1; shift
  if [ $(( $(date +%s) - START )) -gt "$BUDGET_S" ]; then say "$name: skipped (over the ${BUDGET_S} s budget)"; return; fi
  nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory --format=csv,noheader,nounits -lms 100 \
    > "$R/$name.nvsmi.csv" 2>/dev/null &
  local smi=$!
  local s e rc=0
  s=$(date +%s.%N)
  timeout "$STEP_S" "$@" > "$R/$name.txt" 2> "$R/$name.err" || rc=$?
  e=$(date +%s.%N)
  kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
  say "$name: exit $rc in $("$PY" -c "print(f'{$e - $s:.1f}')") s ($*)"
}

# 2. Where the sampler reads from.
timeout 60 "$BIN" env --json "$R/env.json" > "$R/env.txt" 2>&1; say "env: exit $?"
# 3. CUDA workloads, sampled.
with_smi llm "$BIN" --json "$R/llm.json" llm --quick
with_smi train "$BIN" --json "$R/train.json" train --quick
with_smi bench "$BIN" --json "$R/bench.json" bench --quick --filter gemm
# 4. The same LLM run with the sampler off: the sampler's own cost.
ACCEL_DOCTOR_GPU_BUSY_MS=0 with_smi llm_unsampled "$BIN" --json "$R/llm_unsampled.json" llm --quick
# 5. The reporters.
timeout 60 "$BIN" report --from "$R/llm.json" --from "$R/train.json" --format md > "$R/report.md" 2> "$R/report_md.err"
say "report --format md: exit $?; GPU busy section: $(grep -c 'GPU busy while measuring' "$R/report.md")"
timeout 60 "$BIN" report --from "$R/llm.json" --from "$R/train.json" --html "$R/report.html" > /dev/null 2> "$R/report_html.err"
say "report --html: exit $?; section: $(grep -c 'id="gpu-busy"' "$R/report.html" 2>/dev/null)"
grep -A40 'GPU busy while measuring' "$R/llm.txt" > "$R/llm_terminal_gpu_busy.txt" 2>/dev/null
# The rules on what was recorded (measuring commands print no findings themselves).
for name in llm train bench; do
  [ -f "$R/$name.json" ] || continue
  timeout 60 "$BIN" diagnose --from "$R/$name.json" > "$R/$name.diagnose.txt" 2>&1
  say "diagnose --from $name.json: exit $?; gpu_busy.low: $(grep -c 'The GPU was busy under' "$R/$name.diagnose.txt")"
done

"$PY" - "$R" <<'PY' | tee -a "$R/summary.txt"
import csv, json, os, statistics, sys
R = sys.argv[1]

def load(name):
    try:
        return json.load(open(os.path.join(R, name + ".json")))
    except Exception as e:
        print(f"{name}.json unreadable: {e}")
        return None

env = load("env")
if env:
    gpus = env["context"]["environment"]["gpus"]
    print("NVML in env:", [("nvml" in g.get("vendor_info", {}), g.get("name")) for g in gpus])

def smi(name):
    vals = []
    try:
        for row in csv.reader(open(os.path.join(R, name + ".nvsmi.csv"))):
            if len(row) >= 2 and row[1].strip().isdigit():
                vals.append(int(row[1]))
    except OSError:
        pass
    return vals

for name in ("llm", "train", "bench", "llm_unsampled"):
    r = load(name)
    if not r:
        continue
    rows, busy_medians = [], []
    for x in r["results"]:
        b = x.get("gpu_busy")
        if x.get("device", "cpu") in ("", "cpu"):
            continue
        if not b:
            rows.append(f"  {x['key']}: no gpu_busy")
            continue
        if not b.get("devices"):
            rows.append(f"  {x['key']}: not measured: {b.get('not_measured')}")
            continue
        d = max(b["devices"], key=lambda d: d["median_percent"])
        busy_medians.append(d["median_percent"])
        eng = ", ".join(f"{e['engine']} {e['median_percent']:.0f}/{e['max_percent']:.0f}" for e in d["engines"])
        rows.append(f"  {x['key']} [{x['status']}]: median {d['median_percent']:.0f}% max {d['max_percent']:.0f}%,"
                    f" {d['samples']} samples x {b['period_ms']:.0f} ms over {b['window_ms']:.0f} ms ({eng}; {d['source']})")
    s = smi(name)
    smi_txt = (f"nvidia-smi over the whole command: median {statistics.median(s):.0f}%, max {max(s)}%, {len(s)} samples"
               if s else "nvidia-smi: no samples")
    print(f"{name}: {len(busy_medians)} device rows sampled; {smi_txt}")
    for line in rows[:60]:
        print(line)

def tokens(name):
    r = load(name)
    if not r:
        return {}
    return {x["key"]: x["metrics"].get("tokens_per_s") for x in r["results"] if x["kind"] == "llm" and x["status"] == "ok"}

a, b = tokens("llm"), tokens("llm_unsampled")
common = [k for k in a if k in b and a[k] and b[k]]
if common:
    ratios = [a[k] / b[k] for k in common]
    print(f"sampler cost: tokens/s sampled / unsampled, median {statistics.median(ratios):.3f} "
          f"(min {min(ratios):.3f}, max {max(ratios):.3f}) over {len(common)} llm rows (one run each: run-to-run noise included)")
PY
