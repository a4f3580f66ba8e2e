#!/usr/bin/env bash
# How often does `compare` call the same thing run twice a regression, and
# does it still catch a real slowdown? (issue 16). Runs RUNS+1 independent
# processes of one measuring command on this machine, compares each run with
# the next (RUNS same-vs-same pairs), then compares a run with a copy of
# itself in which one result is made SLOWDOWN times slower, and one in which
# every result is (how many results such a slowdown is caught for).
# Runs already in OUT (run0.json ...) are reused: to replay recorded runs,
# link them there.
#   scripts/bench/compare_noise.sh BIN OUT [RUNS=20] [SLOWDOWN=1.3] -- ARGS...
# e.g. scripts/bench/compare_noise.sh build/accel-doctor /tmp/noise 20 1.3 -- ops --quick --filter linalg
# Writes OUT/summary.txt and OUT/pairs.tsv (pair, exit code, slower keys).
set -euo pipefail
BIN=$1; OUT=$2; RUNS=${3:-20}; SLOW=${4:-1.3}; shift 4; [ "${1:-}" = "--" ] && shift
mkdir -p "$OUT"
for i in $(seq 0 "$RUNS"); do
  [ -s "$OUT/run$i.json" ] || "$BIN" --quiet --json "$OUT/run$i.json" "$@" > /dev/null 2>&1 || true
done
: > "$OUT/pairs.tsv"
false_alarms=0
for i in $(seq 0 $((RUNS - 1))); do
  rc=0
  "$BIN" --json "$OUT/cmp$i.json" compare "$OUT/run$i.json" "$OUT/run$((i + 1)).json" > /dev/null 2>&1 || rc=$?
  slower=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(','.join(r['key']+':'+format(100*r['relative_change'],'.1f')+'%' for r in c['results'] if r['change']=='slower'))" "$OUT/cmp$i.json")
  printf '%s\t%s\t%s\n' "$i" "$rc" "$slower" >> "$OUT/pairs.tsv"
  [ "$rc" -eq 1 ] && false_alarms=$((false_alarms + 1))
done
# A real slowdown, SLOWDOWN times every timing sample and median (and the
# per-run medians of a --repeat report) of run0, compared with run1 (so the
# noise between two processes is in it too): first of the first timed ok
# result alone (the issue's test), then of every timed result at once, which
# says for how many results such a slowdown would be caught (compare judges
# each result on its own).
slow_copy() {  # slow_copy OUT_JSON all|first -> prints the slowed keys
  python3 - "$OUT/run0.json" "$1" "$SLOW" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); f = float(sys.argv[3]); every = sys.argv[4] == "all"
for r in d["results"]:
    t = r.get("timing")
    if r["status"] == "ok" and t and t.get("samples_us"):
        for k in ("median_us", "iqr_us", "min_us", "max_us"):
            if k in t: t[k] *= f
        t["samples_us"] = [s * f for s in t["samples_us"]]
        rep = (r.get("evidence") or {}).get("repeat")
        if isinstance(rep, dict) and "median_us" in rep:
            rep["median_us"] = [m * f for m in rep["median_us"]]
        print(r["key"])
        if not every: break
json.dump(d, open(sys.argv[2], "w"))
PY
}
key=$(slow_copy "$OUT/slow.json" first)
rc=0; "$BIN" --json "$OUT/cmp_slow.json" compare "$OUT/run1.json" "$OUT/slow.json" > /dev/null 2>&1 || rc=$?
caught=$(python3 -c "import json,sys; c=json.load(open(sys.argv[1])); print(any(r['key']==sys.argv[2] and r['change']=='slower' for r in c['results']))" "$OUT/cmp_slow.json" "$key")
slow_copy "$OUT/slow_all.json" all > /dev/null
"$BIN" --json "$OUT/cmp_slow_all.json" compare "$OUT/run1.json" "$OUT/slow_all.json" > /dev/null 2>&1 || true
per_class=$(python3 - "$OUT/cmp_slow_all.json" <<'PY'
import json, sys, collections
c = json.load(open(sys.argv[1])); tot = collections.Counter(); hit = collections.Counter()
for r in c["results"]:
    if r.get("figure") != "median_us": continue
    cls = (r.get("floor_source") or "no floor").split(",")[0]
    tot[cls] += 1; hit[cls] += r["change"] == "slower"
print(f"{sum(hit.values())} of {sum(tot.values())}: " + "; ".join(f"{k} {hit[k]}/{tot[k]}" for k in sorted(tot)))
PY
)
{
  echo "command: accel-doctor $*"
  echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%Y-%m-%dT%H:%MZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "same-vs-same compares: $RUNS, called a regression: $false_alarms"
  echo "real ${SLOW}x slowdown of $key: caught=$caught (compare exit $rc)"
  echo "real ${SLOW}x slowdown of each timed result: caught for $per_class"
} | tee "$OUT/summary.txt"
