#!/usr/bin/env bash
# End-to-end: `--repeat N` runs a suite N times, each in its own engine
# process, and merges the results (median of medians, pooled samples,
# evidence.repeat); compare reads such reports; --repeat is refused where
# nothing is measured.
# Usage: repeat.sh <path-to-accel-doctor> <scratch-dir>
set -u
BIN=${1:?usage: repeat.sh <accel-doctor> <scratch-dir>}
SCRATCH=${2:?usage: repeat.sh <accel-doctor> <scratch-dir>}
mkdir -p "$SCRATCH"
HERE=$(cd "$(dirname "$0")" && pwd)
export ACCEL_DOCTOR_KB=${ACCEL_DOCTOR_KB:-$HERE/../../kb}
export NO_COLOR=1

source "$(dirname "$0")/lib/checks.sh"  # pass, fail, run, has, lacks

R=$SCRATCH/repeat.json
run ops_repeat "0 1" --repeat 3 ops --quick --filter linalg/dot/fp32 --json "$R"
python3 - "$R" <<'PY' && pass "3 runs merged: median of medians, pooled samples, evidence.repeat" || fail "merged report"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
timed = [r for r in d["results"] if r["status"] == "ok" and r.get("timing")]
assert timed, "no timed result"
for r in timed:
    rep = r["evidence"]["repeat"]
    assert rep["runs"] == 3, rep
    assert len(rep["median_us"]) == 3, rep
    assert abs(statistics.median(rep["median_us"]) - r["timing"]["median_us"]) < 1e-6 * r["timing"]["median_us"], r["key"]
    assert len(r["timing"]["samples_us"]) >= 3, r["key"]
# the copy-bandwidth row measured with the checks is repeated too
assert any(r["kind"] == "bench" and r["evidence"].get("repeat", {}).get("runs") == 3 for r in timed)
PY
run compare_repeat 0 --json "$SCRATCH/cmp.json" compare "$R" "$R"
python3 - "$SCRATCH/cmp.json" <<'PY' && pass "compare of 3-run reports uses the repeat floor" || fail "compare floor source"
import json, sys
c = json.load(open(sys.argv[1]))
rows = [r for r in c["results"] if r.get("floor_source")]
assert rows and all("3 and 3 runs" in r["floor_source"] for r in rows), [r.get("floor_source") for r in rows]
PY
run repeat_env 2 --repeat 2 env
has repeat_env "--repeat repeats measurements" "$ERR"
run repeat_zero 2 ops --quick --repeat 0

echo
if [ "$failures" -eq 0 ]; then echo "all passed"; else echo "$failures failure(s)"; fi
[ "$failures" -eq 0 ]
