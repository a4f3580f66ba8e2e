#!/usr/bin/env bash
# End-to-end: injected test-only checks prove every failure status, the run
# continues past an abort and a hang, and the report holds every result.
set -euo pipefail
BIN="$1"; OUT="$2"; mkdir -p "$OUT"
rc=0
ACCEL_DOCTOR_TEST_CHECKS=1 "$BIN" ops --filter selftest,ops/linalg/matmul/fp32 --check-timeout 5 \
  --json "$OUT/report.json" > "$OUT/stdout.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "expected exit 1 (failed checks), got $rc"; cat "$OUT/stdout.txt"; exit 1; }
python3 - "$OUT/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
st = {x["key"]: x["status"] for x in r["results"] if x["kind"] == "check"}
want = {
  "ops/selftest/throws/fp32": "error",
  "ops/selftest/wrong_value/fp32": "mismatch",
  "ops/selftest/aborts/fp32": "crashed",
  "ops/selftest/hangs/fp32": "hung",
  "ops/selftest/off_device/fp32": "off_device",
  "ops/selftest/passes/fp32": "ok",
  "ops/linalg/matmul/fp32": "ok",   # after the crash and the hang
}
for k, v in want.items():
    assert st.get(k) == v, f"{k}: {st.get(k)} != {v}"
crash = [x for x in r["results"] if x["key"] == "ops/selftest/aborts/fp32"][0]
assert "SIGABRT" in crash["reason"] or "Abort" in crash["reason"], crash["reason"]
print("isolation ok")
PY
# Usage errors exit with 2 and list the devices that exist.
rc=0; "$BIN" ops --device cuda:7 > "$OUT/dev.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "Devices here: cpu" "$OUT/dev.txt" || { echo "bad device handling ($rc)"; cat "$OUT/dev.txt"; exit 1; }
rc=0; "$BIN" ops --device tpu > "$OUT/dev2.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "unknown device: exit $rc"; exit 1; }
rc=0; "$BIN" ops --filter no-such-check > "$OUT/f.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "empty filter: exit $rc"; exit 1; }
rc=0; "$BIN" --no-such-option > "$OUT/o.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "bad option: exit $rc"; exit 1; }
echo "usage errors ok"

# A worker past its memory budget hands the remaining checks to a fresh one:
# with a 1-byte budget every check runs in its own worker, and the report
# still holds every result, in order, all ok.
ACCEL_DOCTOR_WORKER_RETIRE_BYTES=1 "$BIN" --device cpu ops --quick --filter ops/linalg/matmul,ops/linalg/mm/,ops/linalg/bmm \
  --json "$OUT/retire.json" > "$OUT/retire.txt" 2>&1
"$BIN" ops --list --filter ops/linalg/matmul,ops/linalg/mm/,ops/linalg/bmm | awk 'NR > 1 && /^ops\// {print $1}' > "$OUT/retire_keys.txt"
python3 - "$OUT/retire.json" "$OUT/retire_keys.txt" <<'PY'
import json, sys
r = [x for x in json.load(open(sys.argv[1]))["results"] if x["kind"] == "check"]
want = open(sys.argv[2]).read().split()
assert [x["key"] for x in r] == want, ([x["key"] for x in r], want)  # each once, in catalog order
bad = [(x["key"], x["status"], x["reason"]) for x in r if x["status"] not in ("ok", "unavailable")]
assert not bad, bad
workers = [x["evidence"].get("worker", 1) for x in r]
assert len(set(workers)) == len(r), f"not one worker per check: {workers}"
print(f"worker hand-over ok ({len(r)} checks, workers {workers})")
PY

# --trace: the merged trace (torch with Kineto) or a plain "no trace" note
# (without), and never the per-check parts folder left behind.
rc=0; "$BIN" --device cpu --trace "$OUT/trace.json" ops --quick --filter ops/linalg/matmul/fp32 \
  > "$OUT/trace.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: ops --trace exited $rc"; cat "$OUT/trace.txt"; exit 1; }
[ ! -e "$OUT/trace.json.parts" ] || { echo "FAIL: trace parts folder left behind"; exit 1; }
if [ -e "$OUT/trace.json" ]; then
  python3 -c "import json,sys; json.load(open(sys.argv[1]))['traceEvents']" "$OUT/trace.json"
else
  grep -q "no trace written" "$OUT/trace.txt" || { echo "FAIL: no trace and no reason"; exit 1; }
fi
echo "trace ok"
