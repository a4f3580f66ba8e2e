#!/usr/bin/env bash
# GPU busy while measuring, end to end through the front end: a fake engine
# (a shell script speaking the engine protocol) reports a CUDA device and runs
# two training items, one on cuda:0 (0.6 s) and its CPU twin. The front end's
# sampler (whatever source this machine has: NVML on a GPU runner, none here)
# must give the device row a `gpu_busy` (samples, or `not_measured` with the
# reason), leave the CPU row alone, show it after the train table, and stay
# off with ACCEL_DOCTOR_GPU_BUSY_MS=0; a bad value is said on stderr.
# Usage: gpu_busy.sh <accel-doctor> <scratch-dir>
set -euo pipefail
BIN=${1:?usage: gpu_busy.sh <accel-doctor> <scratch-dir>}
SCRATCH=${2:?usage: gpu_busy.sh <accel-doctor> <scratch-dir>}
source "$(dirname "$0")/lib/common.sh"
on_error_explain
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"
export NO_COLOR=1

ENGINE="$SCRATCH/fake-engine.sh"
cat > "$ENGINE" <<'SH'
#!/bin/sh
# A fake accel-doctor engine: `<engine> serve`, one request on stdin.
req=$(cat)
echo '{"event": "hello", "protocol": 1, "engine": "fake", "version": "0"}'
case "$req" in
  *'"environment"'*)
    echo '{"event": "environment", "environment": {"torch": {"version": "2.11.0", "backend": "cuda"}, "devices": [{"id": "cuda:0", "index": 0, "type": "cuda", "name": "Fake GPU", "vendor": "nvidia", "integrated": false}], "blas": {}}}' ;;
  *'"plan_train"'*)
    echo '{"event": "plan", "resolved": {"device": "cuda:0", "models": ["mlp"], "precisions": ["fp32"], "batches": [64], "steps": 4}, "items": [{"key": "train/cuda/mlp/fp32/b64", "kind": "train"}, {"key": "train/cpu/mlp/fp32/b64", "kind": "train"}], "model_descriptions": ["mlp: fake"]}' ;;
  *'"run"'*)
    echo '{"event": "plan", "items": [{"key": "train/cuda/mlp/fp32/b64", "kind": "train"}, {"key": "train/cpu/mlp/fp32/b64", "kind": "train"}]}'
    echo '{"event": "start", "index": 0, "total": 2, "item": {"key": "train/cuda/mlp/fp32/b64", "kind": "train"}}'
    sleep 0.6
    dev='{"key": "train/cuda/mlp/fp32/b64", "kind": "train", "name": "step b64", "category": "mlp", "dtype": "fp32", "device": "cuda:0", "status": "ok", "metrics": {"samples_per_s": 1000}}'
    echo "{\"event\": \"result\", \"result\": $dev}"
    echo '{"event": "start", "index": 1, "total": 2, "item": {"key": "train/cpu/mlp/fp32/b64", "kind": "train"}}'
    cpu='{"key": "train/cpu/mlp/fp32/b64", "kind": "train", "name": "step b64", "category": "mlp", "dtype": "fp32", "device": "cpu", "status": "ok", "metrics": {"samples_per_s": 100}}'
    echo "{\"event\": \"result\", \"result\": $cpu}"
    echo "{\"event\": \"done\", \"results\": [$dev, $cpu]}" ;;
  *) echo '{"event": "error", "message": "the fake engine knows no such request"}' ;;
esac
SH
chmod +x "$ENGINE"

check() {  # check <json> <expect: sampled|off>
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x["key"]: x for x in r["results"]}
dev, cpu = rows["train/cuda/mlp/fp32/b64"], rows["train/cpu/mlp/fp32/b64"]
assert cpu.get("gpu_busy") is None, "the CPU row got a gpu_busy"
if sys.argv[2] == "off":
    assert dev.get("gpu_busy") is None, "sampling off, yet a gpu_busy"
    sys.exit(0)
b = dev.get("gpu_busy")
assert b, "the device row has no gpu_busy"
if b["devices"]:
    d = b["devices"][0]
    assert d["samples"] >= 1 and 0 <= d["median_percent"] <= 100 and b["period_ms"] == 50, b
    print("sampled:", d["source"], d["samples"], "samples")
else:
    assert b["not_measured"], "neither samples nor a reason"
    print("not measured:", b["not_measured"])
PY
}

export ACCEL_DOCTOR_GPU_BUSY_MS=50
run_doctor 1 "$SCRATCH/train" "$BIN" --engine "$ENGINE" --json "$SCRATCH/train.json" train
check "$SCRATCH/train.json" sampled
grep -q "GPU busy while measuring" "$SCRATCH/train.txt" || { echo "FAIL: no GPU busy block after the train table" >&2; cat "$SCRATCH/train.txt" >&2; exit 1; }
grep -q "train/cuda/mlp/fp32/b64" "$SCRATCH/train.txt"

ACCEL_DOCTOR_GPU_BUSY_MS=0 run_doctor 1 "$SCRATCH/off" "$BIN" --engine "$ENGINE" --json "$SCRATCH/off.json" train
check "$SCRATCH/off.json" off
if grep -q "GPU busy while measuring" "$SCRATCH/off.txt"; then echo "FAIL: a GPU busy block with sampling off" >&2; exit 1; fi

ACCEL_DOCTOR_GPU_BUSY_MS=soon run_doctor 1 "$SCRATCH/bad" "$BIN" --engine "$ENGINE" --json "$SCRATCH/bad.json" train
grep -q "ACCEL_DOCTOR_GPU_BUSY_MS=soon is not a number of milliseconds" "$SCRATCH/bad.err"
echo "gpu_busy.sh: ok"
