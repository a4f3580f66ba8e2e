#!/usr/bin/env bash
# Issue 18's test method: run accel-doctor under single-setting changes, as a
# user's shell, container or launcher would leave them, and record for each
# the verdict, the exit code and whether a finding names the setting.
#   OUT=... MODE=quick|doctor [SETTINGS_FILE=...] [DEADLINE_S=540] scripts/device/settings_sweep.sh
# MODE=quick runs `ops --quick` on the checks settings usually break (linalg,
# conv, attention, norm) plus `bench --quick --filter gemm` (discovery);
# MODE=doctor runs the default diagnosis (the issue's measure). Each line of
# SETTINGS_FILE is one run: "name<TAB>command prefix" (env assignments and/or
# a launcher such as `taskset -c 0`); "baseline" runs with nothing changed.
# Builds accel-doctor and its torch engine first unless BIN is given. Packs everything into
# $OUT/sweep.tar.gz (the device tool returns at most 8 files).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-/tmp/sweep-out}"; R=/tmp/sweep-r; rm -rf "$R"; mkdir -p "$R" "$OUT"
pack() { tar -C /tmp -czf "$OUT/sweep.tar.gz" sweep-r 2>/dev/null; cp "$R/summary.tsv" "$OUT/" 2>/dev/null; }
trap pack EXIT
trap 'pack; exit 143' TERM
MODE="${MODE:-quick}"
DEADLINE_S="${DEADLINE_S:-540}"
t0=$(date +%s)
left() { echo $(( DEADLINE_S - ($(date +%s) - t0) )); }
export ACCEL_DOCTOR_KB="$PWD/kb" PATH="$PATH:/usr/local/cuda/bin"

if [ -z "${BIN:-}" ]; then
  BUILD=/tmp/build-dev; BIN=$BUILD/accel-doctor
  cmake -S . -B $BUILD -G Ninja -DCMAKE_BUILD_TYPE=Release -DACCEL_BUILD_TESTS=OFF \
    -DCMAKE_PREFIX_PATH="$PWD/.devdeps/root/usr" > "$R/configure.txt" 2>&1 || tail -30 "$R/configure.txt"
  ninja -C $BUILD -j "$(nproc)" accel-doctor accel-doctor-torch > "$R/build.txt" 2>&1; echo "build rc=$? in $(( $(date +%s) - t0 ))s"
  grep -E "error|FAILED" "$R/build.txt" | head -20
fi
[ -x "$BIN" ] || { echo "no binary"; exit 1; }

SETTINGS_FILE="${SETTINGS_FILE:-scripts/device/settings.tsv}"
printf 'name\trc\tseconds\tnamed\tverdict\n' > "$R/summary.tsv"
while IFS=$'\t' read -r name prefix; do
  [ -z "$name" ] && continue
  case "$name" in \#*) continue ;; esac
  l=$(left); [ "$l" -lt 40 ] && { echo "=== skipped $name: ${l}s left"; continue; }
  d="$R/$name"; mkdir -p "$d"
  s=$(date +%s)
  if [ "$MODE" = doctor ]; then
    cmd=("$BIN" --redact --json "$d/report.json")
  else
    cmd=("$BIN" --redact ops --quick --filter linalg,conv,attention,norm --json "$d/report.json")
  fi
  # shellcheck disable=SC2086  # the prefix is words by design: VAR=value ... [launcher]
  timeout $(( l - 10 )) env $prefix "${cmd[@]}" > "$d/stdout.txt" 2> "$d/stderr.txt"; rc=$?
  if [ "$MODE" = quick ]; then
    timeout 60 env $prefix "$BIN" --redact bench --quick --filter gemm --json "$d/bench.json" \
      > "$d/bench.txt" 2>&1
  fi
  secs=$(( $(date +%s) - s ))
  report="$d/report.json"
  if [ "$MODE" = quick ]; then  # ops reports carry no findings: the rules run on them here
    env $prefix "$BIN" --redact diagnose --from "$d/report.json" --json "$d/diagnose.json" > "$d/diagnose.txt" 2>&1
    report="$d/diagnose.json"
  fi
  # Does a finding (title, evidence, why or fix) name the changed setting?
  var="${prefix%%=*}"; var="${var##* }"; [ "$name" = baseline ] && var=""
  case "$prefix" in taskset*) var="affinity";; esac
  named=$(python3 - "$report" "$var" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("no-report"); sys.exit()
v = sys.argv[2]
if not v:
    print("-"); sys.exit()
hit = [f["id"] for f in r.get("findings", []) if any(v.lower() in str(f.get(k, "")).lower() for k in ("title", "evidence", "why", "fix"))]
print(",".join(hit) if hit else "NOT-NAMED")
PY
)
  verdict=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('verdict','')[:120])" "$report" 2>/dev/null)
  printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$secs" "$named" "$verdict" | tee -a "$R/summary.tsv"
done < "$SETTINGS_FILE"
