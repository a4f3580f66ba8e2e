#!/usr/bin/env bash
# End-to-end: the front end links no torch and does what it can without the
# torch engine (issue 10): measuring commands exit 2 saying what was looked
# for; the default diagnosis still reports the environment and findings.
set -euo pipefail
BIN="$1"; OUT="$2"; mkdir -p "$OUT"
source "$(dirname "$0")/lib/common.sh"
on_error_explain

# The front end: no torch library (ldd lists what the loader would map).
if command -v ldd >/dev/null; then
  if ldd "$BIN" | grep -iE 'libtorch|libc10'; then
    echo "FAIL: $BIN links torch"; exit 1
  fi
fi
[ -x "$(dirname "$BIN")/accel-doctor-torch" ] || { echo "FAIL: no accel-doctor-torch beside $BIN"; exit 1; }

# --engine naming nothing: ops exits 2 and says what it looked at and how to build one.
rc=0; "$BIN" --engine /nonexistent/accel-doctor-torch ops > "$OUT/ops.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: ops without engine exited $rc"; cat "$OUT/ops.txt"; exit 1; }
grep -q "no torch engine" "$OUT/ops.txt"
grep -q "/nonexistent/accel-doctor-torch" "$OUT/ops.txt"
grep -q "make doctor" "$OUT/ops.txt"
for cmd in bench llm train; do
  rc=0; "$BIN" --engine /nonexistent/x $cmd --quick > "$OUT/$cmd.txt" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: $cmd without engine exited $rc"; cat "$OUT/$cmd.txt"; exit 1; }
done

# The front end moved away from its engine (kb beside it, as installed).
mkdir -p "$OUT/alone"
cp "$BIN" "$OUT/alone/accel-doctor"
cp -r "$(dirname "$BIN")/kb" "$OUT/alone/"
rc=0; "$OUT/alone/accel-doctor" ops > "$OUT/alone_ops.txt" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: ops with no engine beside exited $rc"; cat "$OUT/alone_ops.txt"; exit 1; }
grep -q "no accel-doctor-torch beside accel-doctor" "$OUT/alone_ops.txt"
grep -q "$OUT/alone/accel-doctor-torch" "$OUT/alone_ops.txt"

# The default diagnosis: environment, a finding saying nothing was measured,
# an honest verdict, exit 1 (findings to read), and a report that says why.
rc=0; "$OUT/alone/accel-doctor" --json "$OUT/doctor.json" > "$OUT/doctor.txt" 2>&1 || rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: default run without engine exited $rc"; cat "$OUT/doctor.txt"; exit 1; }
grep -q "^Host" "$OUT/doctor.txt"
grep -q "Nothing measured" "$OUT/doctor.txt"
grep -q "Verdict: not measured: no torch engine" "$OUT/doctor.txt"
python3 - "$OUT/doctor.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ids = [f["id"] for f in r["findings"]]
assert "no_engine" in ids, ids
skipped = {x["key"]: x["status"] for x in r["results"]}
for phase in ("doctor/ops", "doctor/bench", "doctor/llm"):
    assert skipped.get(phase) == "skipped", (phase, skipped)
env = r["context"]["environment"]
assert env["host"]["logical_cores"] > 0
assert "engine" in env["torch"]["not_collected"]
print("default run without engine ok")
PY

# env works without an engine and says the torch part was not asked.
run_doctor 0 "$OUT/env" "$OUT/alone/accel-doctor" env
grep -q "not asked" "$OUT/env.txt"

# With the engine beside it, env shows the torch build (asked of the engine).
run_doctor 0 "$OUT/env_engine" "$BIN" env
grep -qE "^  version +[0-9]" "$OUT/env_engine.txt"
echo "no_engine ok"
