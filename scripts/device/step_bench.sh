#!/usr/bin/env bash
# Device step: bench (quick and full), the PyTorch reference, the fidelity table.
BIN="$1"; R="$2"; ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY=${PYTHON:-python3}
/usr/bin/time -f "bench --quick: %e s, max RSS %M KiB" $BIN bench --quick --json "$R/bench_quick.json" > "$R/bench_quick.txt" 2>&1; echo "bench quick rc=$?"
tail -3 "$R/bench_quick.txt"; grep "bench --quick" "$R/bench_quick.txt"
/usr/bin/time -f "bench (full): %e s, max RSS %M KiB" $BIN bench --json "$R/bench.json" > "$R/bench.txt" 2>&1; echo "bench rc=$?"
cat "$R/bench.txt"
$PY "$ROOT/scripts/device/reference_bench.py" > "$R/reference_bench.json" 2> "$R/reference_bench.err"; echo "reference rc=$?"
cat "$R/reference_bench.json"
$PY "$ROOT/scripts/device/fidelity.py" "$R/bench.json" "$R/reference_bench.json" | tee "$R/fidelity.txt"
