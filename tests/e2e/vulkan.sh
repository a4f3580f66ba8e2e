#!/usr/bin/env bash
# End-to-end: the Vulkan ceiling in the front end (docs/vulkan.md, issue 13).
# No loader or no device: one clear line; exit 2 only when `bench --vulkan`
# was the whole request, exit 0 beside framework rows (a fake engine stands in
# for torch so the test needs no libtorch), and the default run goes on and
# keeps its own exit code. With Mesa's lavapipe as the only Vulkan device the
# default run measures nothing through Vulkan (a software device is never a
# GPU ceiling) and says so. A saved report's rows (--from) are accepted.
set -euo pipefail
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; OUT="$2"; mkdir -p "$OUT"
source "$(dirname "$0")/lib/common.sh"
on_error_explain
NO_LOADER=/nonexistent/libvulkan.so.1

# 1. bench --vulkan alone, no loader: the line, exit 2, a JSON report that says why.
rc=0
ACCEL_DOCTOR_VULKAN_LOADER=$NO_LOADER "$BIN" bench --vulkan --json "$OUT/alone.json" \
  > "$OUT/alone.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: bench --vulkan without a loader exited $rc"; cat "$OUT/alone.txt"; exit 1; }
grep -q "Vulkan ceiling: not measured: no Vulkan loader" "$OUT/alone.txt"
python3 - "$OUT/alone.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = [x for x in r["results"] if x["key"] == "bench/vulkan/ceiling/none/-/-"]
assert len(rows) == 1 and rows[0]["status"] == "skipped", r["results"]
assert "no Vulkan loader" in rows[0]["reason"], rows[0]["reason"]
PY

# 2. A loader without any driver (no ICD): the same, as "no physical device" or the loader's refusal.
rc=0
VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json "$BIN" bench --vulkan \
  > "$OUT/no_icd.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: bench --vulkan without an ICD exited $rc"; cat "$OUT/no_icd.txt"; exit 1; }
grep -qE "Vulkan ceiling: not measured: (the Vulkan loader found no physical device|vkCreateInstance failed|no Vulkan loader)" \
  "$OUT/no_icd.txt"

# 3. Beside framework rows (a fake engine answering the protocol): the line, exit 0.
cat > "$OUT/fake-engine" <<'SH'
#!/bin/sh
req=$(cat)
echo '{"event": "hello", "protocol": 1, "engine": "fake", "version": "0"}'
row='{"key": "bench/cpu/launch/launch/fp32/tiny", "kind": "bench", "name": "launch", "category": "launch", "dtype": "fp32", "device": "cpu", "status": "ok", "metrics": {"us_per_op": 2.0}}'
case "$req" in
  *'"environment"'*) echo '{"event": "environment", "environment": {"torch": {"version": "2.11.0", "backend": "cpu"}, "devices": []}}' ;;
  *'"list_benchmarks"'*) echo '{"event": "items", "items": [{"key": "bench/cpu/launch/launch/fp32/tiny", "kind": "bench"}]}' ;;
  *'"run"'*) echo '{"event": "plan", "items": [{"key": "bench/cpu/launch/launch/fp32/tiny", "kind": "bench"}]}'
             echo "{\"event\": \"result\", \"result\": $row}"
             echo "{\"event\": \"done\", \"results\": [$row]}" ;;
  *) echo '{"event": "error", "message": "fake engine: unknown request"}'; exit 2 ;;
esac
SH
chmod +x "$OUT/fake-engine"
ACCEL_DOCTOR_VULKAN_LOADER=$NO_LOADER run_doctor 0 "$OUT/beside" "$BIN" --engine "$OUT/fake-engine" \
  bench --vulkan --filter launch --json "$OUT/beside.json"
grep -q "Vulkan ceiling: not measured: no Vulkan loader" "$OUT/beside.txt"
python3 - "$OUT/beside.json" <<'PY'
import json, sys
keys = {x["key"]: x["status"] for x in json.load(open(sys.argv[1]))["results"]}
assert keys.get("bench/cpu/launch/launch/fp32/tiny") == "ok", keys
assert keys.get("bench/vulkan/ceiling/none/-/-") == "skipped", keys
PY

# 4. --from: a saved report without framework rows is a set-up error (exit 2), as is --from without --vulkan.
rc=0; "$BIN" bench --vulkan --from "$OUT/alone.json" > "$OUT/from_empty.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "no framework bench rows" "$OUT/from_empty.txt" \
  || { echo "FAIL: --from a report without framework rows exited $rc"; cat "$OUT/from_empty.txt"; exit 1; }
rc=0; "$BIN" bench --from "$OUT/beside.json" > "$OUT/from_alone.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: bench --from without --vulkan exited $rc"; exit 1; }
rc=0; "$BIN" bench --vulkan --from /nonexistent.json > "$OUT/from_missing.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "/nonexistent.json" "$OUT/from_missing.txt" \
  || { echo "FAIL: --from a missing file exited $rc"; cat "$OUT/from_missing.txt"; exit 1; }
# A saved report with framework rows is read; with no loader the ceiling still exits 2 (the whole request).
rc=0
ACCEL_DOCTOR_VULKAN_LOADER=$NO_LOADER "$BIN" bench --vulkan --from "$OUT/beside.json" \
  > "$OUT/from_ok.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "Vulkan ceiling: not measured" "$OUT/from_ok.txt" \
  || { echo "FAIL: --from with no loader exited $rc"; cat "$OUT/from_ok.txt"; exit 1; }

# 5. The default run with no torch engine (a copy moved away from it, kb beside it, as no_engine.sh)
# measures the Vulkan ceiling anyway; without a loader it says so and goes on (exit 1: findings).
mkdir -p "$OUT/alone"
cp "$BIN" "$OUT/alone/accel-doctor"
cp -r "$(dirname "$BIN")/kb" "$OUT/alone/"
rc=0
ACCEL_DOCTOR_VULKAN_LOADER=$NO_LOADER "$OUT/alone/accel-doctor" --json "$OUT/doctor.json" \
  > "$OUT/doctor.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: the default run without engine and loader exited $rc"; cat "$OUT/doctor.txt"; exit 1; }
grep -q "Vulkan ceiling: not measured: no Vulkan loader" "$OUT/doctor.txt"
grep -q "^Verdict" "$OUT/doctor.txt"
# With lavapipe the only device it lists the software device and measures nothing there.
if ls /usr/share/vulkan/icd.d/lvp_icd*.json > /dev/null 2>&1; then
  rc=0
  VK_DRIVER_FILES="$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -1)" \
    "$OUT/alone/accel-doctor" --json "$OUT/doctor_lvp.json" > "$OUT/doctor_lvp.txt" 2>&1 || rc=$?
  [ "$rc" -eq 1 ] || { echo "FAIL: the default run exited $rc"; cat "$OUT/doctor_lvp.txt"; exit 1; }
  grep -q "Vulkan ceiling: not measured: no Vulkan GPU: the loader lists llvmpipe" "$OUT/doctor_lvp.txt"
  python3 - "$OUT/doctor_lvp.json" <<'PY'
import json, sys
rows = [x for x in json.load(open(sys.argv[1]))["results"] if x["key"].startswith("bench/vulkan/")]
assert [x["key"] for x in rows] == ["bench/vulkan/ceiling/none/-/-"], rows
PY
else
  echo "note: no lavapipe (mesa-vulkan-drivers) here; the software-device part was not run"
fi
echo "vulkan ok"
