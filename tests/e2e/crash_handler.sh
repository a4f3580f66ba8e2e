#!/usr/bin/env bash
# End-to-end: a fatal signal in accel-doctor itself (not in a check's worker)
# leaves a clear last word on stderr: what it was doing and a backtrace, and
# the process still ends by that signal (exit status 128 + 11).
set -uo pipefail
BIN="$1"; OUT="$2"; rm -rf "$OUT"; mkdir -p "$OUT"
"$BIN" --device cpu ops --quick --filter linalg > "$OUT/stdout.txt" 2> "$OUT/stderr.txt" &
pid=$!
sleep 3
kill -SEGV "$pid"
wait "$pid"; rc=$?
[ "$rc" -eq 139 ] || { echo "FAIL: exit status $rc, want 139"; cat "$OUT/stderr.txt"; exit 1; }
grep -Eq "internal error: fatal signal SIGSEGV during: (start-up|ops: .+)$" "$OUT/stderr.txt" \
  || { echo "FAIL: no phase in the crash message"; cat "$OUT/stderr.txt"; exit 1; }
grep -q "accel-doctor(" "$OUT/stderr.txt" || { echo "FAIL: no backtrace"; cat "$OUT/stderr.txt"; exit 1; }
case "$(uname -m)" in x86_64|aarch64)
  grep -q "^instruction: 0x" "$OUT/stderr.txt" || { echo "FAIL: no faulting instruction"; cat "$OUT/stderr.txt"; exit 1; }
  ! grep -q "^fault address" "$OUT/stderr.txt" || { echo "FAIL: a fault address for a signal sent by kill"; exit 1; } ;;
esac
echo "crash message ok"
