#!/usr/bin/env bash
# End-to-end: `accel-doctor ort` (the ONNX Runtime engine, docs/onnxruntime.md,
# issue 12) on the real Linux runtime scripts/fetch_onnxruntime.sh caches
# (onnxruntime-node 1.30.0, CPU and WebGPU providers; it also lists CUDA and
# TensorRT whose libraries it does not ship). It needs no torch engine.
#   - `ort --device cpu --quick` runs the whole catalog and the workloads: a
#     status for every row, placement "host" from the profile, the JSON report
#     with environment.onnxruntime; exit 0 or 1 (findings), never 2 or 4;
#   - `--protobuf-writer` (the path of runtimes older than 1.22) on a selection;
#   - `--onnxruntime /nonexistent`, a library that is not ONNX Runtime, and a
#     provider that is listed but cannot load: exit 2 with one clear line;
#   - `--list` needs no runtime; `report --from` / `diagnose --from` read the rows.
# Without the cached runtime it skips, and fails under ACCEL_REQUIRE_ORT=1
# (tests/CMakeLists.txt sets it on the Linux test build).
set -uo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SCRATCH="$2"
mkdir -p "$SCRATCH"
source "$(dirname "$0")/lib/checks.sh"
export NO_COLOR=1
LIB="${ACCEL_ORT_LIBRARY:-${XDG_CACHE_HOME:-$HOME/.cache}/accel-doctor/onnxruntime-node-1.30.0/linux-x64/libonnxruntime.so.1}"
if [ ! -f "$LIB" ]; then
  if [ "${ACCEL_REQUIRE_ORT:-0}" = "1" ]; then
    echo "FAIL - no ONNX Runtime at $LIB (scripts/setup.sh test fetches it)"
    exit 1
  fi
  echo "SKIP - no ONNX Runtime at $LIB (scripts/setup.sh test fetches it)"
  exit 0
fi

# 1. --list: every key, no runtime needed.
run list 0 ort --list
n=$(grep -c '^ort/' <<<"$OUT")
if [ "$n" -ge 80 ]; then pass "ort --list lists $n check keys"; else fail "ort --list lists $n check keys (< 80)"; fi
has list "ort/attention/mha_contrib/fp16" "$OUT"
has list "ort/workload/matmul_seed/fp32" "$OUT"

# 2. The whole catalog on the CPU provider.
start=$(date +%s)
run cpu "0 1" ort --device cpu --quick --onnxruntime "$LIB" --json "$SCRATCH/cpu.json"
echo "     (ort --device cpu --quick took $(($(date +%s) - start)) s)"
has cpu "ONNX Runtime 1.30.0" "$OUT"
has cpu "measuring on cpu" "$OUT"
if python3 - "$SCRATCH/cpu.json" <<'PY'; then pass "cpu.json: every row has a status, placement and time"; else fail "cpu.json rows"; fi
import json, sys, collections
r = json.load(open(sys.argv[1]))
env = r["context"]["environment"]["onnxruntime"]
assert env["version"] == "1.30.0", env["version"]
assert env["found_by"] == "--onnxruntime" and env["device"] == "cpu", env
assert env["model_path"] == "model_editor", env["model_path"]
assert "CPUExecutionProvider" in env["providers"], env["providers"]
assert any(d["ep_name"] == "CPUExecutionProvider" for d in env["ep_devices"]), env["ep_devices"]
rows = [x for x in r["results"] if x["key"].startswith("ort/") or x["key"].startswith("bench/ort-")]
assert len(rows) >= 80, len(rows)
status = collections.Counter(x["status"] for x in rows)
print("     statuses:", dict(status))
assert set(status) <= {"ok", "unavailable", "mismatch", "error"}, status
ok = [x for x in rows if x["status"] == "ok"]
assert len(ok) >= 50, len(ok)
for x in ok:
    assert x["profile"]["where"] == "host", (x["key"], x["profile"])
    assert x["timing"]["median_us"] > 0 and len(x["timing"]["samples_us"]) >= 3, x["key"]
    assert x["device"] == "cpu" and x["evidence"]["provider"] == "CPUExecutionProvider", x["key"]
    if not x["key"].startswith("bench/") and x["key"] not in ("ort/cast/cast_to_fp32/fp16",):
        assert x.get("accuracy") or x.get("warnings"), x["key"]
for x in rows:
    if x["status"] == "unavailable":
        assert "has no kernel" in x["reason"], (x["key"], x["reason"])
    if x["status"] == "error":
        assert x["error"]["message"], x["key"]
fp32 = {x["key"]: x for x in rows if x["dtype"] == "fp32"}
for k in ("ort/linalg/matmul/fp32", "ort/conv/conv2d_3x3/fp32", "ort/norm/layernorm/fp32", "ort/attention/sdpa_composed/fp32"):
    assert fp32[k]["status"] == "ok", (k, fp32[k]["status"], fp32[k].get("reason"))
    assert fp32[k]["accuracy"]["method"].startswith("cpu_provider_"), fp32[k]["accuracy"]
