#!/usr/bin/env bash
# End-to-end under Wine: accel-doctor.exe of the mingw-w64 build as a user
# runs it (kb/ beside it): --version, env, explain FILE (a recorded error log),
# diagnose --from, report --from --html, compare A B (recorded reports),
# checking exit codes and key output. Wine's own machine facts are not checked
# (ARCHITECTURE.md: an emulator makes them up).
# Usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>; $ACCEL_WINE is the Wine
# loader, with WINEPREFIX/WINEDEBUG set by ctest.
set -u
BIN=${1:?usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>}
SCRATCH=${2:?usage: e2e_wine.sh <accel-doctor.exe> <scratch-dir>}
WINE=${ACCEL_WINE:?ACCEL_WINE: the Wine loader}
REPORTS=${ACCEL_TEST_FIXTURES:?}/reports
ERRORS=${ACCEL_SHARED_ERRORS:?}
mkdir -p "$SCRATCH"
export NO_COLOR=1
unset ACCEL_DOCTOR_KB  # the kb/ beside the .exe, as a user has it

failures=0
pass() { echo "ok   - $1"; }
fail() { echo "FAIL - $1"; failures=$((failures + 1)); }
run() {
  local name=$1 want=$2
  shift 2
  "$WINE" "$BIN" "$@" >"$SCRATCH/$name.out" 2>"$SCRATCH/$name.err"
  RC=$?
  OUT=$(tr -d '\r' <"$SCRATCH/$name.out")
  ERR=$(tr -d '\r' <"$SCRATCH/$name.err")
  if [[ " $want " == *" $RC "* ]]; then pass "$name exits $RC"; else fail "$name exits $RC, expected $want: $ERR"; fi
}
has() { if grep -qiF -- "$2" <<<"$3"; then pass "$1 mentions '$2'"; else fail "$1 does not mention '$2'"; fi; }

run version 0 --version
has version "0.1.0 (" "$OUT"

run env "0 1" env
has env "Windows" "$OUT"

LOG="$ERRORS/cuda-oom-4gb-card-lifespan/log.txt"
run explain 0 explain "$LOG"
has explain "memory" "$OUT"
has explain "batch" "$OUT"

run diagnose "0 1" diagnose --from "$REPORTS/rtx4090-cpu-only-torch.json"
has diagnose "Verdict: " "$OUT"
has diagnose "Findings" "$OUT"

run report "0 1" report --from "$REPORTS/h200-healthy.json" --html "$SCRATCH/report.html"
if grep -q "<html" "$SCRATCH/report.html" 2>/dev/null && grep -q "vega" "$SCRATCH/report.html"; then
  pass "report --html wrote a page with its charting code"
else
  fail "report --html wrote no page"
fi

run compare_self 0 compare "$REPORTS/h200-healthy.json" "$REPORTS/h200-healthy.json"
has compare_self "Regression: no" "$OUT"
run compare_slow 1 compare "$REPORTS/h200-healthy.json" "$REPORTS/h200-slow.json"
has compare_slow "Regression: yes" "$OUT"

run missing 2 diagnose --from "$SCRATCH/no-such.json"
has missing "no-such.json" "$ERR"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