keys = {x["key"] for x in rows}
assert "bench/ort-cpu/workload/matmul_seed/fp32/n2048" in keys, sorted(k for k in keys if "workload" in k)
seed = [x for x in rows if x["key"] == "bench/ort-cpu/workload/matmul_seed/fp32/n2048"][0]
assert seed["metrics"]["tflops"] > 0 and seed["roofline"]["peak_tflops"] >= 0, seed
PY

# 3. The protobuf writer (ONNX Runtime < 1.22's path), forced: same statuses on a selection.
run writer "0 1" ort --device cpu --quick --protobuf-writer --no-workloads --onnxruntime "$LIB" \
  --filter ort/linalg/,ort/conv/conv2d_3x3,ort/norm/,ort/rnn/ --json "$SCRATCH/writer.json"
if python3 - "$SCRATCH/cpu.json" "$SCRATCH/writer.json" <<'PY'; then pass "the writer path gives the editor path's statuses"; else fail "writer statuses"; fi
import json, sys
a = {x["key"]: x for x in json.load(open(sys.argv[1]))["results"]}
b = json.load(open(sys.argv[2]))
assert b["context"]["environment"]["onnxruntime"]["model_path"] == "protobuf"
assert len(b["results"]) >= 12, len(b["results"])
for x in b["results"]:
    assert x["evidence"]["model_path"] == "protobuf", x["key"]
    assert x["status"] == a[x["key"]]["status"], (x["key"], x["status"], a[x["key"]]["status"])
PY
ACCEL_DOCTOR_ORT_WRITER=1 run writer_env "0 1" ort --device cpu --quick --no-workloads --onnxruntime "$LIB" \
  --filter ort/linalg/gemv/fp32 --json "$SCRATCH/writer_env.json"
has writer_env "accel-doctor's ONNX writer" "$OUT"

# 4. Set-up errors: exit 2, one line naming the path and what is wrong.
run missing 2 ort --onnxruntime /nonexistent/libonnxruntime.so.1
has missing "--onnxruntime /nonexistent/libonnxruntime.so.1: no such file" "$ERR"
NOT_ORT=$(ls /usr/lib/x86_64-linux-gnu/libz.so.1 /lib/x86_64-linux-gnu/libz.so.1 2>/dev/null | head -1)
run not_ort 2 ort --onnxruntime "$NOT_ORT"
has not_ort "not ONNX Runtime" "$ERR"
[ "$(wc -l <"$SCRATCH/not_ort.err")" -le 2 ] && pass "not_ort: a short message" || fail "not_ort: $(cat "$SCRATCH/not_ort.err")"
run cuda_listed 2 ort --device cuda --onnxruntime "$LIB"
has cuda_listed "could not create a session" "$ERR"
run no_dml 2 ort --device dml:1 --onnxruntime "$LIB"
has no_dml "this ONNX Runtime has no DmlExecutionProvider" "$ERR"
run bad_device 2 ort --device tpu --onnxruntime "$LIB"
has bad_device "takes auto, cpu, gpu" "$ERR"
run ort_with_env 2 env --onnxruntime "$LIB"
has ort_with_env "--onnxruntime names the runtime" "$ERR"

# 5. auto on a runtime that lists CUDA without its library: the CPU, with the reason.
run auto "0 1" ort --quick --no-workloads --onnxruntime "$LIB" --filter ort/linalg/gemv/fp32
has auto "measuring on cpu" "$OUT"
has auto "cuda:0 (CUDAExecutionProvider) could not create a session" "$OUT"

# 6. The default run without a torch engine (the front end moved away from it):
# ONNX Runtime is found, has no usable GPU provider, and one line says so.
mkdir -p "$SCRATCH/alone"
cp "$BIN" "$SCRATCH/alone/accel-doctor"
cp -r "$(dirname "$BIN")/kb" "$SCRATCH/alone/"
BIN_SAVED=$BIN; BIN="$SCRATCH/alone/accel-doctor"
run doctor "0 1" --onnxruntime "$LIB" --json "$SCRATCH/doctor.json"
BIN=$BIN_SAVED
has doctor "ONNX Runtime 1.30.0: no GPU provider could create a session" "$OUT"
has doctor "not measured" "$OUT"
if python3 - "$SCRATCH/doctor.json" <<'PY'; then pass "doctor.json: environment.onnxruntime, no ORT rows"; else fail "doctor.json"; fi
import json, sys
r = json.load(open(sys.argv[1]))
assert r["context"]["environment"]["onnxruntime"]["version"] == "1.30.0"
assert not [x for x in r["results"] if x["key"].startswith(("ort/", "bench/ort-"))]
PY

# 7. The saved report renders and diagnoses like any other.
run report_md 0 report --from "$SCRATCH/cpu.json" --format md
has report_md "### ONNX Runtime" "$OUT"
has report_md "CPUExecutionProvider" "$OUT"
run diagnose "0 1" diagnose --from "$SCRATCH/cpu.json"
lacks diagnose "internal error" "$ERR"

exit $((failures > 0))
